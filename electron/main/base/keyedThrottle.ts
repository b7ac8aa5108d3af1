/**
 * Calls `run(key)` at most once per `intervalMs` for each key, without losing the last call: the
 * first call for a key runs at once, calls during the interval after it are folded into one more
 * run when it ends. So every call is followed by a run within `intervalMs`, however often it is
 * made (terminal output: hundreds of events a second per chat).
 */
import type { Clock } from './clock.js';

export class KeyedThrottle {
  /** Keys inside their interval, and whether a call came during it. */
  private readonly open = new Map<string, { handle: unknown; again: boolean }>();

  constructor(
    private readonly run: (key: string) => void,
    private readonly intervalMs: number,
    private readonly clock: Clock,
  ) {}

  call(key: string): void {
    const entry = this.open.get(key);
    if (entry) {
      entry.again = true;
      return;
    }
    this.run(key);
    this.arm(key);
  }

  dispose(): void {
    for (const entry of this.open.values()) this.clock.clearTimeout(entry.handle);
    this.open.clear();
  }

  private arm(key: string): void {
    const entry = { handle: null as unknown, again: false };
    entry.handle = this.clock.setTimeout(() => {
      this.open.delete(key);
      if (!entry.again) return;
      this.run(key);
      this.arm(key);
    }, this.intervalMs);
    this.open.set(key, entry);
  }
}
