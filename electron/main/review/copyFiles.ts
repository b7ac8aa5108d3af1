/**
 * The file work of making a Review-mode copy: walking a folder under the file cap, copying files
 * and links as they are, reading a git index's entry count.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import { REVIEW_LIMITS } from '../../../shared/review.js';

export function tooManyFiles(hostPath: string, limit: number = REVIEW_LIMITS.maxCopyFiles): BerthError {
  return new BerthError('review_too_large', `"${hostPath}" holds more than ${limit.toLocaleString('en-US')} files, more than a Review-mode copy takes.`, {
    hint: 'Attach a smaller folder, or attach this one read-write or read-only.',
  });
}

/**
 * Every file and link under a folder (relative paths), never following links. The walk streams
 * (one directory handle at a time, the event loop free between entries) and stops at the first
 * entry over the limit: a folder of a million files is refused after reading that many names,
 * never all of them, and Berth's other chats keep running meanwhile.
 */
export async function scanFolder(root: string, limit: number = REVIEW_LIMITS.maxCopyFiles, progress?: (files: number) => void): Promise<string[]> {
  const out: string[] = [];
  const dirs: string[] = [''];
  while (dirs.length > 0) {
    const rel = dirs.pop() as string;
    // Leaving the loop early (the throw below) closes the handle.
    for await (const d of await fs.promises.opendir(path.join(root, rel), { bufferSize: 256 })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) dirs.push(r);
      else if (d.isFile() || d.isSymbolicLink()) {
        out.push(r);
        if (out.length > limit) throw tooManyFiles(root, limit);
        if (progress && out.length % 20_000 === 0) progress(out.length);
      }
    }
  }
  return out;
}

/** The entry count in a git index file's header ("DIRC", version, count), or null when it is not one. */
export function indexEntryCount(file: string): number | null {
  let fd: number | null = null;
  try {
    fd = fs.openSync(file, 'r');
    const head = Buffer.alloc(12);
    if (fs.readSync(fd, head, 0, 12, 0) !== 12 || head.toString('latin1', 0, 4) !== 'DIRC') return null;
    return head.readUInt32BE(8);
  } catch {
    return null;
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

/** Copies one file (copy-on-write where the filesystem can) or link (as a link), keeping mtime and mode. */
export function copyEntry(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  const st = fs.lstatSync(from);
  if (st.isSymbolicLink()) {
    fs.symlinkSync(fs.readlinkSync(from), to);
    return;
  }
  if (!st.isFile()) return;
  fs.copyFileSync(from, to, fs.constants.COPYFILE_FICLONE);
  fs.chmodSync(to, st.mode & 0o777);
  fs.utimesSync(to, st.atime, st.mtime);
}

/**
 * Copies a folder's files (copy-on-write where the filesystem can, else a real copy; never a
 * hard link), links as links, skipping what `skip` names; the event loop runs between batches.
 */
export async function copyTree(from: string, to: string, skip: (rel: string) => boolean): Promise<void> {
  const dirs: string[] = [''];
  let n = 0;
  fs.mkdirSync(to, { recursive: true, mode: 0o755 });
  while (dirs.length > 0) {
    const rel = dirs.pop() as string;
    for (const d of fs.readdirSync(path.join(from, rel), { withFileTypes: true })) {
      const r = rel ? path.join(rel, d.name) : d.name;
      if (skip(r)) continue;
      if (d.isDirectory()) {
        fs.mkdirSync(path.join(to, r), { mode: 0o755 });
        dirs.push(r);
      } else if (d.isFile() || d.isSymbolicLink()) {
        copyEntry(path.join(from, r), path.join(to, r));
        if (++n % 200 === 0) await breather();
      }
    }
  }
}

/**
 * Lets the event loop run between batches of synchronous copies: the progress just emitted
 * reaches the page, and the other chats' terminals keep flowing while a big folder is copied.
 */
export function breather(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
