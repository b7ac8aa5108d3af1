/** Small helpers for the stores' per-chat records, which are replaced, never changed in place. */

/** Every store that keeps something per chat (keyed by its id) lets it go the same way when the chat is deleted. */
export interface ForgetsChats {
  forgetChat(chatId: string): void;
}

/** A copy of `record` without `key` (always a new object: guard with `in` to keep identity). */
export function without<T>(record: Readonly<Record<string, T>>, key: string): Record<string, T> {
  const next = { ...record };
  delete next[key];
  return next;
}
