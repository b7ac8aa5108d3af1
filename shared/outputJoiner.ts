/**
 * Joins a stream of text into fewer, larger pieces without delaying interactive output: the
 * first piece after a quiet spell (at least `intervalMs`) goes out at once; pieces that follow
 * closely wait until `intervalMs` after the last one sent (or until `maxChars` wait) and go out
 * together. Order and content are kept exactly: this only decides when, never what.
 *
 * Both ends of a terminal use it with the numbers in shared/flowControl.ts: main before it
 * sends output to the screens, the page before it hands output to xterm.js. Timers are
 * injected, so it is pure and each side gives it its own clock.
 */
export interface JoinerTimers {
  now(): number;
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface JoinerOptions {
  intervalMs: number;
  maxChars: number;
}

/**
 * `joined`: false for a piece sent at once after a quiet spell (an echo, a prompt, the first
 * bytes of a flood), true for pieces that waited because output kept coming (a flood goes on).
 */
export type JoinerSend = (data: string, joined: boolean) => void;

export class OutputJoiner {
  private pending: string[] = [];
  private pendingChars = 0;
  private timer: unknown = null;
  private lastSent = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly send: JoinerSend,
    private readonly options: JoinerOptions,
    private readonly timers: JoinerTimers,
  ) {}

  /** Characters received but not yet sent. */
  get waiting(): number {
    return this.pendingChars;
  }

  push(data: string): void {
    if (data === '') return;
    const now = this.timers.now();
    if (this.timer === null && this.pendingChars === 0 && now - this.lastSent >= this.options.intervalMs) {
      this.lastSent = now;
      this.send(data, false);
      return;
    }
    this.pending.push(data);
    this.pendingChars += data.length;
    if (this.pendingChars >= this.options.maxChars) this.flush();
    else if (this.timer === null) {
      const wait = Math.max(0, this.options.intervalMs - (now - this.lastSent));
      this.timer = this.timers.set(() => {
        this.timer = null;
        this.flush();
      }, wait);
    }
  }

  /** Sends whatever waits, now (the stream ended, a replay, an exit line). */
  flush(): void {
    this.cancel();
    if (this.pendingChars === 0) return;
    const data = this.pending.length === 1 ? (this.pending[0] as string) : this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    this.lastSent = this.timers.now();
    this.send(data, true);
  }

  /** Forgets what waits and returns how many characters that was (a repaint, a close). */
  drop(): number {
    this.cancel();
    const dropped = this.pendingChars;
    this.pending = [];
    this.pendingChars = 0;
    return dropped;
  }

  private cancel(): void {
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
  }
}
