/**
 * A folder's copy on an engine whose files are not this computer's: filled from the host
 * folder through the engine's archive calls (putArchive into a volume), read back the same way
 * (getArchive), and brought to the host only by an explicit apply. Small on purpose, so Review
 * mode can use the same mechanism: copy out, let the chat work on the copy, list the
 * changes, apply the ones the user accepts.
 *
 * The copy that comes back is untrusted (the sandbox wrote it): regular files, folders and links
 * are read from it, links as links (never followed, never written through), and applying never
 * follows a link on the host.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import tarFs, { type TarHeader } from 'tar-fs';
import type { Engine } from '../engine/dockerEngine.js';
import { MIRROR_LIMITS, mirrorVerdict, type MirrorCount, type MirrorLimits } from '../policy/mirrorLimits.js';

export interface CopyPlace {
  engine: Engine;
  /** A container (created or running) that mounts the copy's volume at containerPath. */
  containerId: string;
  containerPath: string;
}

export interface Change {
  /** Relative to the folder, with '/' separators. */
  path: string;
  kind: 'added' | 'modified' | 'deleted';
}

/** Host folder → the copy, every entry owned by the sandbox user (the volume's root too). */
export async function fillCopy(place: CopyPlace, hostDir: string, owner: { uid: number; gid: number }): Promise<void> {
  // Unpacked into the parent under the folder's own name: the engine then owns the volume's
  // root to the sandbox user too (an archive's "." entry at the path itself is not chowned).
  const base = path.posix.basename(place.containerPath);
  const pack = tarFs.pack(hostDir, {
    map: (header) => ({
      ...header,
      name: header.name === '.' ? base : `${base}/${header.name}`,
      uid: owner.uid,
      gid: owner.gid,
      uname: '',
      gname: '',
    }),
  });
  await place.engine.putArchive(place.containerId, path.posix.dirname(place.containerPath), pack);
}

/** An empty folder owned by the sandbox user at containerPath (a fresh volume's root is root's). */
export async function ownCopyRoot(place: CopyPlace, owner: { uid: number; gid: number }, scratch: string): Promise<void> {
  const empty = fs.mkdtempSync(path.join(scratch, 'empty-'));
  try {
    await fillCopy(place, empty, owner);
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
}

/** A file over the per-file cap: what the archive says of it (its bytes were never written here). */
export interface TooLargeEntry {
  size: number;
  mode: number;
  mtime: Date;
}

/** What fetchCopy brought: the folder, and the files it left out because the copy here already has them. */
export interface FetchedCopy {
  dir: string;
  /** Files whose size, mode and time match the copy here (relative, '/'): the same, not fetched again. */
  unchanged: Set<string>;
  /** Files over Review's per-file cap (relative, '/'): listed, never written (mirrorLimits). */
  tooLarge: Map<string, TooLargeEntry>;
  /**
   * Null when the whole archive was read. Else the entry at which the stream was stopped (a
   * per-copy cap would have passed): it and every entry after it were not read, so mirrorCopy
   * removes nothing here.
   */
  stoppedAt: string | null;
}

/** Destroys the archive stream at a cap: pipeline's rejection that follows is the stop, not a failure. */
class MirrorStop extends Error {}

/** Files changed this recently are compared in full: a second write within one timestamp keeps its time. */
const RACY_WINDOW_MS = 2_000;

/**
 * The copy → a fresh local folder under scratch: its files, folders and symbolic links. A link
 * is recorded as the archive names it and made (never followed) only once every file is
 * written, where its parent is a real folder of the fetched tree and nothing else is: so no
 * later entry of the archive can be written through it. Hard links and devices are left out.
 *
 * With `current` (the copy here, which mirrorCopy wrote with the engine's file times), a
 * regular file whose size, mode and modification time equal the one here is not written out
 * (rsync's quick check), unless its time is within the last moments (git's "racily clean"
 * rule); mirrorCopy then leaves it alone. Only changed entries cost a write and a compare.
 */
export async function fetchCopy(place: CopyPlace, scratch: string, current?: string, limits: MirrorLimits = MIRROR_LIMITS): Promise<FetchedCopy> {
  const into = path.join(scratch, `copy-${randomBytes(6).toString('hex')}`);
  fs.mkdirSync(into, { recursive: true, mode: 0o700 });
  const stream = await place.engine.getArchive(place.containerId, place.containerPath);
  const links: { name: string; target: string }[] = [];
  const unchanged = new Set<string>();
  const tooLarge = new Map<string, TooLargeEntry>();
  const count: MirrorCount = { entries: 0, bytes: 0 };
  let stoppedAt: string | null = null;
  const racyAfter = Date.now() - RACY_WINDOW_MS;
  // The archive names entries under the path's last component: strip it.
  const strip = (name: string) => name.split('/').slice(1).join('/') || '.';
  const sameHere = (header: TarHeader): boolean => {
    if (current === undefined || header.type !== 'file' || !header.mtime || header.size === undefined) return false;
    const rel = path.posix.normalize(header.name);
    if (rel.startsWith('../') || path.posix.isAbsolute(rel) || throughLink(current, rel)) return false;
    const here = fs.lstatSync(path.join(current, rel), { throwIfNoEntry: false });
    const mtime = header.mtime.getTime();
    return (
      here !== undefined &&
      here.isFile() &&
      here.size === header.size &&
      ((here.mode ^ (header.mode ?? 0)) & 0o777) === 0 &&
      Math.floor(here.mtimeMs / 1000) === Math.floor(mtime / 1000) &&
      mtime < racyAfter
    );
  };
  const extract = tarFs.extract(into, {
    // Called after map: the header's name is already relative to the copy.
    ignore: (_name, header) => {
      if (!header || stoppedAt !== null) return true;
      // Review's caps, counted from the archive's own sizes before a byte of the entry is read.
      const { verdict, tooLarge: over } = mirrorVerdict(count, { type: header.type ?? '', size: header.size ?? 0 }, limits);
      const rel = path.posix.normalize(header.name);
      if (over) tooLarge.set(rel, { size: header.size ?? 0, mode: header.mode ?? 0o644, mtime: header.mtime ?? new Date() });
      if (verdict === 'stop') {
        stoppedAt = rel;
        // pipeline then destroys the archive stream too: nothing more is read from the engine.
        extract.destroy(new MirrorStop(rel));
        return true;
      }
      count.entries += 1;
      if (header.type === 'file') count.bytes += header.size ?? 0;
      // Skipped: tar-fs reads past its bytes without writing them (the stream cap bounds how many).
      if (verdict === 'too_large') return true;
      if (header.type === 'symlink') links.push({ name: header.name, target: header.linkname ?? '' });
      if (header && sameHere(header)) {
        unchanged.add(path.posix.normalize(header.name));
        return true;
      }
      return header?.type !== 'file' && header?.type !== 'directory';
    },
    map: (header) => ({ ...header, name: strip(header.name) }),
    chown: false,
    dmode: 0o700,
    fmode: 0o600,
  });
  try {
    await pipeline(stream, extract);
  } catch (error) {
    if (stoppedAt === null) throw error;
  }
  for (const link of links) {
    const rel = path.posix.normalize(link.name);
    if (rel === '.' || rel.startsWith('../') || path.posix.isAbsolute(rel) || link.target === '' || link.target.includes('\0')) continue;
    if (throughLink(into, rel) || fs.lstatSync(path.join(into, rel), { throwIfNoEntry: false })) continue;
    try {
      fs.symlinkSync(link.target, path.join(into, rel));
    } catch {
      // Its folder is not in the archive: a link with nowhere to go is left out, like the rest of a broken archive.
    }
  }
  return { dir: into, unchanged, tooLarge, stoppedAt };
}

function walk(root: string, rel = ''): Map<string, fs.Stats> {
  const out = new Map<string, fs.Stats>();
  let names: string[];
  try {
    names = fs.readdirSync(path.join(root, rel));
  } catch {
    return out;
  }
  for (const name of names) {
    const r = rel ? `${rel}/${name}` : name;
    const st = fs.lstatSync(path.join(root, r));
    if (st.isDirectory()) for (const [k, v] of walk(root, r)) out.set(k, v);
    else if (st.isFile()) out.set(r, st);
  }
  return out;
}

/** Read in chunks of this size: a file is never held whole (a Buffer cannot hold more than 2 GiB). */
const CHUNK = 1024 * 1024;
/** Two chunks, allocated once (every reader of them is synchronous): zeroing 2 MiB per file compared made `npm run bench:mirror` full 1,326 ms against 914 ms. */
const chunks = [Buffer.allocUnsafe(CHUNK), Buffer.allocUnsafe(CHUNK)] as const;

/** Calls `each` with successive chunks of a file; stops when it returns false. */
function eachChunk(fd: number, buffer: Buffer, each: (chunk: Buffer, at: number) => boolean): void {
  for (let at = 0; ; ) {
    const n = fs.readSync(fd, buffer, 0, buffer.length, at);
    if (n === 0 || !each(buffer.subarray(0, n), at)) return;
    at += n;
  }
}

function digest(file: string): string {
  const hash = createHash('sha256');
  const fd = fs.openSync(file, 'r');
  try {
    eachChunk(fd, chunks[0], (chunk) => {
      hash.update(chunk);
      return true;
    });
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}

/** What the copy changed against the host folder, files only, sorted by path. */
export function diffCopy(hostDir: string, copyDir: string): Change[] {
  const host = walk(hostDir);
  const copy = walk(copyDir);
  const changes: Change[] = [];
  for (const [rel, st] of copy) {
    const h = host.get(rel);
    if (!h) changes.push({ path: rel, kind: 'added' });
    else if (h.size !== st.size || digest(path.join(hostDir, rel)) !== digest(path.join(copyDir, rel))) changes.push({ path: rel, kind: 'modified' });
  }
  for (const rel of host.keys()) if (!copy.has(rel)) changes.push({ path: rel, kind: 'deleted' });
  return changes.sort((a, b) => a.path.localeCompare(b.path));
}

/** The host folder's real path must contain the file's real parent: no link leads out of it. */
function insideHost(realHost: string, file: string): boolean {
  const parent = fs.realpathSync(path.dirname(file));
  return parent === realHost || parent.startsWith(realHost + path.sep);
}

/**
 * Brings the given changes to the host folder: files written whole (temp file + rename),
 * deletions of regular files only. A change whose host path leads through a link out of the
 * folder is refused and reported, never followed. Returns the paths it could not apply.
 */
export function applyChanges(hostDir: string, copyDir: string, changes: readonly Change[]): { applied: string[]; refused: string[] } {
  const realHost = fs.realpathSync(hostDir);
  const applied: string[] = [];
  const refused: string[] = [];
  for (const change of changes) {
    const rel = change.path;
    const target = path.join(realHost, ...rel.split('/'));
    if (rel.split('/').some((part) => part === '..' || part === '')) {
      refused.push(rel);
      continue;
    }
    try {
      if (change.kind === 'deleted') {
        if (!insideHost(realHost, target)) throw new Error('outside');
        const st = fs.lstatSync(target, { throwIfNoEntry: false });
        if (st?.isFile()) fs.unlinkSync(target);
      } else {
        // Create missing folders one level at a time, checking each is a real folder inside.
        const parts = rel.split('/').slice(0, -1);
        let dir = realHost;
        for (const part of parts) {
          dir = path.join(dir, part);
          const st = fs.lstatSync(dir, { throwIfNoEntry: false });
          if (!st) fs.mkdirSync(dir);
          else if (!st.isDirectory()) throw new Error('not a folder');
        }
        if (!insideHost(realHost, target)) throw new Error('outside');
        const existing = fs.lstatSync(target, { throwIfNoEntry: false });
        if (existing && !existing.isFile()) throw new Error('not a file');
        const temp = path.join(path.dirname(target), `.berth-apply-${randomBytes(4).toString('hex')}`);
        fs.copyFileSync(path.join(copyDir, ...rel.split('/')), temp);
        if (existing) fs.chmodSync(temp, existing.mode & 0o7777);
        fs.renameSync(temp, target);
      }
      applied.push(rel);
    } catch {
      refused.push(rel);
    }
  }
  return { applied, refused };
}

/** Entries of a folder without following links: relative path → lstat, folders before their contents. */
function entries(root: string, rel = '', out = new Map<string, fs.Stats>()): Map<string, fs.Stats> {
  let names: string[];
  try {
    names = fs.readdirSync(path.join(root, rel));
  } catch {
    return out;
  }
  for (const name of names.sort()) {
    const r = rel ? `${rel}/${name}` : name;
    const st = fs.lstatSync(path.join(root, r));
    out.set(r, st);
    if (st.isDirectory()) entries(root, r, out);
  }
  return out;
}

/** Sizes first, then the bytes chunk by chunk, stopping at the first difference. */
function sameFile(a: string, b: string, sizeA: number, sizeB: number): boolean {
  if (sizeA !== sizeB) return false;
  const fa = fs.openSync(a, 'r');
  try {
    const fb = fs.openSync(b, 'r');
    try {
      const other = chunks[1];
      let same = true;
      eachChunk(fa, chunks[0], (chunk, at) => {
        const n = fs.readSync(fb, other, 0, chunk.length, at);
        same = n === chunk.length && chunk.equals(other.subarray(0, n));
        return same;
      });
      return same && fs.readSync(fb, other, 0, 1, sizeA) === 0;
    } finally {
      fs.closeSync(fb);
    }
  } finally {
    fs.closeSync(fa);
  }
}

/** Whether a path under root passes through a link (checked component by component, never followed). */
function throughLink(root: string, rel: string): boolean {
  const parts = rel.split('/');
  let at = root;
  for (const part of parts.slice(0, -1)) {
    at = path.join(at, part);
    try {
      if (!fs.lstatSync(at).isDirectory()) return true;
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * A fetched copy (fetchCopy: files, folders and links) → a folder on this computer, so that its
 * entries become the fetched ones: changed files are replaced (written beside and renamed in),
 * missing ones added, ones the copy no longer has removed; links are made as links with the
 * target the sandbox gave (never followed, never resolved: Review decides whether one may be
 * applied, policy/reviewPolicy). Nothing is written through a link: an entry whose folder here
 * is a link is skipped. New entries get the folder's owner when Berth runs as root.
 *
 * A file over the per-file cap (`fetched.tooLarge`) becomes a file of its size here with no
 * data in it (sparse: no blocks), which Review lists as too large, as in a local copy, and never
 * reads. A fetch that stopped at a cap (`fetched.stoppedAt`) saw only part of the copy: nothing
 * here is removed then.
 */
export function mirrorCopy(
  fetchedDir: string,
  targetDir: string,
  unchanged: ReadonlySet<string> = new Set(),
  fetched: Partial<Pick<FetchedCopy, 'tooLarge' | 'stoppedAt'>> = {},
): void {
  const from = entries(fetchedDir);
  const to = entries(targetDir);
  const root = fs.statSync(targetDir);
  const own = (p: string) => {
    if (process.getuid?.() === 0) fs.lchownSync(p, root.uid, root.gid);
  };
  const tooLarge = fetched.tooLarge ?? new Map<string, TooLargeEntry>();
  for (const [rel, st] of from) {
    if (throughLink(targetDir, rel)) continue;
    const dest = path.join(targetDir, rel);
    const have = to.get(rel);
    if (st.isDirectory()) {
      if (have?.isDirectory()) continue;
      if (have) fs.rmSync(dest, { force: true });
      fs.mkdirSync(dest, { mode: st.mode & 0o7777 });
      own(dest);
      continue;
    }
    if (st.isSymbolicLink()) {
      const linkTarget = fs.readlinkSync(path.join(fetchedDir, rel));
      if (have?.isSymbolicLink() && fs.readlinkSync(dest) === linkTarget) continue;
      // Made beside and renamed in: a rename replaces a link or file, never follows it.
      const temp = `${dest}.berth-${randomBytes(4).toString('hex')}`;
      fs.symlinkSync(linkTarget, temp);
      own(temp);
      if (have?.isDirectory()) fs.rmSync(dest, { recursive: true, force: true });
      fs.renameSync(temp, dest);
      continue;
    }
    const src = path.join(fetchedDir, rel);
    if (have?.isFile() && sameFile(src, dest, st.size, have.size)) {
      if ((have.mode & 0o777) !== (st.mode & 0o777)) fs.chmodSync(dest, st.mode & 0o777);
      // Same bytes: its time becomes the engine's, so the next fetch skips it.
      if (have.mtimeMs !== st.mtimeMs) fs.utimesSync(dest, st.atime, st.mtime);
      continue;
    }
    if (have?.isDirectory()) fs.rmSync(dest, { recursive: true, force: true });
    const temp = `${dest}.berth-${randomBytes(4).toString('hex')}`;
    fs.copyFileSync(src, temp);
    fs.chmodSync(temp, st.mode & 0o777);
    // The engine's time, so the next fetch can tell this file has not changed since (fetchCopy).
    fs.utimesSync(temp, st.atime, st.mtime);
    own(temp);
    fs.renameSync(temp, dest);
  }
  for (const [rel, entry] of tooLarge) {
    if (rel === '.' || rel.startsWith('../') || path.posix.isAbsolute(rel) || throughLink(targetDir, rel)) continue;
    const dest = path.join(targetDir, rel);
    if (!fs.lstatSync(path.dirname(dest), { throwIfNoEntry: false })?.isDirectory()) continue;
    const have = to.get(rel);
    if (have?.isFile() && have.size === entry.size && Math.floor(have.mtimeMs / 1000) === Math.floor(entry.mtime.getTime() / 1000)) continue;
    const temp = `${dest}.berth-${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(temp, '', { mode: 0o600, flag: 'wx' });
    try {
      fs.truncateSync(temp, entry.size);
    } catch {
      // Larger than a file here may be (EFBIG): one byte over the cap is listed the same way.
      fs.truncateSync(temp, MIRROR_LIMITS.maxFileBytes + 1);
    }
    fs.chmodSync(temp, entry.mode & 0o777);
    fs.utimesSync(temp, entry.mtime, entry.mtime);
    own(temp);
    if (have?.isDirectory()) fs.rmSync(dest, { recursive: true, force: true });
    fs.renameSync(temp, dest);
  }
  // Part of the copy was not read: what is here and was not seen may still be there.
  if (fetched.stoppedAt) return;
  // Deepest first, so a folder's contents go before it.
  for (const [rel, st] of [...to].reverse()) {
    if (from.has(rel) || unchanged.has(rel) || tooLarge.has(rel) || throughLink(targetDir, rel)) continue;
    const dest = path.join(targetDir, rel);
    if (st.isDirectory()) {
      // A folder the copy no longer has goes once it is empty (what the copy keeps in it stays).
      if (fs.readdirSync(dest).length === 0) fs.rmdirSync(dest);
    } else fs.rmSync(dest, { force: true });
  }
}
