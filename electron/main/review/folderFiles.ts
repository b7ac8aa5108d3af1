/**
 * The user's own files an apply of chosen lines puts lines into, read as they are now straight
 * from the folder (one descriptor per folder on the way, each name opened with O_NOFOLLOW:
 * review/linkSafe), instead of taking the whole folder into git first: that snapshot (git add -A
 * and write-tree over every file) was a third of an apply's time (bench:review --hunks-only).
 * Bytes as they are on disk: no filter, attribute or line-ending rule of anyone's has a say.
 */
import fs from 'node:fs';
import { leadingLinkProblem } from './applyToFolder.js';
import { closeQuietly, entryAt, readFileAt, walkTo } from './linkSafe.js';

export type FolderFile =
  /** `st`: the fstat of the read, by which a write tells it is still this file (applyToFolder). */
  | { kind: 'file'; data: Buffer; executable: boolean; st: fs.Stats }
  | { kind: 'missing' }
  /** Over the size Berth takes into git (REVIEW_LIMITS.maxTrackedFileBytes): not read. */
  | { kind: 'large' }
  /** Not a file Berth may write lines into (a link, a folder, a link on the way): why, in words. */
  | { kind: 'other'; why: string };

const KIND_WORDS: Record<string, string> = { link: 'a link', dir: 'a folder', other: 'not a regular file' };

/** Each path's file in `root` now (paths relative to it, '/'-separated, already checked safe). */
export function readFolderFiles(root: string, paths: readonly string[], cap: number): Map<string, FolderFile> {
  const out = new Map<string, FolderFile>();
  const rootFd = fs.openSync(root, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  const dirs = new Map<string, number | null>();
  try {
    for (const p of paths) {
      const parts = p.split('/');
      const name = parts.pop()!;
      const dir = parts.join('/');
      if (!dirs.has(dir)) dirs.set(dir, walkTo(rootFd, parts, null));
      const fd = dirs.get(dir)!;
      if (fd === null) {
        const why = leadingLinkProblem(root, p);
        out.set(p, why ? { kind: 'other', why } : { kind: 'missing' });
        continue;
      }
      const r = readFileAt(fd, name, cap);
      if (r.kind === 'data') out.set(p, { kind: 'file', data: r.data, executable: (r.st.mode & 0o100) !== 0, st: r.st });
      else if (r.kind === 'large') out.set(p, { kind: 'large' });
      else if (r.kind === 'changing') out.set(p, { kind: 'other', why: `"${p}" in your folder kept changing while Berth read it; apply again when it is still.` });
      else {
        const e = entryAt(fd, name);
        out.set(p, e.kind === 'missing' ? { kind: 'missing' } : { kind: 'other', why: `"${p}" in your folder is ${KIND_WORDS[e.kind] ?? 'not a regular file'}; Berth only puts chosen lines into files.` });
      }
    }
  } finally {
    for (const fd of dirs.values()) closeQuietly(fd);
    closeQuietly(rootFd);
  }
  return out;
}
