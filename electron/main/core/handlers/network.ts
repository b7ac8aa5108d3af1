/** network.*: a chat's Network log and the allowlist entry added from it. */
import { BerthError } from '../../../../shared/errors.js';
import { allowEntryFor } from '../../../../shared/egress.js';
import { changed, type Handlers } from '../handler.js';
import type { Services } from '../services.js';

export function networkHandlers(s: Services): Handlers<'network'> {
  const { sessions, egress } = s;
  return {
    'network.log': async (req) => {
      const chat = sessions.requireChat(req.chatId);
      return { mode: sessions.requireProfile(chat.profile).settings.egress, requests: egress.requests(chat.id) };
    },
    'network.allow': async (req) => {
      const profile = sessions.requireProfile(sessions.requireChat(req.chatId).profile);
      let entry: string;
      try {
        entry = allowEntryFor(req.host, req.port);
      } catch (error) {
        throw new BerthError('invalid_request', (error as Error).message, { hint: 'Only host names can be allowed, not IP addresses.' });
      }
      const list = profile.settings.egressAllow.includes(entry) ? profile.settings.egressAllow : [...profile.settings.egressAllow, entry];
      const view = sessions.updateProfile({ name: profile.name, settings: { egressAllow: list } });
      await egress.allowlistChanged(profile.name);
      changed(s, null, view);
      return { entry, egressAllow: view.settings.egressAllow };
    },
  };
}
