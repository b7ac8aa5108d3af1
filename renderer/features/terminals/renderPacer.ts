/**
 * When xterm may draw while a flood of output is written into it (the numbers in
 * shared/flowControl.ts, TERMINAL_OUTPUT.floodDrawIntervalMs).
 *
 * xterm draws the screen at every animation frame in which its buffer changed, and it parses a
 * large write in slices with frames between them, so a flood is drawn ~30–60 times a second: each
 * time the DOM renderer rebuilds its rows, then Chromium recalculates style, lays out, paints and
 * composites them. A person cannot read a screen that changes that often, and that work competes
 * with parsing for the page's main thread. So while a flood goes on, the screen is held and drawn
 * once per interval; the moment everything handed to xterm is written and nothing waits, it is
 * drawn at the next frame, so the end of a flood (a prompt, `END-42`) shows at once. Output after a
 * quiet spell (an echo, a prompt) is never held: typing stays immediate.
 *
 * Pure: the hold itself and the timers are injected (xtermSession.ts wires them to xterm).
 */
export interface ScreenHold {
  /** From now on xterm's redraw requests wait. */
  hold(): void;
  /** Redraw requests go through again; what waited is drawn at the next frame. False: nothing waited. */
  release(): boolean;
}

export interface PacerTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

type State = 'idle' | 'held' | 'drawing';

export class RenderPacer {
  private state: State = 'idle';
  private timer: unknown = null;

  constructor(
    private readonly screen: ScreenHold,
    private readonly intervalMs: number,
    private readonly timers: PacerTimers,
  ) {}

  /** Whether the screen is held now (for tests and diagnostics). */
  get held(): boolean {
    return this.state === 'held';
  }

  /**
   * Output is handed to xterm. `flood`: it waited because output kept coming (OutputJoiner's
   * `joined`); false for output after a quiet spell, which is drawn as soon as it is parsed.
   */
  written(flood: boolean): void {
    if (!flood || this.state !== 'idle') return;
    this.hold();
  }

  /** xterm drew a frame: after the frame a flood was let through for, hold again. */
  drawn(): void {
    if (this.state === 'drawing') this.hold();
  }

  /** Everything handed to xterm is written and nothing waits: draw now, hold no more. */
  idle(): void {
    this.cancel();
    if (this.state === 'idle') return;
    if (this.state === 'held') this.screen.release();
    this.state = 'idle';
  }

  dispose(): void {
    this.idle();
  }

  private hold(): void {
    this.screen.hold();
    this.state = 'held';
    this.cancel();
    this.timer = this.timers.set(() => {
      this.timer = null;
      if (this.state !== 'held') return;
      // One frame for the flood so far; drawn() holds again after it. Nothing to draw: stay held.
      if (this.screen.release()) this.state = 'drawing';
      else this.hold();
    }, this.intervalMs);
  }

  private cancel(): void {
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
  }
}
