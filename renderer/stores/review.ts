/**
 * Review mode, per chat: how many files its Review-mode copies changed (the sidebar's count, live
 * from `review.changed`), the changes themselves (`review.changes`, loaded when the Changes panel
 * is open), its restore points (`review.checkpoints`, for "Undo this turn"), and the progress of
 * a copy being made (`review.progress`). Apply, discard, refresh and undo are calls the panel
 * makes itself; their answers are shown where they were asked for, not kept here.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Checkpoint, CopyChanges, EventPayload } from '../../shared/contract';
import type { BerthApi } from '../api/types';
import { errorInfo, type ApiErrorInfo } from '../api/errors';
import { without, type ForgetsChats } from './record';

export type CopyProgress = EventPayload<'review.progress'>;

export interface ChatChanges {
  copies: CopyChanges[];
  loaded: boolean;
  loading: boolean;
  error: ApiErrorInfo | null;
}

export const NO_CHANGES: ChatChanges = { copies: [], loaded: false, loading: false, error: null };

export interface ReviewState extends ForgetsChats {
  /** Changed files per chat, as `review.changed` last said (absent: not heard yet). */
  counts: Readonly<Record<string, number>>;
  changes: Readonly<Record<string, ChatChanges>>;
  checkpoints: Readonly<Record<string, readonly Checkpoint[]>>;
  /** A copy being made, per chat and folder; dropped when it is done. */
  progress: Readonly<Record<string, Readonly<Record<string, CopyProgress>>>>;
  setCount(chatId: string, count: number): void;
  setProgress(progress: CopyProgress): void;
  /** Loads the chat's changes (all its Review-mode copies). */
  load(chatId: string): Promise<void>;
  loadCheckpoints(chatId: string): Promise<void>;
}

export type ReviewStore = StoreApi<ReviewState>;

export function createReviewStore(api: BerthApi): ReviewStore {
  // One `review.changes` at a time per chat; a request made meanwhile runs once after it.
  const inFlight = new Map<string, Promise<void>>();
  const again = new Set<string>();

  return createStore<ReviewState>()((set, get) => ({
    counts: {},
    changes: {},
    checkpoints: {},
    progress: {},

    setCount(chatId, count) {
      if (get().counts[chatId] === count) return;
      set((s) => ({ counts: { ...s.counts, [chatId]: count } }));
    },

    setProgress(p) {
      set((s) => {
        const forChat = { ...(s.progress[p.chatId] ?? {}) };
        if (p.phase === 'done') delete forChat[p.hostPath];
        else forChat[p.hostPath] = p;
        return {
          progress: Object.keys(forChat).length === 0 ? without(s.progress, p.chatId) : { ...s.progress, [p.chatId]: forChat },
        };
      });
    },

    load(chatId) {
      const running = inFlight.get(chatId);
      if (running) {
        again.add(chatId);
        return running;
      }
      const run = (async () => {
        const before = get().changes[chatId] ?? NO_CHANGES;
        set((s) => ({ changes: { ...s.changes, [chatId]: { ...before, loading: true } } }));
        try {
          const { copies } = await api.call('review.changes', { chatId, diffs: true });
          const total = copies.reduce((n, c) => n + c.counts.total, 0);
          set((s) => ({
            changes: { ...s.changes, [chatId]: { copies, loaded: true, loading: false, error: null } },
            counts: { ...s.counts, [chatId]: total },
          }));
        } catch (e) {
          set((s) => ({ changes: { ...s.changes, [chatId]: { ...(s.changes[chatId] ?? NO_CHANGES), loaded: true, loading: false, error: errorInfo(e) } } }));
        }
      })().finally(() => {
        inFlight.delete(chatId);
        if (again.delete(chatId)) void get().load(chatId);
      });
      inFlight.set(chatId, run);
      return run;
    },

    async loadCheckpoints(chatId) {
      try {
        const { checkpoints } = await api.call('review.checkpoints', { chatId });
        set((s) => ({ checkpoints: { ...s.checkpoints, [chatId]: checkpoints } }));
      } catch {
        // Checkpoints only add "Undo this turn" to the conversation: without them it reads as before.
      }
    },

    forgetChat(chatId) {
      set((s) => ({
        counts: without(s.counts, chatId),
        changes: without(s.changes, chatId),
        checkpoints: without(s.checkpoints, chatId),
        progress: without(s.progress, chatId),
      }));
    },
  }));
}

/** The count beside a chat in the sidebar: live from `review.changed`, else what its attachments said. */
export function changedCount(counts: ReviewState['counts'], chatId: string, fromAttachments: number | null): number {
  return counts[chatId] ?? fromAttachments ?? 0;
}
