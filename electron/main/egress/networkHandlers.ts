/**
 * The Network view's methods (network.log, network.allow, network.revoke): a chat's requests and
 * own allowances, and an Allow of the scope the user chose (once, this chat, or the profile's list).
 */
import type { ParsedRequest, ProfileSettings, ProfileView, Response } from '../../../shared/contract.js';
import { BerthError } from '../../../shared/errors.js';
import { exactEntryFor, splitEntry } from '../../../shared/egress.js';
import type { EgressService } from './egressService.js';

type NetworkMethod = 'network.log' | 'network.allow' | 'network.revoke';

export function networkHandlers(deps: {
  /** The chats and profiles (sessions/SessionService). */
  sessions: {
    requireChat(chatId: string): { id: string; profile: string };
    requireProfile(name: string): { name: string; settings: ProfileSettings };
    updateProfile(req: ParsedRequest<'profiles.update'>): ProfileView;
  };
  egress: EgressService;
  /** Tells clients the profile changed (core's `changed`). */
  profileChanged(view: ProfileView): void;
}): { [M in NetworkMethod]: (req: ParsedRequest<M>) => Promise<Response<M>> } {
  const { sessions, egress } = deps;
  return {
    'network.log': async (req) => {
      const chat = sessions.requireChat(req.chatId);
      const { egress: mode, egressAllow } = sessions.requireProfile(chat.profile).settings;
      const httpOnly = egressAllow.filter((entry) => splitEntry(entry).methods !== null);
      return { mode, requests: egress.requests(chat.id), grants: egress.chatGrants(chat.id), httpOnly };
    },
    'network.allow': async (req) => {
      const chat = sessions.requireChat(req.chatId);
      const profile = sessions.requireProfile(chat.profile);
      let entry: string;
      try {
        entry = exactEntryFor(req.host, req.port);
      } catch (error) {
        throw new BerthError('invalid_request', (error as Error).message, { hint: 'Only host names can be allowed, not IP addresses.' });
      }
      if (req.scope !== 'profile') {
        const grants = await egress.grant(chat.id, profile.name, entry, req.scope);
        return { entry, egressAllow: profile.settings.egressAllow, grants };
      }
      const list = profile.settings.egressAllow.includes(entry) ? profile.settings.egressAllow : [...profile.settings.egressAllow, entry];
      const view = sessions.updateProfile({ name: profile.name, settings: { egressAllow: list } });
      await egress.allowlistChanged(profile.name);
      deps.profileChanged(view);
      return { entry, egressAllow: view.settings.egressAllow, grants: egress.chatGrants(chat.id) };
    },
    'network.revoke': async (req) => {
      const chat = sessions.requireChat(req.chatId);
      return { grants: await egress.revoke(chat.id, chat.profile, req.entry) };
    },
  };
}
