/**
 * Flow control for terminal output (docs/transport.md; the numbers in shared/flowControl.ts):
 * main stops reading a terminal while too much of its output is unacknowledged, and the client
 * acknowledges what it has written to the screen, in batches, so a flood (`yes`) costs a
 * handful of calls per frame, never one per chunk.
 */
import { ACK_BATCH_CHARS, ACK_INTERVAL_MS } from '../../../shared/flowControl';

export interface AckPolicy {
  /** The longest an acknowledgement waits. */
  intervalMs: number;
  /** Acknowledge at once when this many characters are waiting. */
  maxChars: number;
}

export const ACK_POLICY: AckPolicy = { intervalMs: ACK_INTERVAL_MS, maxChars: ACK_BATCH_CHARS };

export interface AckStep {
  /** Characters written but not yet acknowledged, after this step. */
  pending: number;
  /** Characters to acknowledge now (0: none). */
  send: number;
  /** Whether a timer should be armed to acknowledge `pending` after intervalMs. */
  arm: boolean;
}

/** Pure: what to do after `written` more characters reached the screen. */
export function planAck(pending: number, written: number, timerArmed: boolean, policy: AckPolicy = ACK_POLICY): AckStep {
  const total = pending + Math.max(0, written);
  if (total === 0) return { pending: 0, send: 0, arm: false };
  if (total >= policy.maxChars) return { pending: 0, send: total, arm: false };
  return { pending: total, send: 0, arm: !timerArmed };
}

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const defaultTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class AckBatcher {
  private pending = 0;
  private timer: unknown = null;
  private disposed = false;

  constructor(
    private readonly send: (chars: number) => void,
    private readonly policy: AckPolicy = ACK_POLICY,
    private readonly timers: Timers = defaultTimers,
  ) {}

  /** Records characters written to the screen. */
  add(chars: number): void {
    if (this.disposed) return;
    const step = planAck(this.pending, chars, this.timer !== null, this.policy);
    this.pending = step.pending;
    if (step.send > 0) {
      this.cancelTimer();
      this.send(step.send);
    } else if (step.arm) {
      this.timer = this.timers.set(() => {
        this.timer = null;
        this.flush();
      }, this.policy.intervalMs);
    }
  }

  /** Acknowledges whatever is waiting, now. */
  flush(): void {
    this.cancelTimer();
    if (this.pending === 0 || this.disposed) return;
    const chars = this.pending;
    this.pending = 0;
    this.send(chars);
  }

  /** Flushes and stops. */
  dispose(): void {
    this.flush();
    this.disposed = true;
  }

  private cancelTimer(): void {
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
  }
}
