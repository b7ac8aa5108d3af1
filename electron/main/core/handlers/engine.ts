/** engine.*: the status bar's engines, the profile form's check, contexts, images and resources. */
import os from 'node:os';
import { DEFAULT_ENGINE_SETTING, DEFAULT_PROFILE } from '../../../../shared/contract.js';
import { listContexts } from '../../engine/dockerContext.js';
import type { Handlers } from '../handler.js';
import type { Services } from '../services.js';

export function engineHandlers(s: Services): Handlers<'engine'> {
  const { engines, containers, store, engineCheck, engine, baseImage, engineOfProfile, env } = s;
  /**
   * The engines the status bar lists: this computer's, each one a profile names, and any a sandbox
   * still runs on. One no longer in use drops out, and its error with it (a deleted profile's).
   */
  const enginesInUse = () => {
    const used = new Set([engines.forSetting(DEFAULT_ENGINE_SETTING).ref.id, ...containers.engineIdsInUse()]);
    for (const p of store.profiles.list()) {
      const ref = engines.refFor(p.settings.engine);
      if (ref) used.add(ref.id);
    }
    return engines.all().filter((h) => used.has(h.ref.id));
  };
  const dockerContexts = () => listContexts(env, os.homedir(), engines.forSetting({ kind: 'context', name: 'default' }).engine.endpointLabel);
  return {
    'engine.list': async () => ({ engines: enginesInUse().map((h) => h.monitor.current()) }),
    'engine.check': (req) => engineCheck.check(req.engine, req.profile),
    'engine.contexts': async () => ({ contexts: dockerContexts() }),
    'engine.images': async () => ({ images: await engine.listImageTags(), baseImage: baseImage.tag }),
    'engine.resources': (req) => engineOfProfile(req.profile ?? DEFAULT_PROFILE).engine.resources(),
    'engine.status': async (req) => {
      const { monitor } = engineOfProfile(req.profile ?? DEFAULT_PROFILE);
      return monitor.current().state === 'checking' ? monitor.check() : monitor.current();
    },
  };
}
