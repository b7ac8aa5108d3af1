import type { Terminal } from '@xterm/xterm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CURSOR_BLINK_HALF_MS, CursorBlink } from './cursorBlink';

/** The part of an opened xterm the blink uses: its element, its textarea, its write and input events. */
function terminalShaped() {
  const element = document.body.appendChild(document.createElement('div'));
  const textarea = element.appendChild(document.createElement('textarea'));
  const listeners = { written: [] as Array<() => void>, data: [] as Array<() => void> };
  const event = (list: Array<() => void>) => (fn: () => void) => {
    list.push(fn);
    return { dispose: () => list.splice(list.indexOf(fn), 1) };
  };
  const term = { element, textarea, onWriteParsed: event(listeners.written), onData: event(listeners.data) } as unknown as Terminal;
  return { term, element, textarea, write: () => listeners.written.forEach((f) => f()), type: () => listeners.data.forEach((f) => f()), listeners };
}

describe('CursorBlink', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    vi.useRealTimers();
    document.body.replaceChildren();
  });

  it('blinks a focused cursor on a timer, lit and dark in turn', () => {
    const { term, textarea } = terminalShaped();
    const blink = new CursorBlink(term);
    vi.advanceTimersByTime(CURSOR_BLINK_HALF_MS * 3);
    expect(blink.dark).toBe(false);
    textarea.focus();
    vi.advanceTimersByTime(CURSOR_BLINK_HALF_MS);
    expect(blink.dark).toBe(true);
    vi.advanceTimersByTime(CURSOR_BLINK_HALF_MS);
    expect(blink.dark).toBe(false);
    vi.advanceTimersByTime(CURSOR_BLINK_HALF_MS);
    expect(blink.dark).toBe(true);
    textarea.blur();
    expect(blink.dark).toBe(false);
    vi.advanceTimersByTime(CURSOR_BLINK_HALF_MS * 3);
    expect(blink.dark).toBe(false);
    blink.dispose();
  });

  it('keeps the cursor lit while output arrives or the user types', () => {
    const { term, textarea, write, type } = terminalShaped();
    const blink = new CursorBlink(term);
    textarea.focus();
    vi.advanceTimersByTime(CURSOR_BLINK_HALF_MS);
    expect(blink.dark).toBe(true);
    write();
    expect(blink.dark).toBe(false);
    for (let i = 0; i < 6; i++) {
      vi.advanceTimersByTime(CURSOR_BLINK_HALF_MS / 2);
      (i % 2 ? type : write)();
      expect(blink.dark).toBe(false);
    }
    // Quiet again: it blinks once a full half has passed with nothing new.
    vi.advanceTimersByTime(CURSOR_BLINK_HALF_MS * 2);
    expect(blink.dark).toBe(true);
    blink.dispose();
  });

  it('stops when its screen leaves the page (a kept chat gets no blur) and when disposed', () => {
    const { term, element, textarea, listeners } = terminalShaped();
    const blink = new CursorBlink(term);
    textarea.focus();
    element.remove();
    vi.advanceTimersByTime(CURSOR_BLINK_HALF_MS * 3);
    expect(blink.dark).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    blink.dispose();
    expect(listeners.written).toHaveLength(0);
    expect(listeners.data).toHaveLength(0);
  });

  it('does not blink for a user who asked for reduced motion', () => {
    const { term, textarea } = terminalShaped();
    const win = Object.assign(Object.create(window), {
      matchMedia: (q: string) => ({ matches: q.includes('reduce') }),
      setInterval: window.setInterval.bind(window),
      clearInterval: window.clearInterval.bind(window),
    }) as Window;
    const blink = new CursorBlink(term, win);
    textarea.focus();
    vi.advanceTimersByTime(CURSOR_BLINK_HALF_MS * 3);
    expect(blink.dark).toBe(false);
    blink.dispose();
  });
});
