/**
 * A chat's checkpoints: one commit per Review copy in its tracking repository, listed in a file
 * of Berth's per chat, and the files each changed up to the next one (or to now).
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Checkpoint } from '../../../shared/review.js';
import type { Clock } from '../base/clock.js';
import type { ReviewCopy } from './reviewCopy.js';

export interface StoredCheckpoint {
  id: string;
  chatId: string;
  reason: Checkpoint['reason'];
  messageId: string | null;
  label: string;
  createdAt: number;
  /** copy id → commit in that copy's tracking repository */
  commits: Record<string, string>;
  /** A turn's: copy id → the copy as the turn ended (what the user did afterwards is not the turn's). */
  endCommits?: Record<string, string>;
}

/** A copy of the chat's and its folder, as checkpoints need them. */
export interface CheckpointCopy {
  copy: ReviewCopy;
  att: { hostPath: string };
}

export function checkpointView(cp: StoredCheckpoint): Omit<Checkpoint, 'changedFiles'> {
  return { id: cp.id, chatId: cp.chatId, reason: cp.reason, messageId: cp.messageId, label: cp.label, createdAt: cp.createdAt };
}

export class CheckpointStore {
  constructor(
    /** `<data>/review/checkpoints`: one file per chat. */
    private readonly dir: string,
    private readonly clock: Clock,
  ) {}

  private file(chatId: string): string {
    return path.join(this.dir, `${createHash('sha256').update(chatId).digest('hex').slice(0, 24)}.json`);
  }

  load(chatId: string): StoredCheckpoint[] {
    try {
      return JSON.parse(fs.readFileSync(this.file(chatId), 'utf8')) as StoredCheckpoint[];
    } catch {
      return [];
    }
  }

  save(chatId: string, list: StoredCheckpoint[]): void {
    const file = this.file(chatId);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(list));
    fs.renameSync(`${file}.tmp`, file);
  }

  remove(chatId: string): void {
    fs.rmSync(this.file(chatId), { force: true });
  }

  async record(chatId: string, copies: readonly CheckpointCopy[], reason: Checkpoint['reason'], messageId: string | null, label: string): Promise<StoredCheckpoint> {
    const list = this.load(chatId);
    const commits: Record<string, string> = {};
    for (const { copy } of copies) {
      const snap = await copy.snapshot();
      const prev = [...list].reverse().find((c) => c.commits[copy.meta.copyId])?.commits[copy.meta.copyId] ?? null;
      const commit = await copy.commit(snap.tree, prev, label || reason);
      await copy.setRef(`refs/berth/checkpoints/${list.length}`, commit);
      commits[copy.meta.copyId] = commit;
    }
    const cp: StoredCheckpoint = { id: randomUUID(), chatId, reason, messageId, label, createdAt: this.clock.now(), commits };
    list.push(cp);
    this.save(chatId, list);
    return cp;
  }

  /**
   * The turn's end: each copy as it is now, kept on the turn's checkpoint, so the turn's changes
   * stop here and the user's own edits in a terminal afterwards are not counted as the turn's.
   */
  async endTurn(chatId: string, messageId: string, copies: readonly CheckpointCopy[]): Promise<void> {
    const list = this.load(chatId);
    const cp = list.find((c) => c.reason === 'turn' && c.messageId === messageId);
    if (!cp) return;
    const ends: Record<string, string> = {};
    for (const { copy } of copies) {
      const from = cp.commits[copy.meta.copyId];
      if (!from) continue;
      const end = await copy.commit((await copy.snapshot()).tree, from, 'After an agent turn');
      // Referenced like the checkpoints, so nothing that tidies the repository drops it.
      await copy.setRef(`refs/berth/turn-ends/${list.indexOf(cp)}`, end);
      ends[copy.meta.copyId] = end;
    }
    cp.endCommits = ends;
    this.save(chatId, list);
  }

  /** Every checkpoint with the files that changed from it to the next one (the last: to now). */
  async withChangedFiles(chatId: string, copies: readonly CheckpointCopy[]): Promise<Checkpoint[]> {
    const list = this.load(chatId);
    const now = new Map<string, string>();
    for (const { copy } of copies) now.set(copy.meta.copyId, (await copy.snapshot()).tree);
    const out: Checkpoint[] = [];
    for (const [i, cp] of list.entries()) {
      const changed = new Set<string>();
      for (const { copy, att } of copies) {
        const from = cp.commits[copy.meta.copyId];
        if (!from) continue;
        const next = list.slice(i + 1).find((c) => c.commits[copy.meta.copyId])?.commits[copy.meta.copyId];
        const to = cp.endCommits?.[copy.meta.copyId] ?? next ?? now.get(copy.meta.copyId);
        if (!to) continue;
        const prefix = copies.length > 1 ? `${path.basename(att.hostPath)}/` : '';
        for (const c of await copy.diff(from, to)) changed.add(prefix + c.path);
      }
      out.push({ ...checkpointView(cp), changedFiles: [...changed].sort() });
    }
    return out;
  }
}
