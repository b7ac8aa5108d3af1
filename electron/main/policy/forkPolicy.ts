/**
 * Forking a chat at a turn: which messages the fork keeps, which of the chat's checkpoints stand
 * for the copies' state there, and whether the chat may be forked at all. Pure: no I/O.
 */

/** A turn is the user's message and everything that answers it, up to the user's next message. */
export type ForkAt = 'after' | 'before';

export interface ForkMessage {
  id: string;
  role: string;
  taskId: string | null;
}

export interface ForkCheckpoint {
  reason: string;
  messageId: string | null;
  commits: Record<string, string>;
  endCommits?: Record<string, string>;
}

export type ForkCut =
  | { ok: true; keep: number; checkpoints: number; commitFor: (copyId: string) => string | null }
  | { ok: false; why: string };

/**
 * `keep`: how many of the chat's messages (in order) the fork takes; `checkpoints`: how many of
 * its checkpoints; `commitFor`: the commit that holds a copy at that point (null: the copy has none
 * there, it was attached later, and the fork takes the folder as it was copied).
 * 'before' cuts just before the user's message (Try again sends it anew); 'after' just before the
 * user's next message, with the copies as the turn ended.
 */
export function forkCut(messages: readonly ForkMessage[], checkpoints: readonly ForkCheckpoint[], messageId: string, at: ForkAt, running: boolean): ForkCut {
  const i = messages.findIndex((m) => m.id === messageId && m.role === 'user' && m.taskId === null);
  if (i < 0) return { ok: false, why: 'That message is not one of the chat’s own turns.' };
  const next = messages.findIndex((m, j) => j > i && m.role === 'user' && m.taskId === null);
  const last = next < 0;
  if (at === 'after' && last && running) return { ok: false, why: 'This turn is still running: stop it or wait for it to end, then fork.' };
  const k = checkpoints.findIndex((c) => c.reason === 'turn' && c.messageId === messageId);
  const keep = at === 'before' ? i : last ? messages.length : next;
  if (k < 0) return { ok: true, keep, checkpoints: checkpoints.length, commitFor: () => null };
  const cp = checkpoints[k]!;
  if (at === 'before') return { ok: true, keep, checkpoints: k, commitFor: (id) => cp.commits[id] ?? null };
  const later = checkpoints.slice(k + 1);
  return {
    ok: true,
    keep,
    checkpoints: k + 1,
    commitFor: (id) => cp.endCommits?.[id] ?? later.find((c) => c.commits[id])?.commits[id] ?? cp.commits[id] ?? null,
  };
}

/** A chat with a folder it writes directly cannot be forked: two chats would write one folder, and the fork would not start from the turn's state. */
export function forkRefusal(attachments: readonly { hostPath: string; mode: string }[]): string | null {
  const direct = attachments.find((a) => a.mode === 'readwrite');
  if (!direct) return null;
  return `This chat writes "${direct.hostPath}" directly (read-write), so a fork would share that folder with it and could not start from the turn’s state of it.`;
}

/** The last user message of the chat's own agent, for "Try again in a new chat". */
export function lastTurn(messages: readonly (ForkMessage & { content: string })[]): { id: string; content: string } | null {
  const m = [...messages].reverse().find((x) => x.role === 'user' && x.taskId === null);
  return m ? { id: m.id, content: m.content } : null;
}
