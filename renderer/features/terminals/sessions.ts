/**
 * The xterm screens alive in the page, by terminal id. A chat's terminal panes borrow their
 * screens from here: shown, the screen's element sits in the pane; when the user goes to another
 * chat, the element is only taken out of the document ("kept"), and coming back puts the same
 * screen back, as it was, without a new xterm or a `terminal.replay` round trip. A kept screen
 * still takes its terminal's output (xterm parses it, draws nothing while out of the document,
 * and acknowledges it as written, so main's flow control is the same as for a shown screen).
 *
 * Bounded by TERMINAL_KEEP_ALIVE (shared/flowControl.ts): the least recently shown chats' screens
 * are disposed first. A screen also goes when its terminal is closed or its chat deleted (it
 * leaves the terminals store), and when its terminal has ended while kept (nothing flows any
 * more; coming back repaints from main's copy).
 */
import type { TerminalsStore } from '../../stores/terminals';
import { TERMINAL_KEEP_ALIVE } from '../../../shared/flowControl';
import type { TerminalSize } from '../../stores/terminals';
import { registerTerminal } from './registry';

export interface KeepPolicy {
  maxChats: number;
  maxLines: number;
}

export interface KeptChat {
  chatId: string;
  /** Larger: shown more recently. */
  lastShown: number;
  /** Buffer lines of its screens (scrollback and screen). */
  lines: number;
  /** On screen now: never let go. */
  shown: boolean;
}

/** Pure: the chats whose screens to dispose, least recently shown first, until both bounds hold. */
export function chatsToEvict(chats: readonly KeptChat[], policy: KeepPolicy = TERMINAL_KEEP_ALIVE): string[] {
  let count = chats.length;
  let lines = chats.reduce((n, c) => n + c.lines, 0);
  const evict: string[] = [];
  for (const c of [...chats].sort((a, b) => a.lastShown - b.lastShown)) {
    if (count <= policy.maxChats && lines <= policy.maxLines) break;
    if (c.shown) continue;
    evict.push(c.chatId);
    count--;
    lines -= c.lines;
  }
  return evict;
}

/** What the cache needs of a screen (XtermSession in the app, a fake in tests). */
export interface KeptScreen {
  readonly term: import('@xterm/xterm').Terminal;
  /** Buffer lines held (scrollback and screen). */
  lines(): number;
  /** Clears the screen and repaints it from main's copy (after a reconnect). */
  replay(): void;
  dispose(): void;
  /**
   * True: the screen's sheets are the same as every other such screen's (xtermSession's
   * shareOwnerClass), so one live copy serves them all and a switch changes no sheet.
   */
  readonly sharedSheets?: boolean;
}

export type ScreenFactory<S extends KeptScreen> = (element: HTMLElement, terminalId: string, initialSize: TerminalSize) => S;

interface Entry<S> {
  screen: S;
  element: HTMLElement;
  /** xterm's own `<style>` elements for this screen, moved to the document's head (adoptStyles). */
  styles: HTMLStyleElement[];
  chatId: string;
  shown: boolean;
  /** Its sheets are the shared ones (KeptScreen.sharedSheets). */
  shared: boolean;
  unregister(): void;
}

export interface SessionsDeps<S extends KeptScreen> {
  terminals: TerminalsStore;
  /** The connection's epoch: a new one (a reconnect) may have missed output, so every screen repaints. */
  epoch: { get(): number; subscribe(fn: () => void): () => void };
  create: ScreenFactory<S>;
  document: Document;
  policy?: KeepPolicy;
  /**
   * When to check the bounds after a screen was let go: the page passes "after the next frame"
   * (a chat switch lets one go, and the check walks every kept screen); default at once.
   */
  later?: (run: () => void) => void;
}

/** A media query no screen matches: the sheets of a kept screen stay parsed but match nothing. */
const KEPT_MEDIA = 'not all';

export class TerminalSessions<S extends KeptScreen = KeptScreen> {
  private readonly entries = new Map<string, Entry<S>>();
  /** The shared screen whose sheets are live (one copy for all shared screens); null: none yet. */
  private sheetHolder: Entry<S> | null = null;
  private readonly lastShown = new Map<string, number>();
  private clock = 0;
  private sweepPending = false;
  private disposed = false;
  private epoch: number;
  private readonly offs: Array<() => void> = [];

  constructor(private readonly deps: SessionsDeps<S>) {
    this.epoch = deps.epoch.get();
    this.offs.push(
      deps.terminals.subscribe(() => this.sweep()),
      deps.epoch.subscribe(() => {
        const epoch = deps.epoch.get();
        if (epoch === this.epoch) return;
        this.epoch = epoch;
        for (const e of this.entries.values()) e.screen.replay();
      }),
    );
  }

  /**
   * Puts the terminal's screen into `slot` (the one kept, or a new one) and returns it, with
   * `fresh` true when it was just made (it repaints from main's copy by itself).
   */
  show(terminalId: string, chatId: string, slot: HTMLElement, initialSize: TerminalSize): { screen: S; fresh: boolean } {
    this.lastShown.set(chatId, ++this.clock);
    const kept = this.entries.get(terminalId);
    if (kept) {
      kept.shown = true;
      if (!kept.shared) for (const style of kept.styles) style.removeAttribute('media');
      slot.appendChild(kept.element);
      return { screen: kept.screen, fresh: false };
    }
    const element = this.deps.document.createElement('div');
    element.className = 'xterm-screen';
    // In the document before xterm opens in it, so xterm measures its font at once.
    slot.appendChild(element);
    const screen = this.deps.create(element, terminalId, initialSize);
    const entry: Entry<S> = { screen, element, chatId, shown: true, shared: screen.sharedSheets === true, styles: [], unregister: registerTerminal(terminalId, screen.term) };
    this.adoptStyles(entry);
    if (entry.shared) {
      // The first shared screen's sheets serve all; the others' stay parsed but match nothing.
      if (this.sheetHolder === null) this.sheetHolder = entry;
      else for (const style of entry.styles) style.setAttribute('media', KEPT_MEDIA);
    }
    this.entries.set(terminalId, entry);
    return { screen, fresh: true };
  }

  /** The pane let go of the screen: keep it out of the document (or dispose it, past the bounds). */
  hide(terminalId: string, screen: S): void {
    const e = this.entries.get(terminalId);
    if (!e || e.screen !== screen) return;
    e.shown = false;
    const adopted = this.adoptStyles(e);
    // A shared screen's sheets stay as they are (a sheet change is what a switch should not cost).
    if (!e.shared) for (const style of e.styles) style.setAttribute('media', KEPT_MEDIA);
    else if (e !== this.sheetHolder) for (const style of adopted) style.setAttribute('media', KEPT_MEDIA);
    e.element.remove();
    if (!this.deps.later) this.sweep();
    else if (!this.sweepPending) {
      this.sweepPending = true;
      this.deps.later(() => {
        this.sweepPending = false;
        if (!this.disposed) this.sweep();
      });
    }
  }

  /** Screens alive (shown or kept). */
  get size(): number {
    return this.entries.size;
  }

  has(terminalId: string): boolean {
    return this.entries.has(terminalId);
  }

  dispose(): void {
    this.disposed = true;
    for (const off of this.offs.splice(0)) off();
    for (const id of [...this.entries.keys()]) this.drop(id);
  }

  /** Disposes kept screens whose terminal is gone or ended, then the least recently shown past the bounds. */
  private sweep(): void {
    const { byChat } = this.deps.terminals.getState();
    for (const [id, e] of this.entries) {
      const view = byChat[e.chatId]?.find((t) => t.terminalId === id);
      // A pane only shows a listed terminal: unlisted now means closed, replaced or its chat deleted.
      if (view === undefined || (!e.shown && view.state === 'exited')) this.drop(id);
    }
    const chats = new Map<string, KeptChat>();
    for (const e of this.entries.values()) {
      const c = chats.get(e.chatId) ?? { chatId: e.chatId, lastShown: this.lastShown.get(e.chatId) ?? 0, lines: 0, shown: false };
      c.lines += e.screen.lines();
      c.shown ||= e.shown;
      chats.set(e.chatId, c);
    }
    for (const chatId of chatsToEvict([...chats.values()], this.deps.policy)) {
      for (const [id, e] of this.entries) if (e.chatId === chatId) this.drop(id);
      this.lastShown.delete(chatId);
    }
  }

  /**
   * xterm 6 puts three `<style>` elements inside each screen (the DOM renderer's theme and
   * dimensions, the scrollbar's colours). Taken out of the document with a kept screen, Blink
   * drops their sheets and parses them again (~800 rules) each time the screen comes back, about
   * a third of a switch's script time. Moved to the head instead, they stay parsed; a kept
   * screen's sheets are switched off with a media query that never matches, so 100 kept chats do
   * not leave 300 live sheets that every restyle matches against (measured: live sheets of kept
   * screens triple the style time of a flood). `media`, not `disabled`: xterm rewrites a sheet's
   * text (theme, resize), which makes a new sheet and forgets `disabled`, while the attribute
   * stays. Their rules are scoped to the screen's own class (or identical for every screen), so
   * where they sit in the document changes nothing else. xterm removes them on dispose.
   * Screens with shared sheets (xtermSession's shareOwnerClass: one owner class for all, so the
   * same rules) keep exactly one live copy, held by one screen whatever is shown; the others'
   * copies are off from the start, so a switch changes no sheet at all (each change made Blink
   * update the rule sets and walk the document for invalidations).
   */
  private adoptStyles(e: Entry<S>): HTMLStyleElement[] {
    const adopted = [...e.element.querySelectorAll('style')];
    for (const style of adopted) {
      this.deps.document.head.appendChild(style);
      e.styles.push(style);
    }
    return adopted;
  }

  private drop(terminalId: string): void {
    const e = this.entries.get(terminalId);
    if (!e) return;
    this.entries.delete(terminalId);
    e.unregister();
    e.element.remove();
    e.screen.dispose();
    for (const style of e.styles) style.remove();
    if (e === this.sheetHolder) {
      // Hand the live sheets to another shared screen (its copy is the same).
      this.sheetHolder = [...this.entries.values()].find((x) => x.shared) ?? null;
      for (const style of this.sheetHolder?.styles ?? []) style.removeAttribute('media');
    }
  }
}
