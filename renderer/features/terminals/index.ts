/** What the terminals feature offers the app and the other features: the rest of its folder is its own. */
export { TerminalArea } from './TerminalArea';
export { TerminalOutputHub } from './outputHub';
export { getTerminal, installTestHook, onTerminalRegistered } from './registry';
export { TerminalScreensProvider } from './screensContext';
export { TerminalSessions } from './sessions';
export { XtermSession } from './xtermSession';
