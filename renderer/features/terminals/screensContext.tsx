/**
 * The terminal screens (xterm sessions kept across chat switches), given to the terminals feature
 * by the composition root (main.tsx). Absent in component tests that show no terminal.
 */
import { createContext, useContext, type ReactNode } from 'react';
import type { TerminalSessions } from './sessions';
import type { XtermSession } from './xtermSession';

const ScreensContext = createContext<TerminalSessions<XtermSession> | null>(null);

export function TerminalScreensProvider({ sessions, children }: { sessions: TerminalSessions<XtermSession>; children: ReactNode }) {
  return <ScreensContext.Provider value={sessions}>{children}</ScreensContext.Provider>;
}

export function useTerminalScreens(): TerminalSessions<XtermSession> | null {
  return useContext(ScreensContext);
}
