/**
 * Changes to xterm.js's internals that Berth's terminals rely on, each measured and each checked
 * (a function returns false and does nothing when xterm's internals are not what it expects):
 * the scrollbar's reveal throttled, parser scrolls coalesced, empty selection redraws skipped,
 * a screen whose drawing can be held, and one owner class shared by every screen's sheets.
 */
import type { Terminal } from '@xterm/xterm';
import type { ScreenHold } from './renderPacer';

/** How often xterm's scrollbar may reveal itself while output scrolls (see throttleScrollbarReveal). */
const SCROLLBAR_REVEAL_MS = 100;
let warnedScrollbar = false;

/** Said once per page: floods are slower until the patches are ported to the new xterm. */
export function warnPatchOff(): void {
  if (warnedScrollbar) return;
  warnedScrollbar = true;
  console.warn("xterm's internals changed: a patch is off (see throttleScrollbarReveal, coalesceParserScrolls, skipEmptySelectionRedraws, holdableScreen, shareOwnerClass)");
}

/**
 * xterm 6.0's scrollbar reveals itself on every scroll event, and a flood scrolls once per line:
 * each reveal re-arms its hide timer (clearTimeout + setTimeout), which measured ~45% of the
 * page's main thread during a 4 MiB `cat` (Chromium trace, `npm run bench:app -- --trace DIR`;
 * upstream: xtermjs/xterm.js#6123, no option for it in 6.0). Revealing at most every
 * SCROLLBAR_REVEAL_MS looks the same (the bar stays up while output scrolls and fades after) and
 * costs a few timers per second. Reaches into xterm's internals, so it checks their shape and
 * does nothing when they differ (a later xterm): returns whether it applied.
 */
export function throttleScrollbarReveal(term: Terminal, now: () => number = () => performance.now()): boolean {
  type Scrollable = { _reveal?: () => void };
  const scrollable = (term as unknown as { _core?: { _viewport?: { _scrollableElement?: Scrollable } } })._core?._viewport?._scrollableElement;
  const reveal = scrollable?._reveal;
  if (!scrollable || typeof reveal !== 'function') return false;
  let last = Number.NEGATIVE_INFINITY;
  scrollable._reveal = function throttledReveal(this: Scrollable) {
    const t = now();
    if (t - last < SCROLLBAR_REVEAL_MS) return;
    last = t;
    reveal.call(scrollable);
  };
  return true;
}

/**
 * xterm 6.0 tells everything that follows the buffer's scroll position (the viewport's scroll
 * area, the selection, the dirty rows, `onScroll`) once per line scrolled, synchronously: a flood
 * of 100-character lines in a 55-column screen scrolls hundreds of thousands of times, and those
 * listeners measured ~10% of the page's main thread during a 16 MiB `cat` (Chromium trace,
 * `npm run bench:app -- --trace DIR`) though each only needs the position once the chunk it
 * parses is done. This folds the scroll events of one parser chunk (xterm parses a write in
 * chunks of at most 128K characters) into one, with the final position, fired before xterm reads
 * its dirty rows for the refresh, so every row is still redrawn. Scrolls outside parsing (the
 * wheel, scrollLines) are told at once as before. Reaches into xterm's internals, so it checks
 * their shape and does nothing when they differ (a later xterm): returns whether it applied.
 */
export function coalesceParserScrolls(term: Terminal): boolean {
  type Emitter = { fire(value: unknown): void };
  type Parser = { parse(...args: unknown[]): unknown };
  const core = (term as unknown as { _core?: { _bufferService?: { _onScroll?: Emitter }; _inputHandler?: { _parser?: Parser } } })._core;
  const emitter = core?._bufferService?._onScroll;
  const parser = core?._inputHandler?._parser;
  if (!emitter || !parser || typeof emitter.fire !== 'function' || typeof parser.parse !== 'function') return false;
  const fire = emitter.fire;
  const parse = parser.parse;
  let parsing = false;
  let pending = false;
  let last: unknown;
  emitter.fire = function coalescedFire(value: unknown) {
    if (!parsing) return fire.call(emitter, value);
    pending = true;
    last = value;
  };
  parser.parse = function parseThenScroll(...args: unknown[]) {
    // Nested parsing (a handler writing back) keeps folding into the outer chunk.
    if (parsing) return parse.apply(parser, args);
    parsing = true;
    try {
      return parse.apply(parser, args);
    } finally {
      parsing = false;
      if (pending) {
        pending = false;
        fire.call(emitter, last);
      }
    }
  };
  return true;
}

/**
 * xterm 6.0 redraws the selection after every scroll: the DOM renderer then empties its selection
 * layer and renders every row again, once a frame while output scrolls, even with nothing
 * selected (3–4% of the page's main thread during a 16 MiB `cat`, Chromium trace). With no
 * selection now and none drawn at the last redraw there is nothing to change, so that redraw is
 * skipped; any selection, the first redraw after one is cleared, and the first after a resize
 * go through as before.
 * Reaches into xterm's internals: checks their shape, does nothing when they differ; returns
 * whether it applied.
 */
export function skipEmptySelectionRedraws(term: Terminal): boolean {
  type Selection = { refresh(...args: unknown[]): void; _refresh(...args: unknown[]): void; readonly hasSelection: boolean };
  const selection = (term as unknown as { _core?: { _selectionService?: Selection } })._core?._selectionService;
  if (!selection || typeof selection.refresh !== 'function' || typeof selection._refresh !== 'function' || typeof selection.hasSelection !== 'boolean') return false;
  const refresh = selection.refresh;
  const draw = selection._refresh;
  // What the last redraw showed, noted when it runs (the frame after a refresh): noting it when the
  // refresh was asked for left an empty selection "drawn" while a later one was on screen, so a
  // clear that followed was never drawn (Find's match stayed highlighted after the bar closed).
  let drawnEmpty = false;
  selection._refresh = function drawNotingWhat(...args: unknown[]) {
    drawnEmpty = !selection.hasSelection;
    draw.apply(selection, args);
  };
  selection.refresh = function refreshUnlessStillEmpty(...args: unknown[]) {
    if (drawnEmpty && !selection.hasSelection) return;
    refresh.apply(selection, args);
  };
  // xterm 6.0's DOM renderer draws its last selection again on a resize, even one cleared since
  // (its render model is not reset by a clear), and it was the next, now skipped, empty redraw
  // that wiped it: so a resize is followed by one redraw of the selection as it is.
  term.onResize(() => {
    drawnEmpty = false;
    selection.refresh();
  });
  return true;
}

/**
 * A hold on xterm's drawing, for RenderPacer (renderPacer.ts): while held, the render service's
 * redraw requests (every row a parsed chunk changed, the cursor, a scroll) and the viewport's
 * scroll-area updates are only noted; on release the rows they named and the viewport are
 * requested at once, so they are drawn at the next frame as xterm would have drawn them. xterm 6.0 has no public way to do this: its own pause (the
 * screen out of view, an IntersectionObserver) is private and follows visibility, and
 * synchronized output (DECSET 2026) written into the stream acts only when xterm parses it,
 * behind up to the flow-control window of output, and would cut short the synchronized frames
 * of programs that use it themselves (full-screen TUIs). Reaches into xterm's internals: checks
 * their shape and returns null when they differ (a later xterm), so nothing is held.
 */
export function holdableScreen(term: Terminal): ScreenHold | null {
  type Render = { refreshRows(start: number, end: number, isRedrawOnly?: boolean): void };
  type Viewport = { _sync(ydisp?: number): void; queueSync(ydisp?: number): void };
  const core = (term as unknown as { _core?: { _renderService?: Render; _viewport?: Viewport } })._core;
  const render = core?._renderService;
  const refreshRows = render?.refreshRows;
  const viewport = core?._viewport;
  if (!render || typeof refreshRows !== 'function') return null;
  if (!viewport || typeof viewport._sync !== 'function' || typeof viewport.queueSync !== 'function') return null;
  let held = false;
  // The viewport (scroll area and scrollbar) follows the buffer after each parsed chunk, asking
  // for a frame each time: held too, and brought up to date once at release.
  const sync = viewport._sync;
  const queueSync = viewport.queueSync;
  let syncWaiting = false;
  viewport._sync = function syncUnlessHeld(this: Viewport, ...args: [number?]) {
    if (!held) return sync.apply(viewport, args);
    syncWaiting = true;
  };
  viewport.queueSync = function queueSyncUnlessHeld(this: Viewport, ...args: [number?]) {
    if (!held) return queueSync.apply(viewport, args);
    syncWaiting = true;
  };
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  let redrawOnly = true;
  render.refreshRows = function refreshRowsUnlessHeld(this: Render, from: number, to: number, isRedrawOnly = false) {
    if (!held) return refreshRows.call(render, from, to, isRedrawOnly);
    start = Math.min(start, from);
    end = Math.max(end, to);
    redrawOnly &&= isRedrawOnly;
  };
  return {
    hold() {
      held = true;
    },
    release() {
      held = false;
      if (syncWaiting) {
        syncWaiting = false;
        queueSync.call(viewport);
      }
      if (start > end) return false;
      const [from, to, only] = [start, end, redrawOnly];
      start = Number.POSITIVE_INFINITY;
      end = Number.NEGATIVE_INFINITY;
      redrawOnly = true;
      refreshRows.call(render, from, to, only);
      return true;
    },
  };
}

/** The owner class every screen shares (xterm numbers its screens from 1). */
export const SHARED_OWNER_CLASS = 'xterm-dom-renderer-owner-0';

/**
 * xterm 6's DOM renderer scopes its theme and dimension rules (~800) to a class of its own per
 * screen, so each screen brings a sheet that matches only itself; the page keeps many screens
 * (sessions.ts), and a chat switch had to turn one screen's sheets off and the next one's on:
 * a change of the document's active sheets, which Blink answers with a rule-set update and a
 * style invalidation pass over the document (measured with `npm run bench:app -- --trace`).
 * Every Berth screen has the same theme and font, so their sheets differ only by that class:
 * this gives the screen one class shared by all screens and rewrites its sheets with it, so
 * one live copy of the sheets serves every screen (sessions.ts keeps exactly one) and a switch
 * changes no sheet. Reaches into xterm's internals: checks their shape and does nothing when
 * they differ; returns whether it applied.
 */
export function shareOwnerClass(term: Terminal): boolean {
  type Renderer = { _terminalClass?: unknown; _element?: HTMLElement; _injectCss?: (colors: unknown) => void; _updateDimensions?: () => void; _themeService?: { colors?: unknown } };
  const core = (term as unknown as { _core?: { _renderService?: { _renderer?: { value?: Renderer } }; _themeService?: { colors?: unknown } } })._core;
  const renderer = core?._renderService?._renderer?.value;
  const colors = renderer?._themeService?.colors ?? core?._themeService?.colors;
  if (!renderer || typeof renderer._terminalClass !== 'number' || !renderer._element || typeof renderer._injectCss !== 'function' || typeof renderer._updateDimensions !== 'function' || !colors) return false;
  const own = `xterm-dom-renderer-owner-${renderer._terminalClass}`;
  if (!renderer._element.classList.contains(own)) return false;
  renderer._element.classList.remove(own);
  renderer._terminalClass = 0;
  renderer._element.classList.add(SHARED_OWNER_CLASS);
  renderer._injectCss.call(renderer, colors);
  renderer._updateDimensions.call(renderer);
  return true;
}

