/** The project environment's calls to main and what it hears: the environment view calls these, never the API. */
import type { BerthApi, EventPayload } from '../../api/types';

export function environmentActions(api: BerthApi) {
  return {
    /** The attached folders' devcontainer.json files, and the environment the chat runs now. */
    detect: (chatId: string) => api.call('environment.detect', { chatId }),
    use: (chatId: string, folder: string, config: string) => api.call('environment.use', { chatId, folder, config }),
    rebuild: (chatId: string) => api.call('environment.rebuild', { chatId }),
    /** The chat's environment as it changes, and its build's steps; returns the unsubscribe. */
    watch(chatId: string, on: { status(s: EventPayload<'environment.status'>): void; step(message: string | null): void }): () => void {
      const offStatus = api.on('environment.status', (s) => s.chatId === chatId && on.status(s));
      const offProgress = api.on('sandbox.progress', (p) => p.chatId === chatId && on.step(p.message));
      return () => {
        offStatus();
        offProgress();
      };
    },
  };
}
