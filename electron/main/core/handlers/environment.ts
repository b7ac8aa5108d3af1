/** environment.* and images.*: a chat's project environment (devcontainer.json) and Berth's images made ahead. */
import type { Handlers } from '../handler.js';
import type { Services } from '../services.js';

export function environmentHandlers(s: Services): Handlers<'environment'> & Handlers<'images'> {
  const { environments, preparer } = s;
  return {
    'environment.detect': async (req) => environments.detect(req.chatId),
    'environment.use': (req) => environments.use(req.chatId, req.folder, req.config),
    'environment.rebuild': (req) => environments.rebuild(req.chatId),
    'environment.settings': async (req) => environments.keep(req.keep),
    'images.status': async () => ({ preparations: preparer.list() }),
  };
}
