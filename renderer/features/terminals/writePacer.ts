/**
 * Paces output into xterm.js: the first output after a quiet spell is written at once (an echo,
 * a prompt), while a flood is joined and written at most once per `intervalMs` (or as soon as
 * `maxChars` wait). xterm lays out and parses per write; fewer, larger writes leave the page's
 * main thread free (bench/README.md has the figures). Order and content are kept exactly.
 */
import type { Timers } from './ackBatcher';

export interface PacerOptions {
  intervalMs: number;
  maxChars: number;
}

const defaultTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class WritePacer {
  private pending: string[] = [];
  private pendingChars = 0;
  private timer: unknown = null;
  private lastWrite = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly write: (data: string) => void,
    private readonly options: PacerOptions,
    private readonly timers: Timers = defaultTimers,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Characters received but not yet handed to xterm. */
  get waiting(): number {
    return this.pendingChars;
  }

  push(data: string): void {
    if (data === '') return;
    const now = this.now();
    if (this.timer === null && this.pendingChars === 0 && now - this.lastWrite >= this.options.intervalMs) {
      this.lastWrite = now;
      this.write(data);
      return;
    }
    this.pending.push(data);
    this.pendingChars += data.length;
    if (this.pendingChars >= this.options.maxChars) this.flush();
    else if (this.timer === null) {
      const wait = Math.max(0, this.options.intervalMs - (now - this.lastWrite));
      this.timer = this.timers.set(() => {
        this.timer = null;
        this.flush();
      }, wait);
    }
  }

  /** Writes whatever waits, now. */
  flush(): void {
    this.cancel();
    if (this.pendingChars === 0) return;
    const data = this.pending.length === 1 ? (this.pending[0] as string) : this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    this.lastWrite = this.now();
    this.write(data);
  }

  /** Forgets what waits (the screen is being repainted from a replay, or closed). */
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
