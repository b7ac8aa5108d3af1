/**
 * The orphan sweep: this instance's containers whose chat or profile is gone are removed, at
 * start-up and every interval; running ones that still belong get the idle clock (adopt).
 * Another Berth's containers are never touched (the instance label).
 */
import type { Clock } from '../base/clock.js';
import { APP_LABEL_VALUE, LABEL } from '../policy/containerSpec.js';
import { selectOrphans } from './common/orphans.js';
import type { Store } from '../store/repositories.js';
import type { EngineHandle } from './engineRegistry.js';
import type { SandboxContainers } from './sandboxContainers.js';

export interface OrphanReaperDeps {
  /** Every engine the profiles name (sandbox/engineRegistry): each is swept. */
  engines: () => EngineHandle[];
  store: Store;
  containers: SandboxContainers;
  instanceId: string;
  clock: Clock;
  /** How often to sweep after the first; 0 turns the periodic sweep off. */
  intervalMs: number;
  /** Removes this instance's per-sandbox networks whose key is not live (egress/egressService.ts). */
  sweepNetworks?: (liveKeys: ReadonlySet<string>) => Promise<void>;
}

export class OrphanReaper {
  /** Settles when the first sweep is done (the engine may be down at start: then the next one). */
  readonly ready: Promise<void>;
  private timer: unknown = null;
  private disposed = false;

  constructor(private readonly deps: OrphanReaperDeps) {
    this.ready = this.reap().then(() => undefined, () => undefined);
    this.schedule();
  }

  /**
   * Removes this instance's containers whose chat or profile no longer exists, on every engine;
   * returns how many. An engine that does not answer fails the sweep after the others were swept.
   */
  async reap(): Promise<number> {
    if (this.disposed) return 0;
    const handles = this.deps.engines();
    const results = await Promise.allSettled(handles.map((h) => this.reapOn(h)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (this.deps.sweepNetworks) {
      // A sandbox being brought up has its network before its container: its key counts as live.
      const live = new Set([...results.flatMap((r) => (r.status === 'fulfilled' ? r.value.live : [])), ...this.deps.containers.keys()]);
      if (!failed) await this.deps.sweepNetworks(live).catch(() => undefined);
    }
    if (failed) throw failed.reason;
    return results.reduce((n, r) => n + (r.status === 'fulfilled' ? r.value.removed : 0), 0);
  }

  private async reapOn(handle: EngineHandle): Promise<{ removed: number; live: string[] }> {
    const { store, containers, instanceId } = this.deps;
    const { engine } = handle;
    const mine = await engine.findContainers({ [LABEL.app]: APP_LABEL_VALUE, [LABEL.instance]: instanceId });
    // A chat id reserved for a warm sandbox (sandbox/warmPool.ts) is alive: its container waits for its chat.
    const alive = (id: string) => store.chats.get(id) !== undefined || store.warmReservations.has(id);
    const orphans = selectOrphans(mine, instanceId, alive, (p) => store.profiles.get(p) !== undefined);
    await Promise.all(orphans.map((c) => containers.removeContainer(c.id, c.labels[LABEL.key], engine).catch(() => undefined)));
    // A remote engine's homes and folder copies are volumes of their key: they go with it.
    if (handle.ref.remote) {
      await Promise.all(orphans.map((c) => engine.removeVolumes({ [LABEL.instance]: instanceId, [LABEL.key]: c.labels[LABEL.key] ?? '' }).catch(() => undefined)));
    }
    for (const c of mine) {
      if (orphans.includes(c) || !c.running) continue;
      const profile = store.profiles.get(c.labels[LABEL.profile] ?? '');
      if (profile && c.labels[LABEL.key]) containers.adopt(c.labels[LABEL.key] as string, c.id, profile.settings, handle);
    }
    const after = this.deps.sweepNetworks ? await engine.findContainers({ [LABEL.app]: APP_LABEL_VALUE, [LABEL.instance]: instanceId }) : [];
    return { removed: orphans.length, live: after.map((c) => c.labels[LABEL.key] ?? '') };
  }

  private schedule(): void {
    if (this.deps.intervalMs <= 0 || this.disposed) return;
    this.timer = this.deps.clock.setTimeout(() => {
      void this.reap().catch(() => undefined).finally(() => this.schedule());
    }, this.deps.intervalMs);
  }

  /** No further sweeps. */
  dispose(): void {
    this.disposed = true;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }
}
