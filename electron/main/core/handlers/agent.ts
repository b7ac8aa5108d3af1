/** agent.*: the chat agent's turns, approvals and the profile's sealed provider key. */
import { BerthError } from '../../../../shared/errors.js';
import { isAutomaticTitle, titleFromMessage } from '../../policy/chatTitle.js';
import { changed, type Handlers } from '../handler.js';
import type { Services } from '../services.js';

export function agentHandlers(s: Services): Handlers<'agent'> {
  const { agent, sessions, store, keys } = s;
  return {
    'agent.history': async (req) => agent.history(req.chatId),
    'agent.waiting': async () => ({ approvals: agent.waiting() }),
    'agent.setOptions': async (req) => agent.setOptions(req.chatId, req),
    'agent.models': (req) => agent.models(req.chatId),
    'agent.send': async (req) => {
      const chat = sessions.requireChat(req.chatId);
      const first = !store.agentMessages.hasUserMessage(chat.id);
      const { message } = agent.send(req.chatId, req.text);
      // The first message names a chat the user has not named.
      const title = first && isAutomaticTitle(chat.title) ? titleFromMessage(req.text) : null;
      if (title !== null) sessions.renameChat(chat.id, title);
      // Its activity moved it up the list (and maybe renamed it).
      return changed(s, chat.id, { message });
    },
    'agent.stop': (req) => agent.stop(req.chatId),
    'agent.approve': async (req) => {
      agent.approve(req.chatId, req.approvalId, req.decision, req.reason);
      return {};
    },
    'agent.revokeAllow': async (req) => {
      agent.revokeAllow(sessions.requireChat(req.chatId).id);
      return {};
    },
    'agent.setKey': async (req) => {
      const profile = sessions.requireProfile(req.profile);
      const from = profile.settings.agent.providerFrom;
      if (from) {
        throw new BerthError('invalid_request', `The profile "${profile.name}" uses the provider of "${from}", and with it that profile's key.`, {
          hint: `Set the key in the profile "${from}"; every profile sharing its provider follows.`,
        });
      }
      return keys.set(profile.name, profile.settings.agent.baseUrl, req.apiKey);
    },
    'agent.clearKey': async (req) => keys.clear(sessions.requireProfile(req.profile).name),
    'agent.keyStatus': async (req) => keys.status(sessions.requireProfile(req.profile).name),
  };
}
