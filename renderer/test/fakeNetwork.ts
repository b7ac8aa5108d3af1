/** The fake API's network.* methods: the chat's log and allowances, and the first-chat question. */
import type { ChatView, EventName, EventPayload, MethodName, ProfileView, Request, Response } from '../../shared/contract';
import { ALLOW_ONCE_MS, exactEntryFor, type ChatGrant, type NetworkRequest } from '../../shared/egress';
import { ApiError } from '../api/errors';
import { profileView } from './fakeViews';

type Handler<M extends MethodName> = (params: Request<M>) => Response<M> | Promise<Response<M>>;
type NetworkMethod = 'network.log' | 'network.startingPoint' | 'network.chooseStartingPoint' | 'network.allow' | 'network.revoke';

interface FakeNetworkState {
  chats: ChatView[];
  profiles: ProfileView[];
  network: Record<string, { requests: NetworkRequest[]; grants: ChatGrant[] }>;
}

export function networkHandlers(fake: FakeNetworkState, emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void): { [M in NetworkMethod]: Handler<M> } {
  return {
    'network.log': ({ chatId }) => {
      const chat = fake.chats.find((c) => c.id === chatId);
      const p = fake.profiles.find((x) => x.name === chat?.profile);
      return {
        mode: p?.settings.egress ?? 'allowlist', requests: [...(fake.network[chatId]?.requests ?? [])], grants: [...(fake.network[chatId]?.grants ?? [])],
        httpOnly: (p?.settings.egressAllow ?? []).filter((e) => e.includes(' ')),
      };
    },
    // The first chat's network question: not asked unless a test handles network.startingPoint.
    'network.startingPoint': () => ({ ask: false }),
    'network.chooseStartingPoint': ({ choice }) => {
      const p = fake.profiles.find((x) => x.name === 'default');
      const egress = choice === 'locked' ? 'none' : choice === 'open' ? 'open' : 'allowlist';
      if (p) p.settings = { ...p.settings, egress };
      return { applied: true, egress, egressAllow: p?.settings.egressAllow ?? [] };
    },
    'network.allow': ({ chatId, host, port, scope }) => {
      const chat = fake.chats.find((c) => c.id === chatId);
      const old = fake.profiles.find((x) => x.name === chat?.profile);
      if (!old) throw new ApiError('not_found', 'There is no profile like that.');
      const entry = exactEntryFor(host, port);
      const net = (fake.network[chatId] ??= { requests: [], grants: [] });
      if (scope !== 'profile') {
        net.grants = [...net.grants.filter((g) => g.entry !== entry), { entry, scope, expiresAt: scope === 'once' ? Date.now() + ALLOW_ONCE_MS : null }];
        queueMicrotask(() => emit('network.grants', { chatId, grants: [...net.grants] }));
        return { entry, egressAllow: old.settings.egressAllow, grants: [...net.grants] };
      }
      const p = profileView(old.name, { ...old.settings, egressAllow: [...old.settings.egressAllow, entry] });
      fake.profiles = fake.profiles.map((x) => (x.name === p.name ? p : x));
      return { entry, egressAllow: p.settings.egressAllow, grants: [...net.grants] };
    },
    'network.revoke': ({ chatId, entry }) => {
      const net = (fake.network[chatId] ??= { requests: [], grants: [] });
      net.grants = net.grants.filter((g) => g.entry !== entry);
      queueMicrotask(() => emit('network.grants', { chatId, grants: [...net.grants] }));
      return { grants: [...net.grants] };
    },
  };
}
