/** A chat's count of changed files in its Review-mode copies, or null when it has none. */
import type { ChatView } from '../../../shared/contract';
import { useReview } from '../../services/context';

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

/**
 * What deleting loses, said where a chat or a profile is deleted (their Review copies go with
 * them): '' when nothing changed, else a sentence to append, starting with a space.
 */
export function unappliedLoss(count: number, of: 'chat' | 'profile'): string {
  if (count === 0) return '';
  const files = `${count} changed file${count === 1 ? '' : 's'}`;
  const verb = count === 1 ? 'is' : 'are';
  return of === 'chat'
    ? ` ${files} in its Review copy ${verb} not applied to your folder and will be lost: apply or copy what you want to keep first (Changes).`
    : ` ${files} in their Review copies ${verb} not applied to your folders and will be lost: apply what you want to keep first (each chat's Changes).`;
}
