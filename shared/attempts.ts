/**
 * Which chats are attempts at one message ("Try again in a new chat"), by the fork lineage Berth
 * records, never by title: a chat may be renamed, and another chat may share a title or a folder
 * without being an attempt. The first chat is the root; each attempt names it (attemptOf). Pure.
 */

export interface AttemptLineage {
  id: string;
  /** The chat whose message this chat tries again; null for a chat that is not an attempt. */
  attemptOf: string | null;
}

/** The chat every attempt in this chat's family names: its own id when it is the first. */
export function attemptRoot(chat: AttemptLineage): string {
  return chat.attemptOf ?? chat.id;
}

/** The chat's attempt family among `chats`: the root (while it exists) and every attempt at it, `chat` first, the rest in the order given. */
export function attemptFamily<T extends AttemptLineage>(chats: readonly T[], chat: T): T[] {
  const root = attemptRoot(chat);
  return [chat, ...chats.filter((c) => c.id !== chat.id && attemptRoot(c) === root)];
}
