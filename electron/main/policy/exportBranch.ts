/**
 * The branch a chat's reviewed work goes to in the user's own repository, and where a pushed
 * branch can become a pull request. Pure: main reads the repository's refs and remote URL and
 * runs git; this module only decides names and addresses.
 */

/** Branches Berth makes live under this prefix, so they are easy to find and never collide with the user's own names. */
export const EXPORT_BRANCH_PREFIX = 'berth/';

/** Long enough to read in a branch list, short enough for a terminal prompt (GitHub's own slugs stop near 40). */
const SLUG_MAX = 40;

/**
 * A readable name from the chat's title ("Fix the login form" → berth/fix-the-login-form), or
 * berth/chat when the title has no letters or digits; `-2`, `-3`… when the repository already has it.
 * Only a-z, 0-9 and single dashes: always a valid ref name (git-check-ref-format), on every file system.
 */
export function exportBranchName(title: string, taken: ReadonlySet<string>): string {
  const slug =
    title
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, SLUG_MAX)
      .replace(/-+$/, '') || 'chat';
  const base = `${EXPORT_BRANCH_PREFIX}${slug}`;
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** Where a remote's repository lives on the web, from its URL; null for a local path or an unknown form. */
export interface WebRepository {
  host: string;
  /** owner/name, or group/subgroup/name on GitLab; without `.git`. */
  path: string;
}

export function webRepository(remoteUrl: string): WebRepository | null {
  const url = remoteUrl.trim();
  // scp-like: git@github.com:owner/repo.git
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/)(.+)$/.exec(url);
  let host: string;
  let repoPath: string;
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    host = scp[1]!;
    repoPath = scp[2]!;
  } else {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return null;
    }
    if (!['https:', 'http:', 'ssh:', 'git:', 'git+ssh:', 'ssh+git:'].includes(parsed.protocol) || !parsed.hostname) return null;
    host = parsed.hostname;
    repoPath = decodeURIComponent(parsed.pathname);
  }
  repoPath = repoPath.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '');
  if (!/^[\w.-]+(\/[\w.-]+)+$/.test(repoPath)) return null;
  return { host: host.toLowerCase(), path: repoPath };
}

export type ForgeKind = 'github' | 'gitlab' | 'bitbucket' | 'gitea';

/** The forge a host runs, by its well-known name or a self-hosted one that says it in its name. */
export function forgeOf(host: string): ForgeKind | null {
  if (host === 'github.com' || host.startsWith('github.')) return 'github';
  if (host === 'gitlab.com' || host.startsWith('gitlab.')) return 'gitlab';
  if (host === 'bitbucket.org') return 'bitbucket';
  if (host === 'codeberg.org' || host.startsWith('gitea.') || host.startsWith('forgejo.')) return 'gitea';
  return null;
}

/** The page that opens a pull (merge) request of `branch` into `base`, or null where the forge is not known. */
export function pullRequestUrl(remoteUrl: string, branch: string, base: string | null): string | null {
  const repo = webRepository(remoteUrl);
  if (!repo) return null;
  const forge = forgeOf(repo.host);
  const web = `https://${repo.host}/${repo.path.split('/').map(encodeURIComponent).join('/')}`;
  const b = encodeURIComponent(branch);
  switch (forge) {
    case 'github':
      return base ? `${web}/compare/${encodeURIComponent(base)}...${b}?expand=1` : `${web}/pull/new/${b}`;
    case 'gitlab':
      return `${web}/-/merge_requests/new?merge_request%5Bsource_branch%5D=${b}` + (base ? `&merge_request%5Btarget_branch%5D=${encodeURIComponent(base)}` : '');
    case 'bitbucket':
      return `${web}/pull-requests/new?source=${b}` + (base ? `&dest=${encodeURIComponent(base)}` : '');
    case 'gitea':
      return base ? `${web}/compare/${encodeURIComponent(base)}...${b}` : `${web}/compare/${b}`;
    default:
      return null;
  }
}

/** What a push's outcome means for the user, from git's exit code and its output (LC_ALL=C). */
export type PushVerdict = { ok: true } | { ok: false; reason: 'rejected' | 'auth' | 'unreachable' | 'other'; sentence: string };

export function pushVerdict(code: number, output: string, remote: string, branch: string): PushVerdict {
  if (code === 0) return { ok: true };
  if (/\[rejected\]|non-fast-forward|fetch first|\[remote rejected\]/i.test(output)) {
    return /\[remote rejected\]/i.test(output)
      ? { ok: false, reason: 'rejected', sentence: `${remote} refused ${branch} (a rule on the remote, such as a protected branch or a hook, said no: git's words are below).` }
      : { ok: false, reason: 'rejected', sentence: `${remote} already has a different ${branch} (not a fast-forward); Berth does not force a push. Rename the branch or fetch and merge it in your repository.` };
  }
  if (/permission denied|authentication failed|could not read (username|password)|access denied|403|401|publickey|terminal prompts disabled/i.test(output)) {
    return { ok: false, reason: 'auth', sentence: `${remote} did not accept your credentials. Check that \`git push\` works for this repository in your own terminal (its credential helper or SSH key), then push again.` };
  }
  if (/could not resolve host|connection refused|connection timed out|could not read from remote|unable to access|does not appear to be a git repository/i.test(output)) {
    return { ok: false, reason: 'unreachable', sentence: `Berth could not reach ${remote}. Check the remote's address (git remote -v) and your connection, then push again.` };
  }
  return { ok: false, reason: 'other', sentence: `git push to ${remote} failed (exit code ${code}); git's words are below.` };
}
