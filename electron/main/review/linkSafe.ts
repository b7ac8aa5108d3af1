/**
 * File access inside a chat's copy that never resolves a symbolic link at any path component.
 *
 * The copy is a host folder the running sandbox can change at any moment: a process in it can
 * swap a folder for a link to a host folder (renameat2 RENAME_EXCHANGE, tens of thousands of
 * times a second) and back. Any host-side access by path (git's `add -A`, `fs.readFile`,
 * git's checkout) checks a name and then opens it again, and between the two the name can
 * have become a link: git hashed a root-owned 0600 host file into a checkpoint in 16 of 230
 * checkpoints within 20 s (reviewRace.test.ts). So Berth walks the copy from directory file
 * descriptors instead: each name is opened relative to its already-opened parent with
 * O_NOFOLLOW. Node has no openat(2), but `/proc/self/fd/<fd>/<name>` is its equivalent on
 * Linux: the magic link resolves to the directory the descriptor holds, whatever its path is
 * now, and only `<name>` is looked up in it (O_NOFOLLOW refusing it if it is a link).
 * The copy is one bind mount, so a folder the sandbox renames while Berth holds it stays inside
 * the copy: the worst a race can do is make Berth read or write the chat's own files at another
 * place in its own copy.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK } = fs.constants;

/** The path that names `name` inside the directory `dirFd` holds, as openat(dirFd, name) would. */
export function at(dirFd: number, name: string): string {
  if (name === '' || name === '.' || name === '..' || name.includes('/')) throw new Error(`not a single name: ${JSON.stringify(name)}`);
  return `/proc/self/fd/${dirFd}/${name}`;
}

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

/** Opens a directory by its own path (Berth's: the copy's top, checked as Berth's own elsewhere), never through a final link. */
export function openRoot(dir: string): number {
  return fs.openSync(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK);
}

/** The directory `name` inside `dirFd`, or null when it is not one (a file, a link, missing). */
export function openDirAt(dirFd: number, name: string): number | null {
  try {
    return fs.openSync(at(dirFd, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const c = code(error);
    if (c === 'ENOENT' || c === 'ENOTDIR' || c === 'ELOOP') return null;
    throw error;
  }
}

export function closeQuietly(fd: number | null): void {
  if (fd === null) return;
  try {
    fs.closeSync(fd);
  } catch {
    /* already gone */
  }
}

export type Entry =
  | { kind: 'dir'; st: fs.Stats }
  | { kind: 'file'; st: fs.Stats }
  | { kind: 'link'; target: string; st: fs.Stats }
  | { kind: 'other' | 'missing' };

/** What `name` is inside `dirFd`, the name itself (lstat: a link is reported as a link, with what it holds). */
export function entryAt(dirFd: number, name: string): Entry {
  for (let attempt = 0; attempt < 5; attempt++) {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(at(dirFd, name));
    } catch (error) {
      if (code(error) === 'ENOENT' || code(error) === 'ENOTDIR') return { kind: 'missing' };
      throw error;
    }
    if (st.isDirectory()) return { kind: 'dir', st };
    if (st.isFile()) return { kind: 'file', st };
    if (!st.isSymbolicLink()) return { kind: 'other' };
    try {
      return { kind: 'link', target: fs.readlinkSync(at(dirFd, name)), st };
    } catch (error) {
      // Swapped for something else between the two calls: look again.
      if (code(error) !== 'EINVAL' && code(error) !== 'ENOENT') throw error;
    }
  }
  return { kind: 'other' };
}

export type FileRead = { kind: 'data'; data: Buffer; st: fs.Stats } | { kind: 'large'; size: number; st: fs.Stats } | { kind: 'changing' } | { kind: 'not-file' };

/**
 * The regular file `name` inside `dirFd`, read through one descriptor to its end, at most `cap`
 * bytes (more: 'large', not read). O_NONBLOCK: a FIFO put in its place cannot stop Berth.
 * A file that changed while it was read (its size, mtime or ctime moved) is read again, a few
 * times; one the chat keeps changing is 'changing' (listed, never a failure: a chat swapping a
 * file between 1 byte and 8 GiB made git's own read fail with "failed to read 16384 bytes").
 */
export function readFileAt(dirFd: number, name: string, cap: number, attempts = 4): FileRead {
  for (let attempt = 0; attempt < attempts; attempt++) {
    let fd: number;
    try {
      fd = fs.openSync(at(dirFd, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (error) {
      const c = code(error);
      if (c === 'ELOOP' || c === 'ENOENT' || c === 'ENOTDIR' || c === 'ENXIO') return { kind: 'not-file' };
      throw error;
    }
    try {
      const before = fs.fstatSync(fd);
      if (!before.isFile()) return { kind: 'not-file' };
      if (before.size > cap) return { kind: 'large', size: before.size, st: before };
      const chunks: Buffer[] = [];
      let total = 0;
      for (;;) {
        // Sized by fstat (one byte more, to meet the end in the same read); a file that grew meanwhile is read on in 64 KiB pieces.
        // A fixed 1 MiB buffer per read made taking a 1,000-file copy's shadow take 6 s instead of 1 s.
        const want = chunks.length === 0 ? before.size + 1 : 64 * 1024;
        const buf = Buffer.allocUnsafe(Math.max(1, Math.min(want, cap + 1 - total)));
        const n = fs.readSync(fd, buf, 0, buf.length, null);
        if (n === 0) break;
        chunks.push(n === buf.length ? buf : buf.subarray(0, n));
        total += n;
        if (total > cap) break;
        // Short of the buffer at the size fstat gave: the end, without a read more to meet it (the fstat after tells a file that grew).
        if (n < buf.length && total === before.size) break;
      }
      const after = fs.fstatSync(fd);
      const steady = after.size === before.size && after.mtimeMs === before.mtimeMs && after.ctimeMs === before.ctimeMs && total === after.size;
      if (!steady) continue;
      return { kind: 'data', data: Buffer.concat(chunks, total), st: after };
    } finally {
      fs.closeSync(fd);
    }
  }
  return { kind: 'changing' };
}

/**
 * How often a walk that makes folders looks again when the chat put something else in the way
 * meanwhile. A chat that swaps a folder for a link in a tight loop wins each look about half the
 * time: 5 looks lost all five once in a CI run of the restore race test (reviewRace), which ended
 * the restore with nothing to tell the user. 64 looks cost a few syscalls each and only while
 * something is in the way; losing all of them is 2^-64.
 */
const MAKE_ATTEMPTS = 64;

/**
 * The directory at `rel` (names joined by '/') under `rootFd`, each component opened with
 * O_NOFOLLOW. `make`: a missing component is made (owned by `owner`), and a file or link in the
 * way of one is removed first (as git's checkout would remove it); without it, null when a
 * component is not a directory.
 */
export function walkTo(rootFd: number, parts: readonly string[], make: { owner: Owner | null } | null): number | null {
  // A descriptor of its own for the root (the magic link reopens the directory it holds), so the walk may close every one it holds.
  let fd = fs.openSync(`/proc/self/fd/${rootFd}`, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
  for (const name of parts) {
    let next: number | null = null;
    for (let attempt = 0; attempt < MAKE_ATTEMPTS && next === null; attempt++) {
      next = openDirAt(fd, name);
      if (next !== null || !make) break;
      // Not a folder when looked at: unlinked if it is still no folder (a file or link, never
      // followed). Never removeAt: a folder swapped back in meanwhile would lose its content.
      unlinkUnlessFolder(fd, name);
      next = makeDirAt(fd, name, make.owner);
    }
    closeQuietly(fd);
    if (next === null) return null;
    fd = next;
  }
  return fd;
}

/** Unlinks `name` in `dirFd` unless it is a folder (or gone) by then. */
function unlinkUnlessFolder(dirFd: number, name: string): void {
  try {
    fs.unlinkSync(at(dirFd, name));
  } catch (error) {
    if (!['ENOENT', 'EISDIR', 'EPERM'].includes(code(error) ?? '')) throw error;
  }
}

/**
 * Makes the folder `name` in `dirFd`, with its owner, and opens it; null when it could not be put
 * there (a folder appeared in its place meanwhile: the caller looks again). The folder is made
 * under a fresh private name (root's, 0700), given its owner and mode through its descriptor, and
 * only then renamed to `name`: made under `name` and chowned after, a chat swapping `name` for a
 * link in between kept a folder of root's it could not write in (seen in the restore race test).
 */
function makeDirAt(dirFd: number, name: string, owner: Owner | null): number | null {
  const temp = `.berth-new-${randomBytes(8).toString('hex')}`;
  fs.mkdirSync(at(dirFd, temp), 0o700);
  const made = openDirAt(dirFd, temp);
  // Moved away already: an empty folder the chat can remove (its parent is the chat's).
  if (made === null) return null;
  try {
    if (owner) fs.fchownSync(made, owner.uid, owner.gid);
    fs.fchmodSync(made, 0o755);
    // rename replaces a file or link standing at `name` (never following it) and refuses a folder.
    fs.renameSync(at(dirFd, temp), at(dirFd, name));
    return made;
  } catch (error) {
    closeQuietly(made);
    try {
      fs.rmdirSync(at(dirFd, temp));
    } catch {
      // Gone or moved by the chat: it is the chat's own now.
    }
    if (['EEXIST', 'ENOTEMPTY', 'EISDIR', 'ENOTDIR'].includes(code(error) ?? '')) return null;
    throw error;
  }
}

export interface Owner {
  uid: number;
  gid: number;
}

/** Removes `name` inside `dirFd`: a file or link itself (never what a link names), a folder with all in it. */
export function removeAt(dirFd: number, name: string): void {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      fs.unlinkSync(at(dirFd, name));
      return;
    } catch (error) {
      const c = code(error);
      if (c === 'ENOENT') return;
      if (c !== 'EISDIR' && c !== 'EPERM') throw error;
    }
    const sub = openDirAt(dirFd, name);
    if (sub === null) continue;
    try {
      for (const child of fs.readdirSync(`/proc/self/fd/${sub}`)) removeAt(sub, child);
    } finally {
      fs.closeSync(sub);
    }
    try {
      fs.rmdirSync(at(dirFd, name));
      return;
    } catch (error) {
      const c = code(error);
      if (c === 'ENOENT') return;
      if (c !== 'ENOTEMPTY' && c !== 'ENOTDIR') throw error;
    }
  }
  throw new KeepsChanging(`could not remove "${name}": the chat keeps changing it`);
}

/** A folder Berth could not remove because a process of the chat kept adding to it. */
export class KeepsChanging extends Error {}

/** Removes the folder `name` inside `dirFd` only if it is empty (git removes a folder its checkout emptied). */
export function removeIfEmptyAt(dirFd: number, name: string): void {
  try {
    fs.rmdirSync(at(dirFd, name));
  } catch {
    /* not empty, not a folder, gone: left as it is */
  }
}

export type NewEntry = { kind: 'file'; data: Buffer; mode: number; mtime: Date } | { kind: 'link'; target: string };

/**
 * Puts `entry` at `name` inside `dirFd`: written under a fresh name made with O_EXCL|O_NOFOLLOW
 * (nothing the chat placed can be written through), owned by `owner`, then renamed over the
 * name (a file or link there is replaced itself, a folder removed first).
 */
export function writeAt(dirFd: number, name: string, entry: NewEntry, owner: Owner | null): void {
  const tmp = `.berth-write-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  if (entry.kind === 'file') {
    const fd = fs.openSync(at(dirFd, tmp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK, 0o600);
    try {
      let off = 0;
      while (off < entry.data.length) off += fs.writeSync(fd, entry.data, off, entry.data.length - off);
      if (owner) fs.fchownSync(fd, owner.uid, owner.gid);
      fs.fchmodSync(fd, entry.mode);
      fs.futimesSync(fd, entry.mtime, entry.mtime);
    } finally {
      fs.closeSync(fd);
    }
  } else {
    fs.symlinkSync(entry.target, at(dirFd, tmp));
    if (owner) fs.lchownSync(at(dirFd, tmp), owner.uid, owner.gid);
  }
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        fs.renameSync(at(dirFd, tmp), at(dirFd, name));
        return;
      } catch (error) {
        const c = code(error);
        if (attempt >= 4 || (c !== 'EISDIR' && c !== 'ENOTEMPTY' && c !== 'EEXIST' && c !== 'ENOTDIR')) throw error;
        removeAt(dirFd, name);
      }
    }
  } catch (error) {
    try {
      fs.unlinkSync(at(dirFd, tmp));
    } catch {
      /* renamed or gone */
    }
    throw error;
  }
}

/** The names in the directory `dirFd` holds (read through the magic link: that directory, whatever its path is now). */
export function listAt(dirFd: number): string[] {
  return fs.readdirSync(`/proc/self/fd/${dirFd}`);
}

/**
 * Moves `fromName` inside `fromFd` to `toName` inside `toFd`, as renameat(2) would (Node has
 * none): each magic link resolves to the directory its descriptor holds, so a swap of either
 * directory's path cannot redirect the move, and rename never follows the names themselves.
 */
export function renameAt(fromFd: number, fromName: string, toFd: number, toName: string): void {
  fs.renameSync(at(fromFd, fromName), at(toFd, toName));
}

/** Makes the folder `name` inside `dirFd` (mkdir never follows a link in its place: EEXIST) and opens it. */
export function mkdirAt(dirFd: number, name: string, mode: number): number {
  fs.mkdirSync(at(dirFd, name), mode);
  const fd = openDirAt(dirFd, name);
  if (fd === null) throw new Error(`the folder "${name}" Berth had just made was replaced`);
  return fd;
}

/**
 * Removes `name` inside `dirFd` with all in it, never through a link (removeAt); false when a
 * process that stands in it kept adding to it, and what is left stays where it is.
 */
export function removeTreeAt(dirFd: number, name: string): boolean {
  try {
    removeAt(dirFd, name);
    return true;
  } catch (error) {
    if (error instanceof KeepsChanging) return false;
    throw error;
  }
}

/** removeTreeAt for a folder given by its path, whose parent is Berth's own (only its last name is one the chat may reach). */
export function removeTree(dir: string): boolean {
  let parent: number;
  try {
    parent = openRoot(path.dirname(dir));
  } catch (error) {
    if (code(error) === 'ENOENT') return true;
    throw error;
  }
  try {
    return removeTreeAt(parent, path.basename(dir));
  } finally {
    closeQuietly(parent);
  }
}
