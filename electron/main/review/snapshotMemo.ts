/**
 * The copy's last snapshot, kept beside Berth's index (track.git/berth-snapshot.json), so a look
 * at a copy nothing changed in since costs the shadow's walk and no git process: `ls-files`,
 * `add -A` and `write-tree` were three git processes one after another, a third of an apply of
 * chosen lines (bench:review --hunks-only). git's answer depends only on the shadow, Berth's
 * index and Berth's own settings, so the kept tree is taken again only when all three are as
 * they were:
 * - the sync that just ran changed nothing in the shadow, and no entry of the shadow has a ctime
 *   as new as the kept snapshot's (the kernel sets ctime on every change, and no one can set it
 *   back: anything else that wrote the shadow since, a read-tree -u or a removal, shows);
 * - the index file is the same one (git replaces it by a rename: a new inode, times and size);
 * - the memo is this Berth's (MEMO_VERSION) and the clock did not go back since it was made.
 * Otherwise git takes the snapshot and the memo is made again.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ShadowLook } from './shadowCopy.js';

const MEMO_VERSION = 1;

interface Memo {
  v: number;
  tree: string;
  large: string[];
  index: string;
}

function indexStamp(trackDir: string): string | null {
  try {
    const st = fs.statSync(path.join(trackDir, 'index'));
    return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch {
    return null;
  }
}

const memoFile = (trackDir: string) => path.join(trackDir, 'berth-snapshot.json');

/** The kept snapshot when nothing git reads changed since it was taken, else null. */
export function recalledSnapshot(trackDir: string, look: ShadowLook): { tree: string; large: string[] } | null {
  if (look.changed) return null;
  try {
    const file = memoFile(trackDir);
    const made = fs.statSync(file).ctimeMs;
    const memo = JSON.parse(fs.readFileSync(file, 'utf8')) as Memo;
    if (memo.v !== MEMO_VERSION || look.newestCtimeMs >= made || made > Date.now() || memo.index !== indexStamp(trackDir)) return null;
    return { tree: memo.tree, large: memo.large };
  } catch {
    return null;
  }
}

/** Keeps `snap` (just taken by git) as the copy's last snapshot; returns it. */
export function rememberSnapshot(trackDir: string, snap: { tree: string; large: string[] }): { tree: string; large: string[] } {
  const index = indexStamp(trackDir);
  const file = memoFile(trackDir);
  if (index === null) {
    fs.rmSync(file, { force: true });
    return snap;
  }
  const memo: Memo = { v: MEMO_VERSION, tree: snap.tree, large: snap.large, index };
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(memo));
  fs.renameSync(`${file}.tmp`, file);
  return snap;
}

/** The copy's snapshot after a sync that saw `look`: the kept one when it still holds, else `take()`'s, kept. */
export async function keptOrTaken(trackDir: string, look: ShadowLook, take: () => Promise<{ tree: string; large: string[] }>): Promise<{ tree: string; large: string[] }> {
  return recalledSnapshot(trackDir, look) ?? rememberSnapshot(trackDir, await take());
}
