/** A chat's count of changed files in its Review-mode copies, or null when it has none. */
import type { ChatView } from '../../../shared/contract';
import { useReview } from '../../app/context';

export function useChangedCount(chat: ChatView): number | null {
  const live = useReview((s) => s.counts[chat.id]);
  const reviewed = chat.attachments.filter((a) => a.review !== null);
  if (reviewed.length === 0) return live !== undefined && live > 0 ? live : null;
  // `review.changed` is newer than the list's attachments, which are refetched only on chats.changed.
  return live ?? reviewed.reduce((n, a) => n + (a.review?.changedCount ?? 0), 0);
}
