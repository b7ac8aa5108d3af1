/** A clock the test moves by hand, so idle stops happen without waiting half an hour. */
import type { Clock } from '../../electron/main/base/clock.js';

export class ManualClock implements Clock {
  private current = Date.now();
  private timers = new Map<number, { at: number; fn: () => void }>();
  private next = 1;

  now = (): number => this.current;

  setTimeout = (fn: () => void, ms: number): unknown => {
    const id = this.next++;
    this.timers.set(id, { at: this.current + ms, fn });
    return id;
  };

  clearTimeout = (handle: unknown): void => {
    this.timers.delete(handle as number);
  };

  /** Moves time forward and runs every timer that came due, in order. */
  advance(ms: number): void {
    this.current += ms;
    const due = [...this.timers.entries()].filter(([, t]) => t.at <= this.current).sort((a, b) => a[1].at - b[1].at);
    for (const [id, t] of due) {
      this.timers.delete(id);
      t.fn();
    }
  }
}
