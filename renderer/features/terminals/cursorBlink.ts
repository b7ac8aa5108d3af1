/**
 * The terminal cursor's blink, on a timer instead of xterm's CSS animation.
 *
 * xterm 6's DOM renderer blinks a focused cursor with a `step-end infinite` CSS animation, and
 * Chromium runs a style recalc for it on every frame, 60 a second, even on an idle page (~5% of
 * a core here, and the same work again inside every frame of a flood). This flips one class on
 * the terminal twice a second instead, so the browser restyles the cursor's cell only then. Like
 * most terminals, the cursor stays lit while output arrives or the user types, and does not
 * blink at all for a user who asked for reduced motion. The off phase's look is in styles.css
 * (`.berth-cursor-off`); xterm itself runs with `cursorBlink: false`.
 */
import type { Terminal } from '@xterm/xterm';

/** Half a blink: the cursor is lit this long, then dark this long. */
export const CURSOR_BLINK_HALF_MS = 600;
export const CURSOR_OFF_CLASS = 'berth-cursor-off';

export class CursorBlink {
  private timer: ReturnType<typeof setInterval> | null = null;
  private active = false;
  private readonly offs: Array<() => void> = [];

  constructor(
    private readonly term: Terminal,
    private readonly win: Window = window,
  ) {
    const textarea = term.textarea;
    if (!textarea) return;
    const focus = () => this.start();
    const blur = () => this.stop();
    textarea.addEventListener('focus', focus);
    textarea.addEventListener('blur', blur);
    const written = term.onWriteParsed(() => this.touch());
    const typed = term.onData(() => this.touch());
    this.offs.push(
      () => textarea.removeEventListener('focus', focus),
      () => textarea.removeEventListener('blur', blur),
      () => written.dispose(),
      () => typed.dispose(),
    );
    if (textarea.ownerDocument.activeElement === textarea) this.start();
  }

  /** Whether the cursor is in its dark half now (tests). */
  get dark(): boolean {
    return this.term.element?.classList.contains(CURSOR_OFF_CLASS) ?? false;
  }

  dispose(): void {
    this.stop();
    for (const off of this.offs.splice(0)) off();
  }

  private start(): void {
    if (this.timer !== null || this.win.matchMedia?.('(prefers-reduced-motion: reduce)').matches) return;
    this.active = false;
    this.timer = this.win.setInterval(() => this.tick(), CURSOR_BLINK_HALF_MS);
  }

  private stop(): void {
    if (this.timer !== null) this.win.clearInterval(this.timer);
    this.timer = null;
    this.light();
  }

  /** Output or a key since the last tick: keep the cursor lit (and restart its phase). */
  private touch(): void {
    this.active = true;
    this.light();
  }

  private tick(): void {
    const element = this.term.element;
    const textarea = this.term.textarea;
    // Taken out of the page with its chat (kept), it gets no blur event: stop here instead.
    if (!element?.isConnected || textarea?.ownerDocument.activeElement !== textarea) return this.stop();
    if (this.active) {
      this.active = false;
      return;
    }
    element.classList.toggle(CURSOR_OFF_CLASS);
  }

  private light(): void {
    const element = this.term.element;
    if (element?.classList.contains(CURSOR_OFF_CLASS)) element.classList.remove(CURSOR_OFF_CLASS);
  }
}
