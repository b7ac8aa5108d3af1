/**
 * Fork and compare's calls to main: components call these, never the API themselves. After a
 * fork the chat list is refetched and the new chat selected, so the user lands in it.
 */
import type { BerthApi } from '../../api/types';
import type { Stores } from '../../stores';
import type { CopyChanges } from '../../../shared/contract';

export interface Attempt {
  chatId: string;
  title: string;
  copy: CopyChanges | null;
}

export function compareActions(api: BerthApi, stores: Stores) {
  const land = async (chatId: string) => {
    await stores.chats.getState().refresh();
    stores.chats.getState().select(chatId);
  };
  return {
    /** "Fork from here": a new chat from this turn, as it ended ('after'), or from just before it (a restore point's 'before'). */
    async forkAt(chatId: string, messageId: string, at: 'after' | 'before' = 'after'): Promise<void> {
      const r = await api.call('chats.fork', { chatId, messageId, at });
      await land(r.chatId);
    },
    /** "Try again in a new chat": the last message again, in a fork from before it. */
    async retry(chatId: string): Promise<void> {
      const r = await api.call('chats.retry', { chatId });
      await land(r.chatId);
    },
    /** Each attempt's changes to one folder, with their diffs. */
    async load(chats: readonly { id: string; title: string }[], hostPath: string): Promise<Attempt[]> {
      return Promise.all(
        chats.map(async (c) => {
          const { copies } = await api.call('review.changes', { chatId: c.id, hostPath, diffs: true });
          return { chatId: c.id, title: c.title, copy: copies.find((x) => x.hostPath === hostPath) ?? null };
        }),
      );
    },
    /** Applies one attempt's changes to the folder (Review's own Apply), then deletes the other attempts' chats. */
    async keep(chatId: string, hostPath: string, others: readonly string[]): Promise<string> {
      const r = await api.call('review.apply', { chatId, hostPath, mode: 'files' });
      if (!r.ok) return r.message;
      for (const id of others) await stores.chats.getState().remove(id);
      return r.message;
    },
  };
}
