/**
 * Watches whether the Docker engine answers, so the app can say so and recover by itself
 * when it returns: checks often while it is down, rarely while it is up.
 */
import type { EngineRef, EngineStatus } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import type { Engine } from '../engine/dockerEngine.js';
import type { EventHub } from '../events.js';
import type { Clock } from '../base/clock.js';

export const CHECK_WHILE_DOWN_MS = 3_000;
export const CHECK_WHILE_UP_MS = 30_000;

export class EngineMonitor {
  private status: EngineStatus;
  private timer: unknown = null;
  private checking: Promise<EngineStatus> | null = null;
  private stopped = false;

  constructor(
    private readonly engine: Engine,
    private readonly events: EventHub,
    private readonly clock: Clock,
    /** Which engine this is, when a profile names its own (engineRegistry). */
    private readonly ref: EngineRef | null = null,
  ) {
    this.status = { state: 'checking', version: null, endpoint: engine.endpointLabel, message: null, hint: null, engine: ref };
  }

  current(): EngineStatus {
    return { ...this.status };
  }

  /** Checks now (sharing a check in progress) and returns the result. */
  check(): Promise<EngineStatus> {
    this.checking ??= this.engine
      .ping()
      .then(
        (v): EngineStatus => ({ state: 'ok', version: v.version, endpoint: this.engine.endpointLabel, message: null, hint: null, engine: this.ref }),
        (error: unknown): EngineStatus => ({
          state: 'unreachable',
          version: null,
          endpoint: this.engine.endpointLabel,
          message: error instanceof BerthError ? error.message : 'The Docker engine does not answer.',
          hint: error instanceof BerthError ? (error.hint ?? null) : 'Start Docker and try again.',
          engine: this.ref,
        }),
      )
      .then((next) => {
        const changed = next.state !== this.status.state || next.version !== this.status.version || next.message !== this.status.message;
        this.status = next;
        if (changed) this.events.emit('engine.status', { ...next });
        this.schedule();
        return { ...next };
      })
      .finally(() => {
        this.checking = null;
      });
    return this.checking;
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    const delay = this.status.state === 'ok' ? CHECK_WHILE_UP_MS : CHECK_WHILE_DOWN_MS;
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      void this.check();
    }, delay);
  }

  dispose(): void {
    this.stopped = true;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
  }
}
