/** The conversation's calls to main beyond the agent store's own: components call these, never the API. */
import type { BerthApi } from '../../api/types';

export function conversationActions(api: BerthApi) {
  return {
    /** The models the chat's provider offers. */
    models: async (chatId: string) => (await api.call('agent.models', { chatId })).models,
  };
}
