/** What a core takes from this computer before it builds its services: engines, ids, owners, ranges. */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import type { EngineSetting } from '../../../shared/contract.js';
import type { BerthError } from '../../../shared/errors.js';
import { createEngine, type DockerEngineOptions, type Engine } from '../engine/dockerEngine.js';
import { contextByName, currentContextHost } from '../engine/dockerContext.js';
import type { EventHub } from '../events.js';
import { chooseEngine, type EngineChoice } from '../policy/engineChoice.js';
import type { FolderOwner } from '../policy/writableFolders.js';
import { parseSubnetPool, type SubnetPool } from '../policy/subnets.js';
import type { Clock } from '../base/clock.js';
import { EngineRegistry } from '../sandbox/engineRegistry.js';
import type { Store } from '../store/repositories.js';

/**
 * Engines as profiles name them (shared/engines.ts): the default one is the engine the user's
 * Docker tools use, or the one a caller injected; a broken address still lets the app open and
 * say so (the registry turns a refused setting into an engine whose calls give the reason).
 */
export function engineRegistry(env: NodeJS.ProcessEnv, injected: Engine | undefined, events: EventHub, clock: Clock, engineOptions: DockerEngineOptions): EngineRegistry {
  const home = os.homedir();
  const choose = (setting: EngineSetting): EngineChoice => {
    if (setting.kind === 'default' && injected) {
      return { endpoint: { kind: 'socket', socketPath: '' }, ref: { id: 'default', kind: 'default', label: injected.endpointLabel, remote: false } };
    }
    return chooseEngine(setting, {
      env,
      platform: process.platform,
      homeDir: home,
      exists: fs.existsSync,
      currentContextHost: currentContextHost(env, home),
      context: (name) => contextByName(name, env, home),
    });
  };
  return new EngineRegistry({
    choose,
    create: (choice) => (choice.ref.id === 'default' && injected ? injected : createEngine(choice.endpoint, engineOptions)),
    events,
    clock,
  });
}

export function instanceIdOf(store: Store): string {
  const existing = store.settings.get('instance_id');
  if (existing) return existing;
  const id = randomUUID().replace(/-/g, '');
  store.settings.set('instance_id', id);
  return id;
}

/** Owner and mode of each folder, as it is now; one that cannot be read is left to the mount checks. */
export function folderOwners(paths: readonly string[]): FolderOwner[] {
  return paths.flatMap((p) => {
    try {
      const st = fs.statSync(p);
      return [{ path: p, uid: st.uid, gid: st.gid, mode: st.mode & 0o777 }];
    } catch {
      return [];
    }
  });
}

/** The sealed networks' range from the environment; a bad setting fails allowlist starts, not Berth's. */
export function subnetPoolFrom(env: NodeJS.ProcessEnv): SubnetPool | BerthError {
  try {
    return parseSubnetPool(env.BERTH_EGRESS_POOL, env.BERTH_EGRESS_POOL_SIZE);
  } catch (error) {
    return error as BerthError;
  }
}
