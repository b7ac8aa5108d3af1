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

  /** Where a setting points, without connecting or keeping anything; null when it cannot be resolved (its use says why). */
  refFor(setting: EngineSetting): EngineRef | null {
    try {
      return this.deps.choose(setting).ref;
    } catch (error) {
      if (error instanceof BerthError) return null;
      throw error;
    }
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

  /**
   * Pings the engine a setting names, as a profile form's "Check connection": an engine Berth
   * already talks to is checked by its monitor; another is made for this one ping and closed,
   * so checking an address the user then does not save leaves nothing connected or polling.
   * `failed` hears the engine client's own error, for main's log.
   */
  async check(setting: EngineSetting, failed?: (error: unknown) => void): Promise<EngineStatus> {
    let choice: EngineChoice;
    try {
      choice = this.deps.choose(setting);
    } catch (error) {
      if (!(error instanceof BerthError)) throw error;
      return { state: 'unreachable', version: null, endpoint: setting.kind, message: error.message, hint: error.hint ?? null, engine: null };
    }
    const known = this.handles.get(choice.ref.id);
    if (known) return known.monitor.check();
    const engine = this.deps.create(choice);
    try {
      const v = await engine.ping();
      return { state: 'ok', version: v.version, endpoint: engine.endpointLabel, message: null, hint: null, engine: choice.ref };
    } catch (error) {
      failed?.(error);
      const known = error instanceof BerthError;
      return {
        state: 'unreachable',
        version: null,
        endpoint: engine.endpointLabel,
        message: known ? error.message : 'The engine does not answer.',
        hint: known ? (error.hint ?? null) : "Check the engine's address and that it runs.",
        engine: choice.ref,
      };
    } finally {
      engine.close();
    }
  }

  dispose(): void {
    this.disposed = true;
    for (const h of this.handles.values()) h.monitor.dispose();
  }
}
