/**
 * Joins a terminal's output into fewer, larger events without delaying interactive output:
 * the first chunk after a quiet spell (longer than the delay) goes out at once; chunks that
 * follow closely are held for at most `delayMs` (or until `maxChars` wait) and sent together.
 * Order and content are kept exactly: this only decides when, never what. Its timers are real
 * time by default, not the core's injected clock: a few milliseconds of output pacing is not
 * something a test that moves the idle clock by hand should have to drive.
 */
import { systemClock, type Clock } from '../base/clock.js';

export interface CoalescerOptions {
  delayMs: number;
  maxChars: number;
}

export class OutputCoalescer {
  private pending: string[] = [];
  private pendingChars = 0;
  private timer: unknown = null;
  /** When output was last sent: output within `delayMs` of it is "following closely". */
  private lastSent = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly emit: (data: string) => void,
    private readonly options: CoalescerOptions,
    private readonly clock: Clock = systemClock,
  ) {}

  push(data: string): void {
    if (data === '') return;
    const now = this.clock.now();
    if (this.timer === null && this.pendingChars === 0 && now - this.lastSent > this.options.delayMs) {
      this.send(data, now);
      return;
    }
    this.pending.push(data);
    this.pendingChars += data.length;
    if (this.pendingChars >= this.options.maxChars) this.flush();
    else if (this.timer === null) this.timer = this.clock.setTimeout(() => this.flush(), this.options.delayMs);
  }

  /** Sends whatever waits, now (the stream ended, a screen asks for a replay). */
  flush(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    if (this.pendingChars === 0) return;
    const data = this.pending.length === 1 ? (this.pending[0] as string) : this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    this.send(data, this.clock.now());
  }

  /** Drops what waits and stops (the terminal was closed). */
  dispose(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.pending = [];
    this.pendingChars = 0;
  }

  private send(data: string, now: number): void {
    this.lastSent = now;
    this.emit(data);
  }
}
