/**
 * Review's calls to main, and the store reloads that follow each: the Changes panel, restore
 * points, conflicts, comments and "Undo this turn" call these, never the API themselves.
 */
import type { BerthApi, Request } from '../../api/types';
import type { Stores } from '../../stores';

export function reviewActions(api: BerthApi, stores: Stores) {
  const review = () => stores.review.getState();
  /** The copy's changes and the restore points, as main has them now. */
  const reload = (chatId: string) => {
    void review().load(chatId);
    void review().loadCheckpoints(chatId);
  };
  return {
    reload,
    /** Only the changes (after an apply, discard or refresh: the restore points stay). */
    reloadChanges: (chatId: string) => void review().load(chatId),
    diff: (req: Request<'review.diff'>) => api.call('review.diff', req),
    apply: (req: Request<'review.apply'>) => api.call('review.apply', req),
    applyLines: (req: Request<'review.applyLines'>) => api.call('review.applyLines', req),
    push: (req: Request<'review.push'>) => api.call('review.push', req),
    undoApply: (req: Request<'review.undoApply'>) => api.call('review.undoApply', req),
    discard: (req: Request<'review.discard'>) => api.call('review.discard', req),
    refresh: (req: Request<'review.refresh'>) => api.call('review.refresh', req),
    conflict: (req: Request<'review.conflict'>) => api.call('review.conflict', req),
    resolve: (req: Request<'review.resolve'>) => api.call('review.resolve', req),
    comments: (chatId: string) => api.call('review.comments', { chatId }),
    comment: (req: Request<'review.comment'>) => api.call('review.comment', req),
    closeComment: (req: Request<'review.commentClose'>) => api.call('review.commentClose', req),
    sendComments: (chatId: string) => api.call('review.sendComments', { chatId }),
    /** A restore point now; the list of restore points follows. */
    async checkpoint(chatId: string, label: string) {
      const cp = await api.call('review.checkpoint', { chatId, label });
      void review().loadCheckpoints(chatId);
      return cp;
    },
    /** Back to a restore point; the changes and the restore points follow, whatever came of it. */
    async restore(chatId: string, checkpointId: string) {
      try {
        return await api.call('review.restore', { chatId, checkpointId });
      } finally {
        reload(chatId);
      }
    },
    /** Undo one agent turn; the restore points follow, and the changes when the panel has them. */
    async undoTurn(chatId: string, messageId: string) {
      try {
        return await api.call('review.undoTurn', { chatId, messageId });
      } finally {
        void review().loadCheckpoints(chatId);
        if (review().changes[chatId]) void review().load(chatId);
      }
    },
  };
}
