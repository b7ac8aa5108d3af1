/** Which chats are attempts at one folder, and the files either changed, side by side. Pure. */
import { attemptFamily } from '../../../shared/attempts';
import type { ChatView, FileChange } from '../../../shared/contract';

/**
 * The attempts at this chat's message (its fork lineage: the first chat and its "Try again"
 * chats) that have `hostPath` in Review mode, the chat itself first. Never any other chat on the
 * folder: "close the others" deletes exactly these, and a user's other chat there holds its own work.
 */
export function attemptsOn(chats: readonly ChatView[], chat: ChatView, hostPath: string): ChatView[] {
  return attemptFamily(chats, chat).filter((c) => c === chat || (c.profile === chat.profile && c.attachments.some((a) => a.hostPath === hostPath && a.mode === 'review')));
}

/** The chats "Apply this attempt and close the others" closes when `keepId` is kept: every other attempt compared. */
export function attemptsToClose(attempts: readonly ChatView[], keepId: string): ChatView[] {
  return attempts.filter((c) => c.id !== keepId);
}

export interface Row {
  path: string;
  left: FileChange | null;
  right: FileChange | null;
}

/** Every file either attempt changed, in path order, with each side's change (null: that attempt left it alone). */
export function compareRows(left: readonly FileChange[], right: readonly FileChange[]): Row[] {
  const paths = [...new Set([...left.map((f) => f.path), ...right.map((f) => f.path)])].sort();
  return paths.map((p) => ({ path: p, left: left.find((f) => f.path === p) ?? null, right: right.find((f) => f.path === p) ?? null }));
}
