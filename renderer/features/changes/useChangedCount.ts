/** A chat's count of changed files in its Review-mode copies, or null when it has none. */
import type { ChatView } from '../../../shared/contract';
import { useReview } from '../../app/context';

/** The count from `live` (the last `review.changed` for the chat) or else the chat's attachments. */
export function changedFiles(chat: ChatView, live: number | undefined): number | null {
  const reviewed = chat.attachments.filter((a) => a.review !== null);
  if (reviewed.length === 0) return live !== undefined && live > 0 ? live : null;
  // `review.changed` is newer than the list's attachments, which are refetched only on chats.changed.
  return live ?? reviewed.reduce((n, a) => n + (a.review?.changedCount ?? 0), 0);
}

export function useChangedCount(chat: ChatView): number | null {
  return changedFiles(chat, useReview((s) => s.counts[chat.id]));
}
