/**
 * "Create branch": the chat's reviewed changes as a branch in the user's own repository, made
 * from Berth's tracking repository with Berth's sanitized git (review/git.ts); only the author's
 * name and e-mail are read with the user's own git (their identity, from their repository).
 */
import { BerthError } from '../../../shared/errors.js';
import type { ApplyProblem } from '../../../shared/review.js';
import { exportBranchName } from '../policy/exportBranch.js';
import { GITLINK_MODE, type RawChange } from '../policy/reviewPolicy.js';
import { git, gitText, type GitOptions } from './git.js';
import type { ReviewCopy } from './reviewCopy.js';
import { userConfig } from './userGit.js';

/** The branches the user's repository has, for a name that takes none of them. */
async function userBranches(opts: GitOptions): Promise<Set<string>> {
  // One per line: a ref name cannot hold a newline (git-check-ref-format), and 2.39's for-each-ref has no -z.
  return new Set((await gitText(['for-each-ref', '--format=%(refname:short)', 'refs/heads/'], opts)).split('\n').filter(Boolean));
}

/** The user's name and e-mail as their repository's commits carry them, or null when either is unset. */
async function userIdentity(repo: string): Promise<{ name: string; email: string } | null> {
  const [name, email] = await Promise.all([userConfig(repo, 'user.name'), userConfig(repo, 'user.email')]);
  return name && email ? { name, email } : null;
}

/**
 * A branch in the user's repository holding the chosen changes: one commit on the user's HEAD
 * (or on the branch's last commit), authored as the user, the user's files untouched. Named from
 * the chat's title the first time (berth/fix-the-login-form), then the same branch is moved on;
 * choosing again what it already holds adds no commit.
 */
export async function exportToBranch(copy: ReviewCopy, chosen: readonly RawChange[], large: readonly string[], chatTitle: string) {
  const m = copy.meta;
  if (m.kind !== 'git' || !m.userGitDir) {
    throw new BerthError('invalid_request', `"${m.hostPath}" is not a git repository, so Berth cannot create a branch in it.`, { hint: 'Apply the files instead.' });
  }
  const problems: ApplyProblem[] = [];
  for (const p of large) problems.push({ path: p, kind: 'too_large', message: `"${p}" is larger than Berth reviews; it cannot be applied from here.` });
  for (const c of chosen) {
    if (c.newMode === GITLINK_MODE) problems.push({ path: c.path, kind: 'unsafe_path', message: `"${c.path}" is a nested git repository; Berth does not apply those.` });
  }
  if (problems.length) return { ok: false, applied: [], problems, branch: null, message: `Nothing was applied: ${problems[0]?.message}` };
  const userOpts = { gitDir: m.userGitDir, config: [`safe.directory=${m.userGitDir}`, `safe.directory=${m.hostPath}`] };
  const branch = m.exportBranch ?? exportBranchName(chatTitle, await userBranches(userOpts));
  const parent = m.exportedCommit ?? m.headCommit;
  const parentTree = parent ? await gitText(['rev-parse', `${parent}^{tree}`], { gitDir: copy.trackDir }) : copy.meta.baseTree;
  // The chosen changes on top of what the branch already holds.
  const tree = await copy.compose(parentTree, '', chosen);
  const existing = (await git(['rev-parse', '--verify', '-q', `refs/heads/${branch}`], { ...userOpts, okCodes: [1] })).stdout.toString().trim();
  if (existing && existing !== m.exportedCommit) {
    return {
      ok: false, applied: [], branch: null,
      problems: [{ path: branch, kind: 'conflict' as const, message: `Your repository already has a branch ${branch} that Berth did not make (or that moved since); Berth leaves it alone.` }],
      message: `Nothing was applied: the branch ${branch} already exists in your repository.`,
    };
  }
  const files = `${chosen.length} changed ${chosen.length === 1 ? 'file' : 'files'}`;
  if (existing && tree === parentTree) {
    return { ok: true, applied: chosen.map((c) => c.path), problems: [], branch, message: `Branch ${branch} already holds these changes; nothing new to commit.` };
  }
  const title = chatTitle.replace(/\s+/g, ' ').slice(0, 72);
  const identity = await userIdentity(m.hostPath);
  const commit = await copy.commit(tree, parent, `Changes from the Berth chat "${title}"\n\n${chosen.map((c) => `${c.status}: ${c.path}`).slice(0, 200).join('\n')}\n`, identity);
  await copy.setRef('refs/heads/export', commit);
  await git(['fetch', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', '-q', copy.trackDir, `refs/heads/export:refs/heads/${branch}`], userOpts);
  m.exportedCommit = commit;
  m.exportBranch = branch;
  copy.saveMeta();
  return {
    ok: true, applied: chosen.map((c) => c.path), problems: [], branch,
    message: `${existing ? 'Updated' : 'Created'} branch ${branch} in your repository with ${files}${identity ? '' : ' (authored as Berth: your repository has no user.name and user.email)'}; push it from here or merge it with your own tools.`,
  };
}
