/**
 * Copies of folders a sandbox can write (a chat's home, its copy's ignored files and `.git`),
 * made for a fork (review/forkCopy.ts, review/forkGit.ts) without following a link the sandbox
 * could put in the way: every folder is opened by descriptor relative to its parent without
 * following links, every file opened with O_NOFOLLOW and copied from that descriptor, and links
 * copied as links (their text, never what they name).
 */
import fs from 'node:fs';
import path from 'node:path';
import { chownTree } from './copyOwner.js';
import { at, closeQuietly, entryAt, listAt, openDirAt, openRoot } from './linkSafe.js';

/** One entry of the folder `dirFd`, copied to `target` as copyTreeLinkSafe copies. */
export async function copyEntryAt(dirFd: number, name: string, target: string): Promise<void> {
  const e = entryAt(dirFd, name);
  if (e.kind === 'link') fs.symlinkSync(e.target, target);
  else if (e.kind === 'file') copyFileNoFollow(dirFd, name, target);
  else if (e.kind === 'dir') {
    const fd = openDirAt(dirFd, name);
    if (fd === null) return;
    fs.mkdirSync(target, { mode: e.st.mode & 0o777 });
    await copyFolderFd(fd, target);
  }
}

/**
 * Copies a folder the sandbox can write (the chat's home) into a new one, never following a link
 * the sandbox could put in the way: every folder is opened by descriptor without following links,
 * every file opened with O_NOFOLLOW and copied from that descriptor, links copied as links. The
 * new folder is Berth's alone while it is filled, then handed to `owner`.
 */
export async function copyTreeLinkSafe(fromRoot: string, toRoot: string, owner: { uid: number; gid: number } | null): Promise<void> {
  // A chat whose sandbox never started has no home yet: the fork's is made at its first start, as any chat's.
  if (!fs.existsSync(fromRoot)) return;
  fs.mkdirSync(toRoot, { recursive: true, mode: 0o755 });
  await copyFolderFd(openRoot(fromRoot), toRoot);
  if (owner) await chownTree(toRoot, owner);
}

/** The folder open at `rootFd` (closed here) copied into the existing folder `toRoot`. */
export async function copyFolderFd(rootFd: number, toRoot: string): Promise<void> {
  const stack: { fd: number; to: string }[] = [{ fd: rootFd, to: toRoot }];
  let n = 0;
  try {
    while (stack.length > 0) {
      const dir = stack.pop()!;
      try {
        for (const name of listAt(dir.fd)) {
          if (++n % 500 === 0) await new Promise((r) => setImmediate(r));
          const target = path.join(dir.to, name);
          const e = entryAt(dir.fd, name);
          if (e.kind === 'dir') {
            const fd = openDirAt(dir.fd, name);
            if (fd === null) continue;
            fs.mkdirSync(target, { mode: e.st.mode & 0o777 });
            stack.push({ fd, to: target });
          } else if (e.kind === 'link') {
            fs.symlinkSync(e.target, target);
          } else if (e.kind === 'file') {
            copyFileNoFollow(dir.fd, name, target);
          }
        }
      } finally {
        closeQuietly(dir.fd);
      }
    }
  } finally {
    for (const d of stack) closeQuietly(d.fd);
  }
}

function copyFileNoFollow(dirFd: number, name: string, target: string): void {
  let fd: number;
  try {
    fd = fs.openSync(at(dirFd, name), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return; // Gone or swapped for a link since it was listed: not copied.
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return;
    // The descriptor's own magic link names the file it opened, whatever the name holds now.
    fs.copyFileSync(`/proc/self/fd/${fd}`, target, fs.constants.COPYFILE_FICLONE);
    fs.chmodSync(target, st.mode & 0o777);
    fs.utimesSync(target, st.atime, st.mtime);
  } finally {
    fs.closeSync(fd);
  }
}
