import type { Terminal } from '@xterm/xterm';
import { describe, expect, it } from 'vitest';
import { coalesceParserScrolls, holdableScreen, shareOwnerClass, SHARED_OWNER_CLASS, skipEmptySelectionRedraws, throttleScrollbarReveal } from './xtermSession';

/** The part of xterm 6.0's internals the throttle touches (jsdom cannot open a real xterm). */
function xtermShaped() {
  let hides = 0;
  const scrollable = {
    _reveal(this: { _scheduleHide(): void }) {
      this._scheduleHide();
    },
    _scheduleHide: () => void hides++,
  };
  return { term: { _core: { _viewport: { _scrollableElement: scrollable } } } as unknown as Terminal, scrollable, hides: () => hides };
}

describe('throttleScrollbarReveal', () => {
  it('lets the scrollbar reveal itself (and re-arm its hide timer) at most every 100 ms while output scrolls', () => {
    const { term, scrollable, hides } = xtermShaped();
    let now = 1000;
    expect(throttleScrollbarReveal(term, () => now)).toBe(true);
    for (let i = 0; i < 50; i++) scrollable._reveal();
    expect(hides()).toBe(1);
    now += 99;
    scrollable._reveal();
    expect(hides()).toBe(1);
    now += 1;
    scrollable._reveal();
    expect(hides()).toBe(2);
  });

  it('does nothing to a terminal whose internals differ (a later xterm)', () => {
    expect(throttleScrollbarReveal({} as Terminal)).toBe(false);
    expect(throttleScrollbarReveal({ _core: { _viewport: {} } } as unknown as Terminal)).toBe(false);
  });
});

describe('coalesceParserScrolls', () => {
  /** A real xterm (parsing needs no DOM), 10 rows of 20 columns. */
  async function realTerminal(): Promise<Terminal> {
    const { Terminal: XtermTerminal } = await import('@xterm/xterm');
    return new XtermTerminal({ cols: 20, rows: 10, scrollback: 1000, allowProposedApi: true });
  }
  const write = (term: Terminal, data: string) => new Promise<void>((resolve) => term.write(data, resolve));
  const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `line-${from + i}`);
  const screen = (term: Terminal) => {
    const b = term.buffer.active;
    return Array.from({ length: term.rows }, (_, y) => b.getLine(b.viewportY + y)?.translateToString(true) ?? '');
  };

  it('tells a write that scrolls 500 lines as one scroll, at the final position, with the same buffer', async () => {
    const patched = await realTerminal();
    const plain = await realTerminal();
    expect(coalesceParserScrolls(patched)).toBe(true);
    const scrolls: number[] = [];
    const plainScrolls: number[] = [];
    patched.onScroll((y) => scrolls.push(y));
    plain.onScroll((y) => plainScrolls.push(y));
    const text = `${lines(0, 500).join('\r\n')}\r\n`;
    await write(patched, text);
    await write(plain, text);
    expect(plainScrolls.length).toBeGreaterThan(400);
    expect(scrolls).toEqual([plainScrolls.at(-1)]);
    expect(patched.buffer.active.viewportY).toBe(plain.buffer.active.viewportY);
    expect(screen(patched)).toEqual(screen(plain));
    expect(screen(patched)).toContain('line-499');
    patched.dispose();
    plain.dispose();
  });

  it('still tells scrolls outside parsing (the wheel, scrollLines) one by one', async () => {
    const term = await realTerminal();
    coalesceParserScrolls(term);
    await write(term, `${lines(0, 50).join('\r\n')}\r\n`);
    const scrolls: number[] = [];
    term.onScroll((y) => scrolls.push(y));
    const bottom = term.buffer.active.viewportY;
    term.scrollLines(-1);
    term.scrollLines(-1);
    expect(scrolls).toEqual([bottom - 1, bottom - 2]);
    term.dispose();
  });

  it('does nothing to a terminal whose internals differ (a later xterm)', () => {
    expect(coalesceParserScrolls({} as Terminal)).toBe(false);
    expect(coalesceParserScrolls({ _core: { _bufferService: {} } } as unknown as Terminal)).toBe(false);
  });
});

describe('skipEmptySelectionRedraws', () => {
  /**
   * The part of xterm 6.0 it touches: the selection service, whose refresh asks for a redraw at the
   * next frame (_refresh, which draws the selection as it is then), and the terminal's resize event.
   */
  function selectionShaped() {
    const redraws: boolean[] = [];
    const resized: Array<() => void> = [];
    const service = {
      selected: false,
      frameAsked: false,
      get hasSelection() {
        return this.selected;
      },
      refresh() {
        this.frameAsked = true;
      },
      _refresh() {
        this.frameAsked = false;
        redraws.push(this.selected);
      },
    };
    /** The next frame: the redraw asked for, if any. */
    const frame = () => service.frameAsked && service._refresh();
    const term = { _core: { _selectionService: service }, onResize: (fn: () => void) => resized.push(fn) } as unknown as Terminal;
    return { term, service, redraws, frame, resize: () => resized.forEach((fn) => fn()) };
  }

  it('redraws an empty selection once, then not again until something was selected; a selection always redraws', () => {
    const { term, service, redraws, frame } = selectionShaped();
    expect(skipEmptySelectionRedraws(term)).toBe(true);
    for (let i = 0; i < 100; i++) {
      service.refresh();
      frame();
    }
    expect(redraws).toEqual([false]);
    service.selected = true;
    service.refresh();
    frame();
    service.refresh();
    frame();
    service.selected = false; // cleared: its highlight must go
    service.refresh();
    frame();
    service.refresh();
    frame();
    expect(redraws).toEqual([false, true, true, false]);
  });

  it('judges by what the last frame drew, not by what the selection was when a redraw was asked for', () => {
    const { term, service, redraws, frame } = selectionShaped();
    skipEmptySelectionRedraws(term);
    service.refresh();
    frame();
    // Cleared and selected again within one frame: that frame draws the selection...
    service.selected = true;
    service.refresh();
    service.selected = false;
    service.refresh();
    service.selected = true;
    frame();
    // ...so clearing it afterwards must draw again.
    service.selected = false;
    service.refresh();
    frame();
    expect(redraws).toEqual([false, true, false]);
  });

  it('redraws the selection after a resize (the DOM renderer draws its last one again then, even a cleared one)', () => {
    const { term, service, redraws, frame, resize } = selectionShaped();
    skipEmptySelectionRedraws(term);
    service.refresh();
    frame();
    resize();
    frame();
    expect(redraws).toEqual([false, false]);
  });

  it('does nothing to a terminal whose internals differ (a later xterm)', () => {
    expect(skipEmptySelectionRedraws({} as Terminal)).toBe(false);
    expect(skipEmptySelectionRedraws({ _core: { _selectionService: { refresh() {} } } } as unknown as Terminal)).toBe(false);
  });
});

describe('holdableScreen', () => {
  /** The part of xterm 6.0's render service it touches. */
  function renderShaped() {
    const calls: Array<[number, number, boolean]> = [];
    const service = {
      refreshRows(start: number, end: number, isRedrawOnly = false) {
        calls.push([start, end, isRedrawOnly]);
      },
    };
    const syncs: string[] = [];
    const viewport = {
      _sync: () => void syncs.push('sync'),
      queueSync: () => void syncs.push('queue'),
    };
    return { term: { _core: { _renderService: service, _viewport: viewport } } as unknown as Terminal, service, calls, viewport, syncs };
  }

  it('holds the viewport\'s scroll-area updates too, and queues one at release', () => {
    const { term, viewport, syncs } = renderShaped();
    const screen = holdableScreen(term)!;
    viewport._sync();
    expect(syncs).toEqual(['sync']);
    screen.hold();
    for (let i = 0; i < 20; i++) {
      viewport._sync();
      viewport.queueSync();
    }
    expect(syncs).toEqual(['sync']);
    // Only the viewport waited: no rows to draw, so the pacer stays held; one sync is queued.
    expect(screen.release()).toBe(false);
    expect(syncs).toEqual(['sync', 'queue']);
    expect(screen.release()).toBe(false);
    expect(syncs).toEqual(['sync', 'queue']);
  });

  it('passes redraw requests through until held; while held notes them, and on release asks once for all the rows they named', () => {
    const { term, service, calls } = renderShaped();
    const screen = holdableScreen(term);
    expect(screen).not.toBeNull();
    service.refreshRows(0, 3);
    expect(calls).toEqual([[0, 3, false]]);
    screen!.hold();
    service.refreshRows(5, 9, true);
    service.refreshRows(2, 4, false);
    service.refreshRows(7, 8, true);
    expect(calls).toHaveLength(1);
    expect(screen!.release()).toBe(true);
    // Not a redraw only: a row's content changed, so xterm tells its listeners as it would have.
    expect(calls).toEqual([[0, 3, false], [2, 9, false]]);
    expect(screen!.release()).toBe(false);
    service.refreshRows(1, 1, true);
    expect(calls.at(-1)).toEqual([1, 1, true]);
  });

  it('a release with only redraw requests waiting stays a redraw', () => {
    const { term, service, calls } = renderShaped();
    const screen = holdableScreen(term)!;
    screen.hold();
    service.refreshRows(4, 4, true);
    expect(screen.release()).toBe(true);
    expect(calls).toEqual([[4, 4, true]]);
  });

  it('does nothing to a terminal whose internals differ (a later xterm)', () => {
    expect(holdableScreen({} as Terminal)).toBeNull();
    expect(holdableScreen({ _core: { _renderService: {} } } as unknown as Terminal)).toBeNull();
    expect(holdableScreen({ _core: { _renderService: { refreshRows() {} } } } as unknown as Terminal)).toBeNull();
  });
});

describe('shareOwnerClass', () => {
  /** The part of xterm 6.0's DOM renderer it touches: its owner class, its element and its sheets. */
  function rendererShaped(id: number) {
    const element = document.createElement('div');
    element.classList.add('xterm', `xterm-dom-renderer-owner-${id}`);
    const theme = document.createElement('style');
    const dims = document.createElement('style');
    element.append(theme, dims);
    const renderer = {
      _terminalClass: id,
      _element: element,
      _themeService: { colors: { foreground: '#d8dee9' } },
      _injectCss(this: { _terminalClass: number }, colors: { foreground: string }) {
        theme.textContent = `.xterm-dom-renderer-owner-${this._terminalClass} .xterm-rows { color: ${colors.foreground}; }`;
      },
      _updateDimensions(this: { _terminalClass: number }) {
        dims.textContent = `.xterm-dom-renderer-owner-${this._terminalClass} .xterm-rows span { display: inline-block; }`;
      },
    };
    renderer._injectCss({ foreground: '#d8dee9' });
    renderer._updateDimensions();
    const term = { _core: { _renderService: { _renderer: { value: renderer } } } } as unknown as Terminal;
    return { term, element, theme, dims };
  }

  it("gives two screens one owner class and the same sheets, so one live copy serves both", () => {
    const a = rendererShaped(3);
    const b = rendererShaped(4);
    expect(a.theme.textContent).not.toBe(b.theme.textContent);
    expect(shareOwnerClass(a.term)).toBe(true);
    expect(shareOwnerClass(b.term)).toBe(true);
    for (const s of [a, b]) {
      expect(s.element.classList.contains(SHARED_OWNER_CLASS)).toBe(true);
      expect([...s.element.classList].filter((c) => c.startsWith('xterm-dom-renderer-owner-'))).toEqual([SHARED_OWNER_CLASS]);
    }
    expect(a.theme.textContent).toBe(b.theme.textContent);
    expect(a.dims.textContent).toBe(b.dims.textContent);
    expect(a.theme.textContent).toContain(`.${SHARED_OWNER_CLASS} .xterm-rows { color: #d8dee9; }`);
  });

  it('does nothing to a terminal whose internals differ (a later xterm)', () => {
    expect(shareOwnerClass({} as Terminal)).toBe(false);
    const odd = rendererShaped(5);
    odd.element.classList.remove('xterm-dom-renderer-owner-5');
    expect(shareOwnerClass(odd.term)).toBe(false);
    expect(odd.theme.textContent).toContain('owner-5');
  });
});
