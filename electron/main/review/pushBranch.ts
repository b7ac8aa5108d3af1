/**
 * Push: the branch Berth made in the user's repository goes to the user's remote, with the
 * user's own git on this computer, after the user reviewed it. The sandbox never holds the
 * credentials, and the remote is read from the user's real repository, never from the chat's copy.
 */
import { BerthError } from '../../../shared/errors.js';
import { pullRequestUrl, pushVerdict } from '../policy/exportBranch.js';
import { userConfig, userGit } from './userGit.js';

export interface PushOutcome {
  ok: boolean;
  branch: string;
  remote: string | null;
  /** The address pushed to, with any password in it removed. */
  remoteUrl: string | null;
  /** git's own words. */
  output: string;
  message: string;
  /** The forge's page that opens a pull request for the branch, when the remote is a known forge. */
  pullRequestUrl: string | null;
}

/** A URL's password (https://user:token@host) never reaches the page. */
function withoutPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]+):[^/@]*@/i, '$1:***@');
}

/** The remote a push goes to: the current branch's upstream remote, else origin, else the only one. */
async function chooseRemote(repo: string): Promise<{ remote: string; base: string | null } | null> {
  const head = await userGit(repo, ['symbolic-ref', '--short', '-q', 'HEAD'], 10_000);
  const base = head.code === 0 && head.stdout ? head.stdout : null;
  const upstream = base ? await userConfig(repo, `branch.${base}.remote`) : null;
  const listed = await userGit(repo, ['remote'], 10_000);
  if (listed.code !== 0) {
    // Most often git's own refusal of a repository another user owns (safe.directory): Berth does not override it for the user's git.
    throw new BerthError('review_failed', `git could not read the remotes of "${repo}": ${listed.output.trim().split('\n').slice(0, 2).join(' ')}`, {
      hint: 'Run git remote -v in that folder in your own terminal and fix what it says, then push again.',
    });
  }
  const remotes = listed.stdout.split('\n').filter(Boolean);
  const remote = upstream && remotes.includes(upstream) ? upstream : remotes.includes('origin') ? 'origin' : remotes.length === 1 ? remotes[0]! : null;
  return remote ? { remote, base } : null;
}

export async function pushBranch(repo: string, branch: string): Promise<PushOutcome> {
  const chosen = await chooseRemote(repo);
  if (!chosen) {
    throw new BerthError('invalid_request', `Your repository "${repo}" has no remote to push ${branch} to.`, {
      hint: 'Add one in your repository (git remote add origin URL), then push again.',
    });
  }
  const { remote, base } = chosen;
  const url = (await userGit(repo, ['remote', 'get-url', '--push', remote], 10_000)).stdout || null;
  const r = await userGit(repo, ['push', '--porcelain', remote, `refs/heads/${branch}:refs/heads/${branch}`]);
  const verdict = pushVerdict(r.code, r.output, remote, branch);
  const remoteUrl = url ? withoutPassword(url) : null;
  if (!verdict.ok) return { ok: false, branch, remote, remoteUrl, output: r.output, message: verdict.sentence, pullRequestUrl: null };
  const pr = url ? pullRequestUrl(url, branch, base && base !== branch ? base : null) : null;
  return {
    ok: true, branch, remote, remoteUrl, output: r.output, pullRequestUrl: pr,
    message: `Pushed ${branch} to ${remote}.` + (pr ? '' : ` Its ref there is refs/heads/${branch}.`),
  };
}
