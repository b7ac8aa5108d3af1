/**
 * One engine object per distinct endpoint, each with its own health monitor that keeps
 * checking and reconnects by itself. Profiles name their engine (shared/engines.ts); two
 * profiles on the same endpoint share one connection and one monitor.
 */
import type { EngineRef, EngineSetting, EngineStatus } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import type { Engine } from '../engine/dockerEngine.js';
import { unavailableEngine } from '../engine/unavailableEngine.js';
import type { EventHub } from '../events.js';
import type { EngineChoice } from '../policy/engineChoice.js';
import type { Clock } from '../base/clock.js';
import { EngineMonitor } from './engineMonitor.js';

export interface EngineHandle {
  readonly engine: Engine;
  readonly ref: EngineRef;
  readonly monitor: EngineMonitor;
}

export interface EngineRegistryDeps {
  /** Resolves a setting to an endpoint (policy/engineChoice with the Docker config read); may throw. */
  choose(setting: EngineSetting): EngineChoice;
  /** Builds the client for an endpoint (a DockerEngine; tests may inject the default one). */
  create(choice: EngineChoice): Engine;
  events: EventHub;
  clock: Clock;
}

export class EngineRegistry {
  private readonly handles = new Map<string, EngineHandle>();
  private disposed = false;

  constructor(private readonly deps: EngineRegistryDeps) {}

  /** The engine a profile's setting names; the same object for the same endpoint. */
  forSetting(setting: EngineSetting): EngineHandle {
    let choice: EngineChoice;
    try {
      choice = this.deps.choose(setting);
    } catch (error) {
      if (!(error instanceof BerthError)) throw error;
      // An unusable setting (an unknown context) still gets a handle whose every call says why.
      const label = setting.kind === 'context' ? `context ${setting.name}` : setting.kind;
      return this.handle({ id: `unusable:${JSON.stringify(setting)}`, kind: setting.kind, label, remote: false }, () => unavailableEngine(error));
    }
    return this.handle(choice.ref, () => this.deps.create(choice));
  }

  private handle(ref: EngineRef, create: () => Engine): EngineHandle {
    const known = this.handles.get(ref.id);
    if (known) return known;
    const engine = create();
    const monitor = new EngineMonitor(engine, this.deps.events, this.deps.clock, ref);
    const handle = { engine, ref, monitor };
    this.handles.set(ref.id, handle);
    // Its own health from the start: it checks, then keeps checking while it is in use.
    if (!this.disposed) void monitor.check();
    return handle;
  }

  /** Every engine Berth has talked to in this run (for sweeps and removing a chat everywhere). */
  all(): EngineHandle[] {
    return [...this.handles.values()];
  }

  status(setting: EngineSetting): Promise<EngineStatus> {
    const { monitor } = this.forSetting(setting);
    return monitor.current().state === 'checking' ? monitor.check() : Promise.resolve(monitor.current());
  }

  dispose(): void {
    this.disposed = true;
    for (const h of this.handles.values()) h.monitor.dispose();
  }
}
