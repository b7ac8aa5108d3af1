/**
 * One xterm.js screen for one of main's terminals: repaint from `terminal.replay`, then live
 * output (acknowledged after xterm has written it), keystrokes to `terminal.input`, fit to its
 * box and `terminal.resize`, find, web links. Plain TypeScript: TerminalPane only mounts it.
 */
import { Terminal, type ITheme } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { WebLinksAddon } from '@xterm/addon-web-links';
import type { BerthApi } from '../../api/types';
import { TERMINAL_OUTPUT } from '../../../shared/flowControl';
import { TERMINAL_FONT } from '../../../shared/terminalFont';
import { terminalNote } from '../../../shared/terminalNote';
import { matchShortcut } from '../shortcuts';
import { CursorBlink } from './cursorBlink';
import type { TerminalOutputHub } from './outputHub';
import { OutputJoiner } from '../../../shared/outputJoiner';
import type { TerminalSize } from '../../stores/terminals';
import { RenderPacer } from './renderPacer';
import { coalesceParserScrolls, holdableScreen, shareOwnerClass, skipEmptySelectionRedraws, throttleScrollbarReveal, warnPatchOff } from './xtermPatches';

export { coalesceParserScrolls, holdableScreen, shareOwnerClass, SHARED_OWNER_CLASS, skipEmptySelectionRedraws, throttleScrollbarReveal } from './xtermPatches';

/** Under the contract's 1 MiB per `terminal.input`, with room to spare. */
const INPUT_CHUNK = 256 * 1024;
const RESIZE_DEBOUNCE_MS = 60;

/** Find marks every match, up to this many (xterm's default), and counts them. */
export const FIND_HIGHLIGHT_LIMIT = 1000;

/** How matches look: every one dimly, the selected one brightly (xterm wants #RRGGBB backgrounds). */
const FIND_DECORATIONS = {
  matchBackground: '#5c4a1a',
  activeMatchBackground: '#a67c00',
  matchOverviewRuler: '#d7a53a',
  activeMatchColorOverviewRuler: '#ffcc66',
} as const;

export const TERMINAL_THEME: ITheme = {
  background: '#14161a',
  foreground: '#d8dee9',
  cursor: '#d8dee9',
  cursorAccent: '#14161a',
  selectionBackground: '#3b4252',
  black: '#2e3440',
  red: '#e06c75',
  green: '#98c379',
  yellow: '#e5c07b',
  blue: '#61afef',
  magenta: '#c678dd',
  cyan: '#56b6c2',
  white: '#d8dee9',
  brightBlack: '#5c6370',
  brightRed: '#f08a93',
  brightGreen: '#b5e08f',
  brightYellow: '#f0d49a',
  brightBlue: '#8cc4f7',
  brightMagenta: '#d89cec',
  brightCyan: '#7fd0d9',
  brightWhite: '#ffffff',
};

/** The line written when a terminal ends, e.g. "[sandbox stopped — press Restart]". */
export function exitLine(reason: string | null): string {
  const why = (reason ?? '').trim().replace(/\.+$/, '') || 'The terminal ended';
  return terminalNote(`${why} — press Restart`);
}

export interface XtermSessionDeps {
  api: BerthApi;
  output: TerminalOutputHub;
  terminalId: string;
  /** The size main opened the terminal at: a resize is sent when the fitted size differs. */
  initialSize: TerminalSize;
  onSize(size: TerminalSize): void;
}

export class XtermSession {
  readonly term: Terminal;
  /** Ctrl+Shift+F in the terminal: the pane showing it opens its find bar (null while kept off screen). */
  onFind: (() => void) | null = null;
  private readonly fitAddon = new FitAddon();
  private readonly searchAddon = new SearchAddon({ highlightLimit: FIND_HIGHLIGHT_LIMIT });
  private readonly offs: Array<() => void> = [];
  /** False while a replay is in flight: live output meanwhile is part of the replay. */
  private live = false;
  private replayGeneration = 0;
  private exitReason: string | null | undefined = undefined;
  private exitShown = false;
  /** Characters handed to xterm whose write callback has not run yet. */
  private inFlight = 0;
  /** Joins a flood into fewer xterm writes; output after a pause is written at once. */
  private readonly pacer = new OutputJoiner((data, joined) => this.writeOutput(data, joined), {
    intervalMs: TERMINAL_OUTPUT.writeIntervalMs,
    maxChars: TERMINAL_OUTPUT.writeMaxChars,
  }, {
    now: () => performance.now(),
    set: (fn, ms) => setTimeout(fn, ms),
    clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  });
  private sentSize: TerminalSize;
  private resizeTimer: ReturnType<typeof setTimeout> | null = null;
  private disposed = false;
  /** Draws a flood once per interval instead of every frame (null: xterm's internals changed shape). */
  private readonly renderPacer: RenderPacer | null;
  /** Whether xterm's scrollbar reveal is throttled (false: xterm's internals changed shape). */
  readonly scrollbarThrottled: boolean;
  /** Whether a parser chunk's scroll events are folded into one and empty selections are not redrawn (false: xterm's internals changed shape). */
  readonly scrollsCoalesced: boolean;
  /** Whether this screen's sheets are the same as every other shared screen's (shareOwnerClass; false: xterm's internals changed shape). */
  readonly sharedSheets: boolean;

  constructor(
    private readonly host: HTMLElement,
    private readonly deps: XtermSessionDeps,
  ) {
    this.sentSize = deps.initialSize;
    const term = new Terminal({
      cols: deps.initialSize.cols,
      rows: deps.initialSize.rows,
      // Blinks on a timer instead (cursorBlink.ts): xterm's CSS blink restyles every frame.
      cursorBlink: false,
      scrollback: 10_000,
      fontFamily: TERMINAL_FONT.family,
      fontSize: TERMINAL_FONT.size,
      theme: TERMINAL_THEME,
      // Find's marks on every match are decorations, which xterm 6 still calls a proposed API.
      allowProposedApi: true,
    });
    this.term = term;
    term.loadAddon(this.fitAddon);
    term.loadAddon(this.searchAddon);
    // Open the link itself (not about:blank then a redirect), so Electron's window-open
    // handler sees the real URL and can hand it to the system browser.
    term.loadAddon(new WebLinksAddon((_event, uri) => window.open(uri, '_blank', 'noopener,noreferrer')));
    term.attachCustomKeyEventHandler((ev) => this.onKey(ev));
    term.open(host);
    this.sharedSheets = shareOwnerClass(term);
    this.scrollbarThrottled = throttleScrollbarReveal(term);
    this.scrollsCoalesced = coalesceParserScrolls(term) && skipEmptySelectionRedraws(term);
    const screen = holdableScreen(term);
    this.renderPacer = screen
      ? new RenderPacer(screen, TERMINAL_OUTPUT.floodDrawIntervalMs, {
          set: (fn, ms) => setTimeout(fn, ms),
          clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
        })
      : null;
    if (!this.scrollbarThrottled || !this.scrollsCoalesced || !screen || !this.sharedSheets) warnPatchOff();

    const blink = new CursorBlink(term);
    this.offs.push(() => blink.dispose());

    const input = term.onData((data) => this.sendInput(data));
    const binary = term.onBinary((data) => this.sendInput(data));
    const resize = term.onResize(() => this.scheduleResize());
    const drawn = term.onRender(() => this.renderPacer?.drawn());
    this.offs.push(
      () => input.dispose(),
      () => binary.dispose(),
      () => resize.dispose(),
      () => drawn.dispose(),
      () => this.renderPacer?.dispose(),
    );

    this.offs.push(deps.output.attach(deps.terminalId, (data) => this.onOutput(data)));

    if (typeof ResizeObserver !== 'undefined') {
      let frame = 0;
      let fitted = '';
      const observer = new ResizeObserver((entries) => {
        // Taken out of the document (its chat in the background) and put back at the size it had:
        // nothing to fit, and no layout forced in the frame that shows it again.
        const box = entries[entries.length - 1]?.contentRect;
        const size = box ? `${box.width}x${box.height}` : '';
        if (box && (box.width === 0 || box.height === 0 || size === fitted)) return;
        fitted = size;
        cancelAnimationFrame(frame);
        frame = requestAnimationFrame(() => this.fit());
      });
      observer.observe(host);
      this.offs.push(() => {
        cancelAnimationFrame(frame);
        observer.disconnect();
      });
    }
    this.fit();
    this.replay();
  }

  /** Clears the screen and repaints it from main's recent output; live output resumes after it. */
  replay(): void {
    if (this.disposed) return;
    const generation = ++this.replayGeneration;
    this.live = false;
    // Output not yet written is part of the replay; main forgets it for flow control too.
    this.pacer.drop();
    this.renderPacer?.idle();
    this.exitShown = false;
    this.term.reset();
    const done = (data: string) => {
      if (this.disposed || generation !== this.replayGeneration) return;
      if (data !== '') this.term.write(data);
      this.live = true;
      this.showExitLine();
    };
    this.deps.api.call('terminal.replay', { terminalId: this.deps.terminalId }).then(
      ({ data }) => done(data),
      () => done(''),
    );
  }

  /** The terminal ended (its shell exited or the sandbox stopped): say so on the screen, once. */
  setExited(reason: string | null): void {
    this.exitReason = reason;
    this.showExitLine();
  }

  /** Fits the screen to its box, when the box is on screen. */
  fit(): void {
    if (this.disposed || this.host.clientWidth === 0 || this.host.clientHeight === 0) return;
    try {
      this.fitAddon.fit();
    } catch {
      // Not rendered yet: the next resize fits it.
    }
  }

  focus(): void {
    this.term.focus();
  }

  /** Buffer lines held (scrollback and screen): what keeping this screen costs. */
  lines(): number {
    return this.term.buffer.normal.length;
  }

  findNext(query: string, incremental = false): boolean {
    return query !== '' && this.searchAddon.findNext(query, { incremental, decorations: FIND_DECORATIONS });
  }

  findPrevious(query: string): boolean {
    return query !== '' && this.searchAddon.findPrevious(query, { decorations: FIND_DECORATIONS });
  }

  /**
   * After each find: which match is selected (0-based; -1 past FIND_HIGHLIGHT_LIMIT matches,
   * which xterm stops counting) and how many there are.
   */
  onFindResults(listener: (results: { index: number; count: number }) => void): () => void {
    const sub = this.searchAddon.onDidChangeResults((r) => listener({ index: r.resultIndex, count: r.resultCount }));
    return () => sub.dispose();
  }

  clearFind(): void {
    this.searchAddon.clearDecorations();
    this.term.clearSelection();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.resizeTimer !== null) clearTimeout(this.resizeTimer);
    for (const off of this.offs.splice(0)) off();
    // Output received but never written still counts as consumed for flow control.
    const unwritten = this.inFlight + this.pacer.drop();
    if (unwritten > 0) this.deps.output.ack(this.deps.terminalId, unwritten);
    this.inFlight = 0;
    this.term.dispose();
  }

  private onOutput(data: string): void {
    // Awaiting a replay: this output is part of it, and main forgives what came before a replay
    // (its flow control starts afresh), so it is neither written nor acknowledged.
    if (!this.live) return;
    this.pacer.push(data);
  }

  private writeOutput(data: string, joined: boolean): void {
    const { output, terminalId } = this.deps;
    this.inFlight += data.length;
    this.renderPacer?.written(joined);
    this.term.write(data, () => {
      if (this.disposed) return;
      this.inFlight -= data.length;
      output.ack(terminalId, data.length);
      // The flood (if any) is written and nothing waits: its end is drawn at the next frame.
      if (this.inFlight === 0 && this.pacer.waiting === 0) this.renderPacer?.idle();
    });
  }

  private showExitLine(): void {
    if (this.exitReason === undefined || this.exitShown || !this.live || this.disposed) return;
    this.exitShown = true;
    this.pacer.flush();
    this.term.write(exitLine(this.exitReason));
  }

  private sendInput(data: string): void {
    if (this.exitReason !== undefined) return;
    for (let i = 0; i < data.length; i += INPUT_CHUNK) {
      this.deps.api.call('terminal.input', { terminalId: this.deps.terminalId, data: data.slice(i, i + INPUT_CHUNK) }).catch(() => {
        // The terminal ended: its exit event says so.
      });
    }
  }

  private scheduleResize(): void {
    if (this.resizeTimer !== null) clearTimeout(this.resizeTimer);
    this.resizeTimer = setTimeout(() => {
      this.resizeTimer = null;
      const { cols, rows } = this.term;
      this.deps.onSize({ cols, rows });
      if (this.exitReason !== undefined || (cols === this.sentSize.cols && rows === this.sentSize.rows)) return;
      this.sentSize = { cols, rows };
      this.deps.api.call('terminal.resize', { terminalId: this.deps.terminalId, cols, rows }).catch(() => {});
    }, RESIZE_DEBOUNCE_MS);
  }

  /** False: xterm leaves the key alone (the app's shortcuts, copy and paste). */
  private onKey(ev: KeyboardEvent): boolean {
    const shortcut = matchShortcut(ev);
    if (shortcut === 'findInTerminal') {
      if (ev.type === 'keydown') {
        ev.preventDefault();
        this.onFind?.();
      }
      return false;
    }
    if (shortcut !== null) return false;
    if (ev.ctrlKey && ev.shiftKey && !ev.altKey && !ev.metaKey) {
      if (ev.code === 'KeyC' || ev.key === 'C' || ev.key === 'c') {
        if (ev.type === 'keydown' && this.term.hasSelection()) {
          ev.preventDefault();
          void navigator.clipboard?.writeText(this.term.getSelection()).catch(() => {});
        }
        return false;
      }
      // Ctrl+Shift+V: the browser's own paste, which xterm then handles.
      if (ev.code === 'KeyV' || ev.key === 'V' || ev.key === 'v') return false;
    }
    return true;
  }
}
