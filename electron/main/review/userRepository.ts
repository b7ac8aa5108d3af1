/**
 * The user's repository as a Review-mode copy sees it: whether the folder is the top of one, and
 * whether its history fits a warm sandbox's slot.
 */
import fs from 'node:fs';
import path from 'node:path';
import { folderSize } from '../base/folderSize.js';
import { git, type GitOptions } from './git.js';

/**
 * The most a git copy copies of the user's history (its object store) so that the copy fits a
 * warm sandbox's slot folder without a mount of its own. Measured on this machine's ext4 (no
 * reflink, so a real copy) under a load of ~11: 256 MiB of packs took 4.2-5.4 s, as long as the
 * recreate it saves (~5 s, npm run bench:slots); 64 MiB costs about a second at worst, and a
 * repository's object store is smaller than that in most projects. Above it the history is
 * mounted read-only as for a chat without a slot, and the chat waits for a new container.
 */
export const SLOT_HISTORY_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Why a repository's object store will not be copied into a slot (it is borrowed through a
 * read-only mount instead), or null when it will: it borrows from another repository itself, or
 * it is over `maxBytes`.
 */
export async function historyProblem(objects: string, maxBytes: number = SLOT_HISTORY_MAX_BYTES): Promise<string | null> {
  const mb = (n: number) =>
    n >= 1024 * 1024 ? `${Math.ceil(n / (1024 * 1024)).toLocaleString('en-US')} MB` : n >= 1024 ? `${Math.ceil(n / 1024)} KB` : `${n} bytes`;
  try {
    if (fs.readFileSync(path.join(objects, 'info', 'alternates'), 'utf8').trim() !== '') {
      return 'a git repository that borrows history from another repository (its history is mounted read-only)';
    }
  } catch {
    /* none: the usual case */
  }
  const size = await folderSize(objects, 500_000);
  if (!size || size.capped || size.bytes > maxBytes) {
    const bytes = size ? `${size.capped ? 'over ' : ''}${mb(size.bytes)}` : 'unknown in size';
    return `a git repository whose history (${bytes}) is more than the ${mb(maxBytes)} a ready sandbox copies (it is mounted read-only instead)`;
  }
  return null;
}

/** Why a Review-mode copy of this folder would not fit a free slot (its git history), or null when it would. */
export async function slotProblem(hostPath: string, maxBytes: number = SLOT_HISTORY_MAX_BYTES): Promise<string | null> {
  const repo = await userRepository(hostPath);
  return repo ? historyProblem(path.join(repo.common, 'objects'), maxBytes) : null;
}


/** The user's repository when the folder is the top of one: its git dir and common dir; null for a plain folder. */
export async function userRepository(hostPath: string): Promise<{ gitDir: string; common: string } | null> {
  if (!fs.existsSync(path.join(hostPath, '.git'))) return null;
  const opts: GitOptions = { cwd: hostPath, config: [`safe.directory=${hostPath}`], okCodes: [128] };
  const r = await git(['rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-common-dir'], opts);
  if (r.code !== 0) return null;
  const [top, gitDir, common] = r.stdout.toString('utf8').trim().split('\n') as [string, string, string];
  if (fs.realpathSync(top) !== fs.realpathSync(hostPath)) return null;
  return { gitDir, common: path.resolve(hostPath, common) };
}
