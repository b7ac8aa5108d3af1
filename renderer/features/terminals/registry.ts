/**
 * The xterm instances alive (shown, or kept while their chat is in the background), by terminal id, and the test hook that reads them
 * (`window.__berthTest`, used by end-to-end tests; harmless otherwise: it only reads text
 * already on the screen).
 */
import type { Terminal } from '@xterm/xterm';

const terminals = new Map<string, Terminal>();
const registered = new Set<(terminalId: string) => void>();

export function registerTerminal(terminalId: string, term: Terminal): () => void {
  terminals.set(terminalId, term);
  for (const listener of [...registered]) listener(terminalId);
  return () => {
    if (terminals.get(terminalId) === term) terminals.delete(terminalId);
  };
}

export function getTerminal(terminalId: string): Terminal | undefined {
  return terminals.get(terminalId);
}

/** Calls `listener` each time a screen is made (in the document, ready for the focus); returns the way to stop. */
export function onTerminalRegistered(listener: (terminalId: string) => void): () => void {
  registered.add(listener);
  return () => registered.delete(listener);
}

/** Anything with xterm's buffer shape: lines read with translateToString(true). */
export interface BufferLike {
  length: number;
  viewportY?: number;
  getLine(y: number): { isWrapped: boolean; translateToString(trimRight?: boolean): string } | undefined;
}

/**
 * The buffer's text: one line per row, except that a row the terminal wrapped continues the
 * line before it (so long output can be matched whole); trailing empty rows dropped.
 */
export function bufferText(buffer: BufferLike): string {
  const lines: string[] = [];
  for (let y = 0; y < buffer.length; y++) {
    const line = buffer.getLine(y);
    if (!line) continue;
    const text = line.translateToString(true);
    if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

/** The rows in view (the screen, not the scrollback), one per row, trimmed at the right. */
export function screenText(buffer: BufferLike, rows: number): string {
  const top = buffer.viewportY ?? 0;
  const out: string[] = [];
  for (let y = top; y < Math.min(top + rows, buffer.length); y++) out.push(buffer.getLine(y)?.translateToString(true) ?? '');
  return out.join('\n');
}

export interface BerthTestHook {
  /** The text of a terminal's buffer (the active one when no id is given); '' when it has no screen. */
  terminalText(terminalId?: string): string;
  /** The rows in view of a terminal (the active one when no id is given): cheap to read often. */
  screenText(terminalId?: string): string;
  /** The terminal tab shown for the selected chat, or null. */
  activeTerminalId(): string | null;
}

declare global {
  interface Window {
    __berthTest?: BerthTestHook;
  }
}

/** Test hook, installed always: it reads what is on screen and changes nothing. */
export function installTestHook(win: Window, activeTerminalId: () => string | null): void {
  win.__berthTest = {
    terminalText(terminalId) {
      const id = terminalId ?? activeTerminalId();
      const term = id === null ? undefined : terminals.get(id);
      return term ? bufferText(term.buffer.active) : '';
    },
    screenText(terminalId) {
      const id = terminalId ?? activeTerminalId();
      const term = id === null ? undefined : terminals.get(id);
      return term ? screenText(term.buffer.active, term.rows) : '';
    },
    activeTerminalId,
  };
}
