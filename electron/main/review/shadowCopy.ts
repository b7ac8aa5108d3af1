/**
 * The shadow of a chat's copy: a folder only Berth can reach (under the copy's own 0700 folder
 * in Berth's data dir, never mounted) that holds what the copy held the last time Berth looked,
 * taken with review/linkSafe's walk. Every git command Berth runs on a copy (add -A for a
 * checkpoint or a listing, read-tree -u for Undo, Restore, Discard and Refresh) runs with the
 * shadow as its work tree, so git itself never looks up a path the sandbox can change, and it
 * keeps its own rules (ignore files, the index's stat cache, renames) unchanged.
 *
 * Reading (syncToShadow): only files whose size, mtime or executable bit differ from the
 * shadow's are read again (the shadow keeps the copy's mtimes, so git's index stays a valid
 * cache of both); a file over the per-file cap, or one the chat keeps changing, is a sparse
 * placeholder of its size (over the cap: Berth lists it as too large and never hashes it).
 * Writing (writeBack): git writes the shadow, then each path that changed is put into the copy
 * with linkSafe's writes, owned by the copy's owner (the sandbox user), with the shadow's mtime.
 *
 * Cost, measured on this machine (npm run bench:review -- --checkpoints, ext4, 2 shared cores):
 * see README "Review mode: reading a copy while the chat runs"; a copy's shadow takes as much
 * disk as the copy's files under the per-file cap.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import type { RawChange } from '../policy/reviewPolicy.js';
import { breather } from './copyFiles.js';
import { closeQuietly, entryAt, openDirAt, openRoot, readFileAt, removeAt, removeIfEmptyAt, walkTo, writeAt, type Owner } from './linkSafe.js';

/** A file the chat keeps changing while Berth reads it: over every cap, so it is listed as too large this time, never hashed. */
function placeholder(file: string, size: number, mtime: Date | number): void {
  removeShadowEntry(file, 'file');
  const fd = fs.openSync(file, 'w', 0o644);
  try {
    fs.ftruncateSync(fd, size);
  } finally {
    fs.closeSync(fd);
  }
  fs.utimesSync(file, mtime, mtime);
}

/** Removes whatever is at `file` in the shadow unless it is of `keep`'s kind. */
function removeShadowEntry(file: string, keep: 'file' | 'dir' | 'none'): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch {
    return;
  }
  if ((keep === 'file' && st.isFile()) || (keep === 'dir' && st.isDirectory())) return;
  fs.rmSync(file, { recursive: true, force: true });
}

function execBit(mode: number): boolean {
  return (mode & 0o100) !== 0;
}

/** Same size, mtime (to the millisecond the shadow can keep) and executable bit: the shadow holds these bytes already. */
function unchanged(copy: fs.Stats, shadow: fs.Stats | undefined): boolean {
  return Boolean(shadow?.isFile() && shadow.size === copy.size && Math.abs(shadow.mtimeMs - copy.mtimeMs) < 1 && execBit(shadow.mode) === execBit(copy.mode));
}

/**
 * What a sync saw: whether it changed the shadow, and the newest ctime among the shadow's entries
 * as it found them (its folders included): a change anyone else made to the shadow since a
 * moment is newer than that moment (review/snapshotMemo).
 */
export interface ShadowLook {
  changed: boolean;
  newestCtimeMs: number;
}

/** Makes the shadow hold what the copy holds now, read without following any link. The copy's own top-level .git is never read. */
export async function syncToShadow(copyRoot: string, shadowRoot: string, cap: number): Promise<ShadowLook> {
  fs.mkdirSync(shadowRoot, { recursive: true, mode: 0o700 });
  const look: ShadowLook = { changed: false, newestCtimeMs: fs.lstatSync(shadowRoot).ctimeMs };
  const rootFd = openRoot(copyRoot);
  const stack: { fd: number; shadow: string; top: boolean; gitDir: boolean }[] = [{ fd: rootFd, shadow: shadowRoot, top: true, gitDir: false }];
  let seen = 0;
  try {
    while (stack.length > 0) {
      const dir = stack.pop()!;
      try {
        const shadowNow = new Map<string, fs.Stats>();
        for (const name of fs.readdirSync(dir.shadow)) {
          const st = fs.lstatSync(path.join(dir.shadow, name));
          shadowNow.set(name, st);
          if (st.ctimeMs > look.newestCtimeMs) look.newestCtimeMs = st.ctimeMs;
        }
        const keep = new Set<string>();
        for (const name of fs.readdirSync(`/proc/self/fd/${dir.fd}`)) {
          if (dir.top && name === '.git') continue;
          // A nested repository's .git: git reads its HEAD and refs to list it as a submodule; its objects are never needed.
          if (dir.gitDir && name === 'objects') {
            keep.add(name);
            if (!shadowNow.get(name)?.isDirectory()) look.changed = true;
            fs.mkdirSync(path.join(dir.shadow, name), { recursive: true });
            continue;
          }
          if (++seen % 500 === 0) await breather();
          const target = path.join(dir.shadow, name);
          const e = entryAt(dir.fd, name);
          if (e.kind === 'dir') {
            const fd = openDirAt(dir.fd, name);
            keep.add(name);
            // Swapped for something else since: the shadow keeps what it had for it this time (not looked into: counted as a change).
            if (fd === null) {
              look.changed = true;
              continue;
            }
            if (!shadowNow.get(name)?.isDirectory()) look.changed = true;
            removeShadowEntry(target, 'dir');
            fs.mkdirSync(target, { recursive: true, mode: 0o755 });
            stack.push({ fd, shadow: target, top: false, gitDir: name === '.git' });
          } else if (e.kind === 'link') {
            keep.add(name);
            const was = shadowNow.get(name);
            if (was?.isSymbolicLink() && fs.readlinkSync(target) === e.target) continue;
            look.changed = true;
            removeShadowEntry(target, 'none');
            fs.symlinkSync(e.target, target);
          } else if (e.kind === 'file') {
            keep.add(name);
            if (unchanged(e.st, shadowNow.get(name))) continue;
            look.changed = true;
            takeFile(dir.fd, name, target, cap);
          }
          // Anything else (a FIFO, a socket, a device) git would not take either.
        }
        for (const name of shadowNow.keys()) {
          if (keep.has(name)) continue;
          look.changed = true;
          fs.rmSync(path.join(dir.shadow, name), { recursive: true, force: true });
        }
      } finally {
        closeQuietly(dir.fd);
      }
    }
  } finally {
    for (const d of stack) closeQuietly(d.fd);
  }
  return look;
}

function takeFile(dirFd: number, name: string, target: string, cap: number): void {
  const r = readFileAt(dirFd, name, cap);
  if (r.kind === 'data') {
    removeShadowEntry(target, 'file');
    // One descriptor for the write, the mode and the time: each path lookup more cost about a tenth of a cold look.
    const fd = fs.openSync(target, 'w', 0o644);
    try {
      for (let off = 0; off < r.data.length; ) off += fs.writeSync(fd, r.data, off, r.data.length - off);
      fs.fchmodSync(fd, execBit(r.st.mode) ? 0o755 : 0o644);
      fs.futimesSync(fd, r.st.atime, r.st.mtime);
    } finally {
      fs.closeSync(fd);
    }
  } else if (r.kind === 'large') {
    placeholder(target, r.size, r.st.mtime);
  } else if (r.kind === 'changing') {
    // mtime 0: read again next time, when it may have settled.
    placeholder(target, cap + 1, 0);
  }
  // 'not-file': it stopped being a file between the look and the read; the shadow keeps what it had.
}

/** Removes paths from both the copy (link-safe) and its shadow: files too large to track, which a discard drops. */
export function removeFromBoth(copyRoot: string, shadowRoot: string, paths: readonly string[]): void {
  writeBack(copyRoot, shadowRoot, paths.map((p) => ({ path: p, deleted: true })));
  for (const p of paths) fs.rmSync(path.join(shadowRoot, p), { recursive: true, force: true });
}

/** What git changed in the shadow, as a list of paths for writeBack. */
export function changedPaths(changes: readonly RawChange[]): { path: string; deleted: boolean }[] {
  return changes.flatMap((c) => [...(c.oldPath ? [{ path: c.oldPath, deleted: true }] : []), { path: c.path, deleted: c.status === 'deleted' }]);
}

/**
 * Puts the shadow's entries at `paths` into the copy, never through a link: removals first
 * (deepest first, emptied folders with them, as git's checkout does), then writes. What is
 * written is the copy's owner's (the sandbox user's) and keeps the shadow's mtime, so the next
 * look reads none of it again.
 */
export function writeBack(copyRoot: string, shadowRoot: string, paths: readonly { path: string; deleted: boolean }[]): void {
  const rootFd = openRoot(copyRoot);
  try {
    const top = fs.fstatSync(rootFd);
    const owner: Owner | null = top.uid === process.getuid?.() ? null : { uid: top.uid, gid: top.gid };
    const removals = paths.filter((p) => p.deleted).map((p) => p.path).sort((a, b) => b.split('/').length - a.split('/').length);
    for (const p of removals) {
      const parts = p.split('/');
      const parent = walkTo(rootFd, parts.slice(0, -1), null);
      if (parent === null) continue;
      try {
        removeAt(parent, parts.at(-1)!);
      } finally {
        closeQuietly(parent);
      }
      for (let depth = parts.length - 1; depth > 0; depth--) {
        const above = walkTo(rootFd, parts.slice(0, depth - 1), null);
        if (above === null) break;
        removeIfEmptyAt(above, parts[depth - 1]!);
        closeQuietly(above);
      }
    }
    for (const { path: p } of paths.filter((x) => !x.deleted)) {
      let st: fs.Stats;
      const source = path.join(shadowRoot, p);
      try {
        st = fs.lstatSync(source);
      } catch {
        continue;
      }
      const parts = p.split('/');
      if (st.isDirectory()) {
        // A nested repository (a gitlink): its folder is there, its content is the chat's own.
        closeQuietly(walkTo(rootFd, parts, { owner }));
        continue;
      }
      const parent = walkTo(rootFd, parts.slice(0, -1), { owner });
      if (parent === null) throw chatKeptReplacing(p);
      try {
        const name = parts.at(-1)!;
        if (st.isSymbolicLink()) writeAt(parent, name, { kind: 'link', target: fs.readlinkSync(source) }, owner);
        else writeAt(parent, name, { kind: 'file', data: fs.readFileSync(source), mode: execBit(st.mode) ? 0o755 : 0o644, mtime: st.mtime }, owner);
      } finally {
        closeQuietly(parent);
      }
    }
  } finally {
    closeQuietly(rootFd);
  }
}

/** A write into the copy lost every look to the chat, which kept putting something else where a folder goes. */
function chatKeptReplacing(p: string): BerthError {
  const folder = p.split('/').slice(0, -1).join('/');
  return new BerthError('review_failed', `The chat kept replacing the folder "${folder}" while Berth wrote "${p}" into its copy, so the copy is only partly updated; nothing was written outside it.`, {
    hint: 'Stop what runs in the chat (its terminals and the agent’s command), then do it again.',
  });
}
