/**
 * A core's start (an earlier run's leftovers swept, warm pools filled, forwards restored) and
 * its end (services stopped in order, calls in progress given a bounded wait).
 */
import type { EventPayload } from '../../../shared/contract.js';
import { OrphanReaper } from '../sandbox/orphanReaper.js';
import { sweepSlots } from '../review/slotFolders.js';
import type { Services } from './services.js';

export const DEFAULT_REAP_INTERVAL_MS = 5 * 60_000;
/** How long quitting waits for calls in progress before stopping containers anyway. */
const DISPOSE_WAIT_MS = 5_000;

export interface Started {
  reaper: OrphanReaper;
  ready: Promise<void>;
}

export function start(s: Services, reapIntervalMs: number | undefined): Started {
  const { store, pool, fillPool, dataDir, containers, instanceId, clock, engines, egress, ports, events } = s;
  // Warm sandboxes of an earlier run go before the first sweep (it then removes their
  // containers); each profile's pool fills in the background once that sweep is done.
  // Then slot folders whose chat and reservation are both gone (Berth died while removing them).
  const forgotten = pool.forgetEarlierRun().then(() => {
    const alive = (profile: string) => new Set([...store.chats.list(profile).map((c) => c.id), ...store.warmReservations.list(profile).map((w) => w.chatId)]);
    try {
      sweepSlots(dataDir, store.profiles.list().map((p) => p.name), alive);
    } catch {
      /* the next start sweeps again */
    }
  });
  const reaper = new OrphanReaper({
    store, containers, instanceId, clock,
    // Every engine a Docker profile names gets its handle (and health) before the sweep.
    engines: () => {
      for (const p of store.profiles.list()) if (p.settings.backend === 'docker') engines.forSetting(p.settings.engine);
      return engines.all();
    },
    intervalMs: reapIntervalMs ?? DEFAULT_REAP_INTERVAL_MS,
    sweepNetworks: (live) => egress.sweepNetworks(live),
  });
  const ready = Promise.all([forgotten, reaper.ready]).then(() => {
    for (const p of store.profiles.list()) fillPool(p);
    void ports.restoreAll();
    s.preparer.start();
  });
  events.on((event, payload) => {
    if (event === 'sandbox.progress') {
      // A chat's sandbox is up, so its image is on the engine now: on a first run the first chat
      // built it, and the pool, which never builds, could not warm the next chat until now.
      const { phase, chatId } = payload as EventPayload<'sandbox.progress'>;
      const profile = phase === 'ready' ? store.profiles.get(store.chats.get(chatId)?.profile ?? '') : undefined;
      if (profile) fillPool(profile);
      return;
    }
    if (event !== 'engine.status' || (payload as { state: string }).state !== 'ok') return;
    containers.forgetEngineErrors();
    // The engine is back (or answered for the first time): warm what could not be warmed.
    for (const p of store.profiles.list()) fillPool(p);
  });
  return { reaper, ready };
}

/** Stops everything a core runs; `inFlight` are the calls still in progress when quitting began. */
export async function stop(s: Services, started: Started, inFlight: Promise<unknown>[]): Promise<void> {
  started.reaper.dispose();
  s.deletion.dispose();
  s.engines.dispose();
  s.stats.dispose();
  const poolRemoved = s.pool.dispose();
  s.terminals.dispose();
  s.touchReview.dispose();
  s.review.dispose();
  // Let running calls finish (a command gets its timeout's worth), but never hang quitting.
  const settle = Promise.allSettled([started.ready, s.agent.stopAll(), ...inFlight, poolRemoved]);
  await Promise.race([settle, new Promise((resolve) => setTimeout(resolve, DISPOSE_WAIT_MS).unref())]);
  await s.ports.dispose();
  await s.mcp.dispose();
  await s.containers.dispose();
  await s.egress.dispose().catch(() => undefined);
  s.store.close();
}
