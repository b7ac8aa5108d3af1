/**
 * A fork's copies (forks/chatForks.ts): a new chat's Review copy of the same folder, holding what
 * the original's copy held at a checkpoint. Two things no checkpoint holds come as they are when
 * the fork is made: the files git ignores (below) and the chat's own repository in the copy
 * (review/forkGit.ts). The chat's home is copied by review/linkSafeCopy.ts.
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
import { branchNameFor } from '../policy/reviewPolicy.js';
import { chownTree, runChecked } from './copyOwner.js';
import { carrySandboxRepo } from './forkGit.js';
import { gitText, gitZ } from './git.js';
import { syncToShadow } from './shadowCopy.js';
import { overrideAttributes } from './trackAttributes.js';
import { REVIEW_LIMITS } from '../../../shared/review.js';
import { closeQuietly, openDirAt, openRoot } from './linkSafe.js';
import { copyEntryAt } from './linkSafeCopy.js';
import { ReviewCopy } from './reviewCopy.js';

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
    await runChecked('cp', ['-a', '--reflink=auto', from.trackDir, path.join(dir, 'track.git')], 'copy the chat’s tracking repository');
    // The index is a stat cache of the original's shadow; the fork's is made from the tree.
    fs.rmSync(path.join(dir, 'track.git', 'index'), { force: true });
    const copyId = path.basename(dir);
    const copy = new ReviewCopy(dir, {
      ...from.meta, copyId, chatId: input.chatId, branch: from.meta.kind === 'git' ? branchNameFor(input.chatId) : null, createdAt: input.now,
      workDir: null, historyCopied: false, historyNotCopied: null, lastApply: null, exportedCommit: null, exportBranch: null,
    });
    const tree = input.commit ? await gitText(['rev-parse', `${input.commit}^{tree}`], { gitDir: copy.trackDir }) : from.meta.baseTree;
    await copy.checkOutFresh(tree);
    if (from.meta.kind === 'git') {
      await carryIgnored(from, copy.workDir);
      await carrySandboxRepo({ fromWork: from.workDir, fromBranch: from.meta.branch, toWork: copy.workDir, toBranch: copy.meta.branch, stage: path.join(dir, 'git-carry') });
    }
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
