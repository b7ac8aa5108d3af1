/**
 * The chat's sandbox as the header's panel acts on it: each call to main and the store reload
 * that follows. Components call these, never the API.
 */
import type { AttachMode, ChatView } from '../../../shared/contract';
import type { AttachChoice, BerthApi, EventPayload } from '../../api/types';
import type { Stores } from '../../stores';

export function sandboxActions(api: BerthApi, stores: Stores) {
  const reload = (chatId: string) => void stores.sandbox.getState().load(chatId);
  return {
    /** The sandbox's status, asked again (after the engine failed to answer). */
    reload,
    /** Brings the sandbox up again: a no-op command, then a terminal if the chat has none running. */
    async bringUp(chatId: string): Promise<void> {
      try {
        await api.call('sandbox.exec', { chatId, command: ':' });
        const terminals = stores.terminals.getState();
        if (!(terminals.byChat[chatId] ?? []).some((t) => t.state !== 'exited')) void terminals.open(chatId);
      } finally {
        reload(chatId);
      }
    },
    async stop(chatId: string): Promise<void> {
      try {
        await api.call('sandbox.stop', { chatId });
      } finally {
        reload(chatId);
      }
    },
    /** The chat's terminals that run something now (Stop asks first when there are). */
    busyTerminals: async (chatId: string) => (await api.call('terminal.busy', { chatId })).terminals,
    /** The engine's readings, one a second while watched; returns the unwatch. Errors go to `failed`. */
    watchStats(chatId: string, onSample: (sample: EventPayload<'sandbox.stats'>['sample']) => void, failed: (error: unknown) => void): () => void {
      const off = api.on('sandbox.stats', ({ chatId: id, sample }) => id === chatId && onSample(sample));
      api.call('sandbox.watchStats', { chatId }).catch(failed);
      return () => {
        off();
        api.call('sandbox.unwatchStats', { chatId }).catch(() => undefined);
      };
    },
    usage: (chatId: string) => api.call('sandbox.usage', { chatId }),
  };
}

/**
 * A chat's folders as the attach dialog acts on them: main's judgement of a change
 * (workspace.attachPreview), the attach or detach with the token of what the user agreed to
 * (main refuses one that stops what runs without it), then the chat's folders in the store; and
 * the desktop's folder picker. Each answers main's notice, if any.
 */
export function folderActions(api: BerthApi, stores: Stores) {
  const folders = (chatId: string, result: { attachments: ChatView['attachments']; notice: string | null }) => {
    stores.chats.getState().setAttachments(chatId, result.attachments);
    return result.notice;
  };
  const confirmed = (confirm: string | undefined) => (confirm ? { confirm } : {});
  return {
    /** A folder of this computer with its subfolders, for the page's own folder browser (main's start when `path` is absent). */
    browse: (path?: string) => api.call('workspace.browse', path === undefined ? {} : { path }),
    preview: (chatId: string, action: 'attach' | 'detach', about: { mode?: AttachMode; path?: string }) => api.call('workspace.attachPreview', { chatId, action, ...about }),
    attach: async (chatId: string, path: string, choice: AttachChoice, confirm: string | undefined) =>
      folders(chatId, await api.call('workspace.attach', { chatId, path, mode: choice.mode, ...(choice.mode === 'review' ? { contents: choice.contents } : {}), ...confirmed(confirm) })),
    detach: async (chatId: string, path: string, confirm: string | undefined) => folders(chatId, await api.call('workspace.detach', { chatId, path, ...confirmed(confirm) })),
    /** The desktop's native dialog (the browser host answers 'browse'). */
    pick: (chatId: string, choice: AttachChoice) => api.pickFolder(chatId, choice),
    /** The desktop's answer to a folder main holds until the user was asked. */
    answerPicked: (token: string, attach: boolean) => api.confirmFolder(token, attach),
  };
}
