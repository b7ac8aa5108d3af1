/**
 * A fork's copies (forks/chatForks.ts): a new chat's Review copy of the same folder, holding what
 * the original's copy held at a checkpoint, and a link-safe copy of the chat's home.
 *
 * The copy is made from Berth's own tracking repository, never from the chat's work tree: the
 * repository (track.git, never mounted, 0700) is copied whole with cp (copy-on-write where the
 * filesystem can; its objects are never rewritten in place by git, so a copy taken while the chat
 * records a checkpoint holds every object the chosen commit needs), then git checks the commit's
 * tree out into the new work/ folder, which no sandbox has seen yet, and hands it to the sandbox
 * user. The fork owns every file it reads: deleting the original chat takes nothing from it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import { branchNameFor } from '../policy/reviewPolicy.js';
import { chownTree, runChild } from './copyOwner.js';
import { gitText, gitZ } from './git.js';
import { syncToShadow } from './shadowCopy.js';
import { overrideAttributes } from './trackAttributes.js';
import { REVIEW_LIMITS } from '../../../shared/review.js';
import { at, closeQuietly, entryAt, listAt, openDirAt, openRoot } from './linkSafe.js';
import { ReviewCopy } from './reviewCopy.js';

/** Runs a command, failing with what it said. */
async function run(cmd: string, args: readonly string[], what: string): Promise<void> {
  const { code, stderr } = await runChild(cmd, args);
  if (code !== 0) throw new BerthError('review_failed', `Berth could not ${what}: ${stderr.trim() || `${cmd} exited ${code}`}.`, { hint: 'Check the free space in Berth’s data folder, then fork again.' });
}

/**
 * The new chat's copy of `from`'s folder at `commit` (null: the folder as it was copied). Its
 * checkpoints' commits stay valid: the tracking repository comes with them.
 */
export async function forkCopy(from: ReviewCopy, input: { dir: string; chatId: string; commit: string | null; owner: { uid: number; gid: number } | null; now: number }): Promise<ReviewCopy> {
  const { dir } = input;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    fs.mkdirSync(path.join(dir, 'work'), { mode: 0o700 });
    fs.mkdirSync(path.join(dir, 'shadow'), { mode: 0o700 });
    await run('cp', ['-a', '--reflink=auto', from.trackDir, path.join(dir, 'track.git')], 'copy the chat’s tracking repository');
    // The index is a stat cache of the original's shadow; the fork's is made from the tree.
    fs.rmSync(path.join(dir, 'track.git', 'index'), { force: true });
    const copyId = path.basename(dir);
    const copy = new ReviewCopy(dir, {
      ...from.meta, copyId, chatId: input.chatId, branch: from.meta.kind === 'git' ? branchNameFor(input.chatId) : null, createdAt: input.now,
      workDir: null, historyCopied: false, historyNotCopied: null, lastApply: null, exportedCommit: null, exportBranch: null,
    });
    const tree = input.commit ? await gitText(['rev-parse', `${input.commit}^{tree}`], { gitDir: copy.trackDir }) : from.meta.baseTree;
    await copy.checkOutFresh(tree);
    if (from.meta.kind === 'git') await carryIgnored(from, copy.workDir);
    if (input.owner) await chownTree(copy.workDir, input.owner);
    copy.saveMeta();
    return copy;
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Files git ignores in the original's copy (the node_modules a turn installed, build output) are
 * in no checkpoint, so the fork's checkout lacks them and its first `npm test` would fail: they
 * come as they are now. git lists them on the copy's shadow (never on the copy itself: see
 * shadowCopy.ts), a whole ignored folder as one entry; each is then copied from the copy by
 * descriptor, never through a link, into the fork's folder, whose own path is checked too (a
 * link the chat committed is never followed there either).
 */
async function carryIgnored(from: ReviewCopy, toWork: string): Promise<void> {
  await syncToShadow(from.workDir, from.shadowDir, REVIEW_LIMITS.maxTrackedFileBytes);
  overrideAttributes(from.trackDir);
  const listed = await gitZ(['ls-files', '-z', '-o', '-i', '--exclude-standard', '--directory'], {
    gitDir: from.trackDir, workTree: from.shadowDir, indexFile: path.join(from.trackDir, 'index'), cwd: from.shadowDir,
  });
  const root = openRoot(from.workDir);
  try {
    for (const entry of listed) {
      const parts = entry.replace(/\/$/, '').split('/');
      const name = parts.pop() as string;
      if (!parts.every((p) => p !== '' && p !== '.' && p !== '..') || name === '' || name === '..' || name === '.git') continue;
      const target = path.join(toWork, ...parts, name);
      if (!realFolders(toWork, parts) || fs.existsSync(target)) continue;
      let dirFd: number | null = root;
      const opened: number[] = [];
      for (const p of parts) {
        dirFd = openDirAt(dirFd, p);
        if (dirFd === null) break;
        opened.push(dirFd);
      }
      try {
        if (dirFd !== null) await copyEntryAt(dirFd, name, target);
      } finally {
        opened.forEach(closeQuietly);
      }
    }
  } finally {
    closeQuietly(root);
  }
}

/** Each of `parts` under `root` is a real folder (made when missing), none a link. */
function realFolders(root: string, parts: readonly string[]): boolean {
  let dir = root;
  for (const p of parts) {
    dir = path.join(dir, p);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(dir);
    } catch {
      fs.mkdirSync(dir, { mode: 0o755 });
      continue;
    }
    if (!st.isDirectory()) return false;
  }
  return true;
}

/** One entry of the folder `dirFd`, copied to `target` as copyTreeLinkSafe copies. */
async function copyEntryAt(dirFd: number, name: string, target: string): Promise<void> {
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
async function copyFolderFd(rootFd: number, toRoot: string): Promise<void> {
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
