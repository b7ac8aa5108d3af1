/**
 * The orphan sweep: this instance's containers whose chat or profile is gone are removed, at
 * start-up and every interval; running ones that still belong get the idle clock (adopt).
 * Another Berth's containers are never touched (the instance label).
 */
import type { Clock } from '../base/clock.js';
import type { Engine } from '../engine/dockerEngine.js';
import { APP_LABEL_VALUE, LABEL } from '../policy/containerSpec.js';
import { selectOrphans } from '../policy/orphans.js';
import type { Store } from '../store/repositories.js';
import type { SandboxManager } from './sandboxManager.js';

export interface OrphanReaperDeps {
  engine: Engine;
  store: Store;
  manager: SandboxManager;
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

  /** Removes this instance's containers whose chat or profile no longer exists; returns how many. */
  async reap(): Promise<number> {
    if (this.disposed) return 0;
    const { engine, store, manager, instanceId } = this.deps;
    const mine = await engine.findContainers({ [LABEL.app]: APP_LABEL_VALUE, [LABEL.instance]: instanceId });
    // A chat id reserved for a warm sandbox (sandbox/warmPool.ts) is alive: its container waits for its chat.
    const alive = (id: string) => store.chats.get(id) !== undefined || store.warmSlots.has(id);
    const orphans = selectOrphans(mine, instanceId, alive, (p) => store.profiles.get(p) !== undefined);
    await Promise.all(orphans.map((c) => manager.removeContainer(c.id, c.labels[LABEL.key]).catch(() => undefined)));
    for (const c of mine) {
      if (orphans.includes(c) || !c.running) continue;
      const profile = store.profiles.get(c.labels[LABEL.profile] ?? '');
      if (profile && c.labels[LABEL.key]) manager.adopt(c.labels[LABEL.key] as string, c.id, profile.settings);
    }
    if (this.deps.sweepNetworks) {
      // A sandbox being brought up has its network before its container: its key counts as live.
      const after = await engine.findContainers({ [LABEL.app]: APP_LABEL_VALUE, [LABEL.instance]: instanceId });
      const live = new Set([...after.map((c) => c.labels[LABEL.key] ?? ''), ...manager.keys()]);
      await this.deps.sweepNetworks(live).catch(() => undefined);
    }
    return orphans.length;
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
