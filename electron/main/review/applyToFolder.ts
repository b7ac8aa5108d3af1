/**
 * Writes chosen changes into the user's folder, all or nothing, never through a link: every
 * leading folder is checked with lstat (a link there is refused, not followed), every file is
 * written to a new temporary name and renamed over its target, and a failure half-way puts
 * back what was already replaced. What is replaced is moved aside until every write is done,
 * unless Berth read the file's bytes just before and it is still that file: then the new version
 * is renamed straight over it and those bytes are what a failure writes back. Moving aside and
 * removing afterwards were two of the four directory changes per file of an apply of chosen
 * lines, where creating files costs most: 100 hunks in 50 files took 3.8 ms of its 10 ms in
 * writes (bench:review --hunks-only, an idle machine), git apply's own create 5 ms in all.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import { replacedFileMode } from '../policy/replacedFileMode.js';
import { giveTo, ownerFor } from './folderOwners.js';

/** A file as Berth read it at a write's place a moment before: its bytes and the fstat of that read. */
export interface KnownFile {
  data: Buffer;
  st: fs.Stats;
}

export type FolderWrite =
  | { kind: 'file'; path: string; content: Buffer; executable: boolean; replaces?: KnownFile | null }
  | { kind: 'symlink'; path: string; target: string }
  | { kind: 'delete'; path: string };

/** Why a relative path cannot be written under root without following a link, or null. */
export function leadingLinkProblem(root: string, rel: string): string | null {
  return lookAt(root, rel).problem;
}

/** leadingLinkProblem's answer, and the entry at `rel` itself (lstat) when there is one. */
function lookAt(root: string, rel: string): { problem: string | null; entry: fs.Stats | null } {
  const parts = rel.split('/');
  let cur = root;
  for (const part of parts.slice(0, -1)) {
    cur = path.join(cur, part);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(cur);
    } catch {
      return { problem: null, entry: null }; // missing from here on: created as real folders
    }
    if (st.isSymbolicLink()) return { problem: `"${path.relative(root, cur)}" in your folder is a link; Berth never writes through links.`, entry: null };
    if (!st.isDirectory()) return { problem: `"${path.relative(root, cur)}" in your folder is a file, not a folder.`, entry: null };
  }
  const entry = fs.lstatSync(path.join(root, rel), { throwIfNoEntry: false }) ?? null;
  if (entry?.isDirectory()) return { problem: `"${rel}" in your folder is a folder; Berth does not replace folders.`, entry };
  return { problem: null, entry };
}

/** Creates the missing leading folders one by one (never following a link); returns those it made. */
function makeParents(root: string, rel: string, made: string[]): void {
  let cur = root;
  for (const part of rel.split('/').slice(0, -1)) {
    cur = path.join(cur, part);
    try {
      fs.mkdirSync(cur);
      made.push(cur);
      const dir = cur;
      const parent = fs.lstatSync(path.dirname(dir));
      giveTo((uid, gid) => fs.lchownSync(dir, uid, gid), fs.lstatSync(dir), { uid: parent.uid, gid: parent.gid }, false, path.relative(root, dir));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!fs.lstatSync(cur).isDirectory()) throw new Error(`${cur} is not a folder`, { cause: error });
    }
  }
}

/** The same file, unchanged, as when it was read: same inode, size and change times. */
function stillAsRead(now: fs.Stats | null, read: fs.Stats): boolean {
  return now !== null && now.isFile() && now.dev === read.dev && now.ino === read.ino && now.size === read.size && now.mtimeMs === read.mtimeMs && now.ctimeMs === read.ctimeMs;
}

/** Writes what a replaced file held back at `target`, with its owner and mode (through a new name renamed over whatever is there). */
function putBack(target: string, prev: KnownFile, tag: string): void {
  const temp = `${target}${tag}.back`;
  const fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
  try {
    fs.writeSync(fd, prev.data);
    fs.fchownSync(fd, prev.st.uid, prev.st.gid);
    fs.fchmodSync(fd, prev.st.mode & 0o7777);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, target);
}

/** Returns the folders it made (paths relative to root, parents first), for an undo to remove. */
export function applyWrites(root: string, writes: readonly FolderWrite[]): string[] {
  const tag = `.berth-apply-${randomBytes(4).toString('hex')}`;
  const staged: { target: string; temp: string | null; previous: KnownFile | null }[] = [];
  const madeDirs: string[] = [];
  const backups: { target: string; backup: string }[] = [];
  const done: string[] = [];
  const replaced: { target: string; previous: KnownFile }[] = [];
  try {
    // 1. Everything new is written beside its target first; nothing visible changes yet.
    for (const w of writes) {
      const { problem, entry: existing } = lookAt(root, w.path);
      if (problem) throw new Error(problem);
      const target = path.join(root, w.path);
      if (w.kind === 'delete') {
        staged.push({ target, temp: null, previous: null });
        continue;
      }
      makeParents(root, w.path, madeDirs);
      const temp = `${target}${tag}`;
      // The owner (and a file's mode) of what it replaces, or the folder's owner for a new entry.
      const owner = ownerFor(target, existing);
      if (w.kind === 'symlink') {
        fs.symlinkSync(w.target, temp);
        staged.push({ target, temp, previous: null });
        giveTo((uid, gid) => fs.lchownSync(temp, uid, gid), fs.lstatSync(temp), owner, existing !== null, w.path);
      } else {
        const fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, w.executable ? 0o755 : 0o644);
        staged.push({ target, temp, previous: w.replaces && stillAsRead(existing, w.replaces.st) ? w.replaces : null });
        try {
          fs.writeSync(fd, w.content);
          const made = fs.fstatSync(fd);
          giveTo((uid, gid) => fs.fchownSync(fd, uid, gid), made, owner, existing !== null, w.path);
          const mode = existing?.isFile() ? replacedFileMode(existing.mode, w.executable) : null;
          if (mode !== null && (made.mode & 0o7777) !== mode) fs.fchmodSync(fd, mode);
        } finally {
          fs.closeSync(fd);
        }
      }
    }
    // 2. Old versions move aside, new ones take their place (renames replace links, never follow them).
    for (const s of staged) {
      if (s.temp && s.previous) {
        // Still the file Berth read (checked when staged): its bytes are what a failure writes back.
        fs.renameSync(s.temp, s.target);
        replaced.push({ target: s.target, previous: s.previous });
        continue;
      }
      let exists = true;
      try {
        fs.lstatSync(s.target);
      } catch {
        exists = false;
      }
      if (exists) {
        const backup = `${s.target}${tag}.old`;
        fs.renameSync(s.target, backup);
        backups.push({ target: s.target, backup });
      }
      if (s.temp) {
        fs.renameSync(s.temp, s.target);
        done.push(s.target);
      }
    }
  } catch (error) {
    for (const r of replaced.reverse()) {
      try {
        putBack(r.target, r.previous, tag);
      } catch {
        /* best effort */
      }
    }
    for (const t of done) fs.rmSync(t, { force: true });
    for (const b of backups.reverse()) {
      try {
        fs.renameSync(b.backup, b.target);
      } catch {
        /* best effort */
      }
    }
    for (const s of staged) if (s.temp) fs.rmSync(s.temp, { force: true });
    for (const d of madeDirs.reverse()) {
      try {
        fs.rmdirSync(d);
      } catch {
        /* not empty: something else is in it now */
      }
    }
    throw new BerthError('review_failed', `Nothing was applied: ${(error as Error).message}`, { hint: 'Fix what the message names in your folder and apply again.' });
  }
  // unlink, not rmSync: rmSync's own lstat and checks were a fifth of writing 50 files (bench:review --hunks-only).
  for (const b of backups) {
    try {
      fs.unlinkSync(b.backup);
    } catch {
      fs.rmSync(b.backup, { force: true });
    }
  }
  return madeDirs.map((d) => path.relative(root, d));
}

/** Removes the folders an apply made (relative to root) that are empty now, deepest first. */
export function removeEmptyFolders(root: string, folders: readonly string[]): void {
  for (const rel of [...folders].sort((a, b) => b.length - a.length)) {
    if (leadingLinkProblem(root, `${rel}/x`) !== null) continue;
    try {
      fs.rmdirSync(path.join(root, rel));
    } catch {
      // Not empty (something else is in it now) or gone: left as it is.
    }
  }
}
