/**
 * Berth's own git, run on a chat's copy, on Berth's tracking repository and on the user's
 * repository. The container can write anything in its copy, so nothing git reads there may make
 * this computer run a program:
 * - Berth never runs git with the copy's own `.git` as the repository; the copy is only ever a
 *   work tree of Berth's tracking repository (a bare repository outside anything mounted).
 * - No system or global configuration (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null, no
 *   XDG config), no inherited GIT_* variables (GIT_DIR, GIT_EXEC_PATH, GIT_SSH_COMMAND, …).
 * - On the command line (which wins over any repository's own file): no hooks, no fsmonitor,
 *   no external diff or textconv, no pager, no editor, no credential helper, no ssh command,
 *   no signing, no submodule recursion, and only the file transport.
 * See git-config(1) "Security" and the safe.directory notes (CVE-2022-24765, CVE-2024-32002).
 */
import { spawn } from 'node:child_process';
import { BerthError } from '../../../shared/errors.js';

/** `-c` settings passed before every command; they override anything a repository's config says. */
export const SAFE_GIT_CONFIG: readonly string[] = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.untrackedCache=false',
  'core.splitIndex=false',
  'core.sshCommand=false',
  'core.gitProxy=',
  'core.askPass=',
  'core.editor=false',
  'core.pager=cat',
  'core.symlinks=true',
  'core.checkStat=minimal',
  'core.trustctime=false',
  'core.autocrlf=false',
  'core.excludesFile=/dev/null',
  'core.attributesFile=/dev/null',
  'core.quotePath=false',
  'credential.helper=',
  'diff.external=',
  'diff.noprefix=false',
  'diff.mnemonicPrefix=false',
  'diff.ignoreSubmodules=all',
  'diff.renames=true',
  'status.submoduleSummary=false',
  'submodule.recurse=false',
  'fetch.recurseSubmodules=false',
  'gpg.program=false',
  'gpg.ssh.program=false',
  'gpg.x509.program=false',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'protocol.allow=never',
  'protocol.file.allow=always',
  'uploadpack.packObjectsHook=',
  'gc.auto=0',
  'maintenance.auto=false',
  'init.templateDir=',
  'advice.detachedHead=false',
  'user.name=Berth',
  'user.email=berth@localhost',
];

export interface GitOptions {
  /** The repository: Berth's tracking repository, or the user's own .git (never a chat's copy's). */
  gitDir?: string;
  workTree?: string;
  indexFile?: string;
  cwd?: string;
  input?: string | Buffer;
  /** Extra -c settings (safe.directory for the user's repository). */
  config?: readonly string[];
  /** Refuse output larger than this (bytes). */
  maxOutput?: number;
  /** Exit codes that are answers, not failures (diff --quiet's 1). */
  okCodes?: readonly number[];
  /**
   * With -z output: stop git as soon as it has printed more than this many NUL-terminated records
   * and reject with `tooMany()` (a listing of a million files is refused while it streams, not
   * after it was read whole).
   */
  maxRecords?: { limit: number; tooMany: () => Error };
}

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

const DEFAULT_MAX_OUTPUT = 512 * 1024 * 1024;

/** The environment git runs with: nothing of the user's git set-up, nothing that names a program. */
export function safeGitEnv(opts: GitOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: '/nonexistent',
    XDG_CONFIG_HOME: '/nonexistent',
    LC_ALL: 'C',
    LANG: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_SYSTEM: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_PROTOCOL_FROM_USER: '0',
    GIT_ALLOW_PROTOCOL: 'file',
    GIT_NO_LAZY_FETCH: '1',
  };
  if (opts.gitDir) env.GIT_DIR = opts.gitDir;
  if (opts.workTree) env.GIT_WORK_TREE = opts.workTree;
  if (opts.indexFile) env.GIT_INDEX_FILE = opts.indexFile;
  // Never look upwards for a repository: only the one named.
  env.GIT_CEILING_DIRECTORIES = '/';
  return env;
}

export function git(args: readonly string[], opts: GitOptions = {}): Promise<GitResult> {
  const config = [...SAFE_GIT_CONFIG, ...(opts.config ?? [])].flatMap((c) => ['-c', c]);
  const maxOutput = opts.maxOutput ?? DEFAULT_MAX_OUTPUT;
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...config, ...args], {
      cwd: opts.cwd ?? opts.workTree ?? opts.gitDir ?? '/',
      env: safeGitEnv(opts),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let tooBig = false;
    let records = 0;
    let tooMany = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (tooMany) return;
      if (opts.maxRecords) {
        for (let i = chunk.indexOf(0); i !== -1; i = chunk.indexOf(0, i + 1)) records++;
        if (records > opts.maxRecords.limit) {
          tooMany = true;
          child.kill('SIGKILL');
          return;
        }
      }
      outBytes += chunk.length;
      if (outBytes > maxOutput) {
        tooBig = true;
        child.kill('SIGKILL');
        return;
      }
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < 64 * 1024) err += chunk.toString('utf8');
    });
    child.on('error', (error) => reject(new BerthError('review_failed', `Berth could not run git: ${error.message}.`, { hint: 'Install git (2.39 or newer) on this computer.', cause: error })));
    child.stdin.on('error', () => undefined);
    child.on('close', (code) => {
      if (tooMany && opts.maxRecords) {
        reject(opts.maxRecords.tooMany());
        return;
      }
      if (tooBig) {
        reject(new BerthError('review_too_large', `git ${args[0]} printed more than ${Math.round(maxOutput / 1024 / 1024)} MB; Berth stopped it.`));
        return;
      }
      const result = { code: code ?? -1, stdout: Buffer.concat(out), stderr: err };
      if (code === 0 || (opts.okCodes ?? []).includes(code ?? -1)) resolve(result);
      else reject(new BerthError('review_failed', `git ${args.filter((a) => !a.startsWith('-')).slice(0, 2).join(' ')} failed: ${err.trim().split('\n').slice(-2).join(' ') || `exit code ${code}`}.`));
    });
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
  });
}

export async function gitText(args: readonly string[], opts: GitOptions = {}): Promise<string> {
  return (await git(args, opts)).stdout.toString('utf8').trim();
}

/** NUL-separated output as a list (the last, empty, element dropped). */
export async function gitZ(args: readonly string[], opts: GitOptions = {}): Promise<string[]> {
  const text = (await git(args, opts)).stdout.toString('utf8');
  const parts = text.split('\0');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts;
}
