/** Which chats are attempts at one folder, and the files either changed, side by side. Pure. */
import type { ChatView, FileChange } from '../../../shared/contract';

/** The chats of the same profile with `hostPath` attached in Review mode (the chat itself first). */
export function attemptsOn(chats: readonly ChatView[], chat: ChatView, hostPath: string): ChatView[] {
  const on = chats.filter((c) => c.profile === chat.profile && c.attachments.some((a) => a.hostPath === hostPath && a.mode === 'review'));
  return [chat, ...on.filter((c) => c.id !== chat.id)];
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
