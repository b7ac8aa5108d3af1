/**
 * A fork's copy of the chat's own repository: the `.git` inside a Review copy of a git folder
 * (review/sandboxRepo.ts made it) holds what the chat did with git there, its commits, branches,
 * index and logs. A fork takes it as it is when the fork is made (the fork's files are the
 * turn's, from Berth's checkpoint; the chat's git has no checkpoints), so `git log` in the fork
 * shows the chat's commits.
 *
 * The chat could write every byte of that `.git`, so it is copied without following a link
 * (review/linkSafeCopy.ts: a link arrives as a link, never what it names), into a folder of
 * Berth's that no sandbox sees, and the parts that steer git are Berth's own, never the chat's:
 * `config` (a chat's alias, hooksPath or fsmonitor), `hooks/` and `objects/info/alternates` come
 * from the fresh repository made for the fork, the last naming where the fork's container finds
 * the user's objects. The branch the chat worked on becomes the fork's own branch
 * (`berth/<fork>`), so the two chats' branches never share a name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { closeQuietly, openDirAt, openRoot, readFileAt, walkTo, writeAt } from './linkSafe.js';
import { copyFolderFd } from './linkSafeCopy.js';

/** What git writes in HEAD and a loose ref: a SHA-1 or SHA-256 object name. */
const OBJECT_NAME = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
/** The lock files git takes beside a repository's top files while it writes them. */
const GIT_LOCKS = ['index.lock', 'HEAD.lock', 'config.lock', 'packed-refs.lock', 'shallow.lock'];
/** Larger HEAD, ref or packed-refs files are not the chat's branch's; the fork keeps its fresh branch then. */
const MAX_REF_FILE_BYTES = 16 * 1024 * 1024;

/**
 * Replaces the fresh `.git` in `toWork` (made for the fork at the user's HEAD) by the chat's, as
 * described above. `stage`: a free path beside the fork's copy, on its filesystem.
 */
export async function carrySandboxRepo(input: { fromWork: string; fromBranch: string | null; toWork: string; toBranch: string | null; stage: string }): Promise<void> {
  const { stage } = input;
  const fresh = path.join(input.toWork, '.git');
  const root = openRoot(input.fromWork);
  const gitFd = openDirAt(root, '.git');
  closeQuietly(root);
  // No repository of the chat's (it removed its .git): the fork keeps the fresh one.
  if (gitFd === null) return;
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(stage, { mode: 0o700 });
  try {
    await copyFolderFd(gitFd, stage);
    // A git command the chat ran at that moment leaves its locks: the fork's git would refuse to start over them.
    for (const name of ['config', 'hooks', ...GIT_LOCKS]) fs.rmSync(path.join(stage, name), { recursive: true, force: true });
    put(stage, ['config'], fs.readFileSync(path.join(fresh, 'config')));
    const alternates = path.join(fresh, 'objects', 'info', 'alternates');
    if (fs.existsSync(alternates)) put(stage, ['objects', 'info', 'alternates'], fs.readFileSync(alternates));
    else fs.rmSync(path.join(stage, 'objects', 'info', 'alternates'), { force: true });
    renameBranch(stage, input.fromBranch, input.toBranch);
    fs.chmodSync(stage, 0o755);
    fs.rmSync(fresh, { recursive: true, force: true });
    fs.renameSync(stage, fresh);
  } catch (error) {
    fs.rmSync(stage, { recursive: true, force: true });
    throw error;
  }
}

/** HEAD on the chat's branch: the fork's branch gets its commit, and HEAD names the fork's branch. Anything else (another branch, a detached HEAD) stays as the chat left it. */
function renameBranch(stage: string, from: string | null, to: string | null): void {
  if (!from || !to || from === to) return;
  const head = readPlain(stage, ['HEAD'])?.trim();
  if (head !== `ref: refs/heads/${from}`) return;
  const commit = looseRef(stage, from) ?? packedRef(stage, from);
  if (commit) put(stage, ['refs', 'heads', ...to.split('/')], `${commit}\n`);
  put(stage, ['HEAD'], `ref: refs/heads/${to}\n`);
}

function looseRef(stage: string, branch: string): string | null {
  const text = readPlain(stage, ['refs', 'heads', ...branch.split('/')])?.trim();
  return text && OBJECT_NAME.test(text) ? text : null;
}

function packedRef(stage: string, branch: string): string | null {
  for (const line of (readPlain(stage, ['packed-refs']) ?? '').split('\n')) {
    const [name, ref] = line.trim().split(' ');
    if (ref === `refs/heads/${branch}` && name && OBJECT_NAME.test(name)) return name;
  }
  return null;
}

/** The folder `parts` leads to in the stage, by descriptor (no link on the way followed); made where missing with `make`. */
function stageDir(stage: string, parts: readonly string[], make: boolean): number | null {
  const root = openRoot(stage);
  try {
    return walkTo(root, parts, make ? { owner: null } : null);
  } finally {
    closeQuietly(root);
  }
}

/** A file of the staged copy, read without following a link on the way or at its end (the copy keeps the chat's links as links). */
function readPlain(stage: string, parts: readonly string[]): string | null {
  const dir = stageDir(stage, parts.slice(0, -1), false);
  if (dir === null) return null;
  try {
    const read = readFileAt(dir, parts.at(-1) as string, MAX_REF_FILE_BYTES);
    return read.kind === 'data' ? read.data.toString('utf8') : null;
  } finally {
    closeQuietly(dir);
  }
}

/** Writes a file of Berth's into the stage: a link or file in the way of a folder, or at the file's place, is replaced, never written through. */
function put(stage: string, parts: readonly string[], data: string | Buffer): void {
  const dir = stageDir(stage, parts.slice(0, -1), true);
  // The stage is Berth's alone: nothing else puts a folder back in the way.
  if (dir === null) throw new Error(`could not make the folder of ${parts.join('/')} in the fork's repository`);
  try {
    writeAt(dir, parts.at(-1) as string, { kind: 'file', data: Buffer.from(data), mode: 0o644, mtime: new Date() }, null);
  } finally {
    closeQuietly(dir);
  }
}
