/**
 * Review mode's pure decisions: which files are secret-looking, how git's raw diff reads, which
 * changes may be applied to the user's folder and which conflict. No I/O.
 */
import path from 'node:path';
import type { ApplyProblem, ChangeStatus } from '../../../shared/review.js';

const SECRET_NAMES = [
  /^\.env(\..*)?$/i,
  /^\.envrc$/i,
  /^\.netrc$/i,
  /^\.npmrc$/i,
  /^\.pypirc$/i,
  /^\.git-credentials$/i,
  /^\.pgpass$/i,
  /^id_(rsa|dsa|ecdsa|ed25519)(\.pub)?$/i,
  /\.(pem|key|p12|pfx|jks|keystore|kdbx|ppk|asc|gpg)$/i,
  /^credentials(\..*)?$/i,
  /^secrets?(\..*)?$/i,
  /^.*\.secrets?(\..*)?$/i,
  /^service[-_]?account.*\.json$/i,
  /^\.?htpasswd$/i,
  /^terraform\.tfstate(\.backup)?$/i,
  /^\.?kubeconfig$/i,
];
const SECRET_DIRS = new Set(['.ssh', '.aws', '.gnupg', '.docker', '.kube', '.azure', '.gcloud', '.config/gcloud']);

/** A path (relative, `/`-separated) that looks like it holds a secret: `.env`, a key, credentials. */
export function isSecretLooking(relPath: string): boolean {
  const parts = relPath.split('/');
  if (parts.slice(0, -1).some((p) => SECRET_DIRS.has(p))) return true;
  const name = parts[parts.length - 1] ?? '';
  if (/^\.env\.(example|sample|template|dist)$/i.test(name)) return false;
  return SECRET_NAMES.some((re) => re.test(name));
}

/** Which untracked or ignored files go into a copy: secret-looking ones only when named. */
export function partitionSecrets(paths: readonly string[], include: readonly string[]): { keep: string[]; excluded: string[] } {
  const named = new Set(include.map((p) => p.replace(/^\.\/+/, '').replace(/\/+$/, '')));
  const keep: string[] = [];
  const excluded: string[] = [];
  for (const p of paths) (isSecretLooking(p) && !named.has(p) ? excluded : keep).push(p);
  return { keep, excluded };
}

export const GITLINK_MODE = '160000';
export const SYMLINK_MODE = '120000';
export const NULL_OID = /^0+$/;

/** One entry of `git diff-tree -r -z --raw -M`. */
export interface RawChange {
  status: ChangeStatus;
  path: string;
  oldPath: string | null;
  oldMode: string;
  newMode: string;
  oldOid: string;
  newOid: string;
}

/** Parses `git diff-tree -r -z --raw -M` output (already split on NUL). */
export function parseRawDiff(parts: readonly string[]): RawChange[] {
  const changes: RawChange[] = [];
  for (let i = 0; i < parts.length; ) {
    const head = parts[i++] as string;
    const m = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])(\d*)$/.exec(head);
    if (!m) throw new Error(`unexpected diff line: ${head.slice(0, 80)}`);
    const [, oldMode, newMode, oldOid, newOid, letter] = m as unknown as [string, string, string, string, string, string];
    if (letter === 'R' || letter === 'C') {
      const from = parts[i++] as string;
      const to = parts[i++] as string;
      changes.push({ status: letter === 'R' ? 'renamed' : 'added', path: to, oldPath: letter === 'R' ? from : null, oldMode, newMode, oldOid, newOid });
      continue;
    }
    const p = parts[i++] as string;
    const status: ChangeStatus =
      letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : letter === 'T' ? 'typechange' : 'modified';
    changes.push({ status, path: p, oldPath: null, oldMode, newMode, oldOid, newOid });
  }
  return changes;
}

/** Every path a change touches in the user's folder (a rename touches both). */
export function touchedPaths(c: Pick<RawChange, 'path' | 'oldPath'>): string[] {
  return c.oldPath ? [c.oldPath, c.path] : [c.path];
}

/** The changes the user picked: all, or those whose new or old path is named. */
export function selectChanges<T extends Pick<RawChange, 'path' | 'oldPath'>>(changes: readonly T[], files: readonly string[] | undefined): T[] {
  if (!files) return [...changes];
  const named = new Set(files);
  return changes.filter((c) => named.has(c.path) || (c.oldPath !== null && named.has(c.oldPath)));
}

/** A relative path that may be written inside the user's folder: no absolute, `..`, `.git` or empty part. */
export function unsafePathReason(relPath: string): string | null {
  if (relPath === '' || relPath.startsWith('/')) return 'it is not a path inside the folder.';
  const parts = relPath.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) return 'it leaves the folder.';
  if (parts.some((p) => p.toLowerCase() === '.git')) return "it is inside a repository's .git folder.";
  return null;
}

/**
 * Whether a symlink the chat made may be applied as a link: only a relative target that stays
 * inside the folder. A link to /etc, to ~ or to a parent is refused (never followed either).
 */
export function symlinkProblem(linkPath: string, target: string): string | null {
  if (target === '' || target.includes('\0')) return 'it is a link with an empty or invalid target.';
  if (target.startsWith('/') || target.startsWith('~')) return `it is a link to "${target}", outside the folder.`;
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(linkPath), target));
  if (resolved === '..' || resolved.startsWith('../')) return `it is a link to "${target}", which leaves the folder.`;
  if (resolved.split('/').some((p) => p.toLowerCase() === '.git')) return `it is a link into a .git folder ("${target}").`;
  return null;
}

export interface ApplyCandidate extends RawChange {
  tooLarge: boolean;
  /** For a symlink: its target, read from the chat's copy. */
  linkTarget: string | null;
}

/**
 * Why the chosen changes cannot be applied, file by file. `userChanged`: paths the user's folder
 * changed since the copy was made (so the chat's version would overwrite the user's work).
 */
export function applyProblems(candidates: readonly ApplyCandidate[], userChanged: ReadonlySet<string>): ApplyProblem[] {
  const problems: ApplyProblem[] = [];
  for (const c of candidates) {
    for (const p of touchedPaths(c)) {
      const unsafe = unsafePathReason(p);
      if (unsafe) problems.push({ path: p, kind: 'unsafe_path', message: `"${p}" cannot be applied: ${unsafe}` });
    }
    if (c.newMode === GITLINK_MODE || c.oldMode === GITLINK_MODE) {
      problems.push({ path: c.path, kind: 'unsafe_path', message: `"${c.path}" is a nested git repository; Berth does not apply those. Copy it yourself if you want it.` });
      continue;
    }
    if (c.tooLarge) problems.push({ path: c.path, kind: 'too_large', message: `"${c.path}" is larger than Berth reviews; it cannot be applied from here.` });
    if (c.newMode === SYMLINK_MODE && c.status !== 'deleted') {
      const why = symlinkProblem(c.path, c.linkTarget ?? '');
      if (why) problems.push({ path: c.path, kind: 'unsafe_symlink', message: `"${c.path}" cannot be applied: ${why}` });
    }
    for (const p of touchedPaths(c)) {
      if (userChanged.has(p)) {
        problems.push({ path: p, kind: 'conflict', message: `"${p}" changed in your folder since the chat's copy was made (or by another chat's apply).` });
      }
    }
  }
  return problems;
}

/** A git branch name for a chat: berth/<chat id, in characters a ref may hold>. */
export function branchNameFor(chatId: string): string {
  const slug = chatId.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'chat';
  return `berth/${slug}`;
}
