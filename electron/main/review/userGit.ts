/**
 * The user's own git, run in the user's own repository on this computer: for the steps of Review
 * that act as the user (a push with their credential helpers, SSH agent and configuration, the
 * identity their commits carry). Unlike review/git.ts, nothing is overridden here: this is the
 * user's set-up, read from the user's real repository, never from a chat's copy (whose
 * configuration the sandbox writes). Callers make sure no sandbox can write that repository.
 */
import { spawn } from 'node:child_process';

export interface UserGitResult {
  code: number;
  /** stdout and stderr in the order git wrote them, cut at OUTPUT_MAX. */
  output: string;
  stdout: string;
}

/** What a user reads of a push: a few screens of git's words at most. */
const OUTPUT_MAX = 64 * 1024;

/** A push that has said nothing for this long is waiting on something that will not come (a prompt nobody sees). */
export const USER_GIT_TIMEOUT_MS = 120_000;

export function userGit(cwd: string, args: readonly string[], timeoutMs = USER_GIT_TIMEOUT_MS): Promise<UserGitResult> {
  return new Promise((resolve) => {
    const child = spawn('git', [...args], {
      cwd,
      // The user's environment, so their credential helper, ssh-agent (SSH_AUTH_SOCK) and config
      // apply; in English, so Berth can tell a rejection from a refused login; and never a prompt
      // on a terminal Berth does not have (a helper with a window of its own still asks).
      env: { ...process.env, LC_ALL: 'C', LANG: 'C', GIT_TERMINAL_PROMPT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let stdout = '';
    const add = (chunk: Buffer, toStdout: boolean) => {
      const text = chunk.toString('utf8');
      if (toStdout && stdout.length < OUTPUT_MAX) stdout += text;
      if (output.length < OUTPUT_MAX) output += text;
    };
    child.stdout.on('data', (c: Buffer) => add(c, true));
    child.stderr.on('data', (c: Buffer) => add(c, false));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: -1, output: `Berth could not run git: ${error.message}`, stdout: '' });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const note = timedOut ? `\n(Berth stopped git after ${Math.round(timeoutMs / 1000)} s without an end: it was probably waiting for a password prompt.)` : '';
      resolve({ code: timedOut ? -1 : (code ?? -1), output: output.slice(0, OUTPUT_MAX) + note, stdout: stdout.trim() });
    });
  });
}

/** One value of the user's git configuration as their repository sees it (repository, then global, then system), or null. */
export async function userConfig(cwd: string, key: string): Promise<string | null> {
  const r = await userGit(cwd, ['config', '--get', key], 10_000);
  return r.code === 0 && r.stdout ? r.stdout : null;
}
