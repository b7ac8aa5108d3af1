/**
 * The network feature's calls to main and what it hears: the Network view and the first-chat
 * question call these, never the API.
 */
import type { BerthApi, EventPayload } from '../../api/types';
import type { StartingPointId } from '../../../shared/contract';
import type { AllowScope } from '../../../shared/egress';

export function networkActions(api: BerthApi) {
  return {
    /** What the proxy decided for the chat's requests so far, its mode, grants and method rules. */
    log: (chatId: string) => api.call('network.log', { chatId }),
    /** The chat's requests and grants as they change; returns the unsubscribe. */
    watch(chatId: string, on: { request(r: EventPayload<'network.request'>): void; grants(g: EventPayload<'network.grants'>['grants']): void }): () => void {
      const off = api.on('network.request', (r) => r.chatId === chatId && on.request(r));
      const offGrants = api.on('network.grants', (g) => g.chatId === chatId && on.grants(g.grants));
      return () => {
        off();
        offGrants();
      };
    },
    allow: (chatId: string, host: string, port: number | null, scope: AllowScope) => api.call('network.allow', { chatId, host, port, scope }),
    revoke: (chatId: string, entry: string) => api.call('network.revoke', { chatId, entry }),
    /** Whether New chat in this profile asks the first-chat question; never in the way when main does not answer. */
    async shouldAsk(profile: string): Promise<boolean> {
      try {
        return (await api.call('network.startingPoint', { profile })).ask;
      } catch {
        return false;
      }
    },
    choose: (choice: StartingPointId) => api.call('network.chooseStartingPoint', { choice }),
  };
}
