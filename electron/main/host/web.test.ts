import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { request } from './testClient.js';
import { DEFAULT_PORT, defaultDataDir, parseWebArgs } from './webOptions.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

describe('parseWebArgs', () => {
  const parse = (argv: string[], env: NodeJS.ProcessEnv = {}) => parseWebArgs(argv, env, '/home/me', '/work');

  it('defaults to port 5178 and the XDG data folder', () => {
    expect(parse([])).toEqual({ kind: 'run', options: { port: DEFAULT_PORT, dataDir: '/home/me/.local/share/berth' } });
    expect(parse([], { XDG_DATA_HOME: '/xdg' })).toEqual({ kind: 'run', options: { port: 5178, dataDir: '/xdg/berth' } });
  });
  it('ignores a relative XDG_DATA_HOME', () => {
    expect(defaultDataDir({ XDG_DATA_HOME: 'rel' }, '/home/me')).toBe('/home/me/.local/share/berth');
  });
  it('another data folder has a port of its own, the same at every start', () => {
    const a = parse(['--data-dir', '/srv/a']);
    const b = parse(['--data-dir', '/srv/b']);
    expect(a).toEqual(parse(['--data-dir=/srv/a']));
    const portOf = (r: ReturnType<typeof parse>) => (r.kind === 'run' ? r.options.port : -1);
    expect(portOf(a)).toBeGreaterThan(DEFAULT_PORT);
    expect(portOf(a)).toBeLessThan(DEFAULT_PORT + 801);
    expect(portOf(b)).not.toBe(portOf(a));
    expect(portOf(parse(['--data-dir', '/home/me/.local/share/berth']))).toBe(DEFAULT_PORT);
  });

  it('takes --port and --data-dir, spaced or with =', () => {
    expect(parse(['--port', '0', '--data-dir', 'data'])).toEqual({ kind: 'run', options: { port: 0, dataDir: '/work/data' } });
    expect(parse(['--port=8080', '--data-dir=/abs'])).toEqual({ kind: 'run', options: { port: 8080, dataDir: '/abs' } });
  });
  it('takes --known-hosts files, repeatable, resolved against the current folder', () => {
    expect(parse(['--known-hosts', 'kh', '--known-hosts=/etc/other'])).toEqual({ kind: 'run', options: { port: DEFAULT_PORT, dataDir: '/home/me/.local/share/berth', knownHostsFiles: ['/work/kh', '/etc/other'] } });
    expect(parse(['--known-hosts'])).toMatchObject({ kind: 'error' });
  });
  it('refuses bad values and unknown options', () => {
    expect(parse(['--port', 'x'])).toMatchObject({ kind: 'error' });
    expect(parse(['--port', '70000'])).toMatchObject({ kind: 'error' });
    expect(parse(['--port', '-1'])).toMatchObject({ kind: 'error' });
    expect(parse(['--port'])).toMatchObject({ kind: 'error' });
    expect(parse(['--data-dir='])).toMatchObject({ kind: 'error' });
    expect(parse(['--verbose'])).toMatchObject({ kind: 'error' });
    expect(parse(['--help'])).toEqual({ kind: 'help' });
  });
});

describe('npm run web (web.ts as a child process)', () => {
  let child: ChildProcess | null = null;
  let tmp: string | null = null;

  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    child = null;
    tmp = null;
  });

  it('prints the URL line, answers 401 without the token, redirects with it, and exits 0 on SIGTERM', async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-web-'));
    const proc = spawn(process.execPath, ['--import', 'tsx', 'electron/main/host/web.ts', '--port', '0', '--data-dir', path.join(tmp, 'data')], {
      cwd: REPO_ROOT,
      env: { ...process.env, DOCKER_HOST: 'unix:///nonexistent.sock' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let stderr = '';
    proc.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const stdoutLines: string[] = [];
    const lines = readline.createInterface({ input: proc.stdout! });
    lines.on('line', (line) => stdoutLines.push(line));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      proc.once('exit', (code, signal) => resolve({ code, signal })),
    );

    const first = await new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      void exited.then(({ code }) => reject(new Error(`web.ts exited (${code}) before printing its URL:\n${stderr}`)));
    });
    const match = /^Berth is running at http:\/\/127\.0\.0\.1:(\d+)\/\?token=([A-Za-z0-9_-]{32})$/.exec(first);
    expect(match, first).not.toBeNull();
    const port = Number(match?.[1]);
    const token = match?.[2] as string;

    const denied = await request(port, '/');
    expect(denied.status).toBe(401);
    expect(denied.body).toContain('npm run web');
    const entered = await request(port, `/?token=${token}`);
    expect(entered.status).toBe(302);
    expect(entered.headers.location).toBe(`/t/${token}/`);
    expect(entered.headers['set-cookie']).toBeUndefined();
    const page = await request(port, `/t/${token}/`);
    expect([200, 503]).toContain(page.status);
    expect(page.headers['set-cookie']).toBeUndefined();
    expect(fs.existsSync(path.join(tmp, 'data'))).toBe(true);

    proc.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(stdoutLines).toEqual([first]);
    expect(stderr).toContain('Ctrl+C');
  }, 30_000);

  it('exits 2 with usage on a bad option', async () => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'electron/main/host/web.ts', '--port', 'nope'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let stderr = '';
    let stdout = '';
    proc.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    proc.stdout?.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => proc.once('exit', (c) => resolve(c)));
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('Usage: npm run web');
  }, 30_000);
});

describe('npm run web and Ctrl+C', () => {
  it('stops cleanly on one Ctrl+C sent to the whole process group, as a terminal sends it', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-web-int-'));
    // Its own process group, as a terminal's foreground job: npm, its shell and the host.
    const proc = spawn('npm', ['run', 'web', '--', '--port', '0', '--data-dir', path.join(tmp, 'data')], {
      cwd: REPO_ROOT,
      detached: true,
      env: { ...process.env, DOCKER_HOST: 'unix:///nonexistent.sock' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stderr = '';
      proc.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        proc.once('exit', (code, signal) => resolve({ code, signal })),
      );
      const lines = readline.createInterface({ input: proc.stdout! });
      await new Promise<void>((resolve, reject) => {
        lines.on('line', (line) => line.startsWith('Berth is running at ') && resolve());
        void exited.then(({ code }) => reject(new Error(`npm run web exited (${code}) before printing its URL:\n${stderr}`)));
      });
      process.kill(-proc.pid!, 'SIGINT');
      // npm waits for its script: exit 0 (not killed by the signal) means the host stopped cleanly.
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(stderr).toContain('Berth is stopping');
      expect(stderr).not.toMatch(/again/);
    } finally {
      if (proc.exitCode === null && proc.signalCode === null) process.kill(-proc.pid!, 'SIGKILL');
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    // `npm run web` compiles the host first (tsc over the whole main process): 45 s here with the
    // machine under the other test projects' load, more at worse moments. The test waits for the
    // URL line, not for a time; this bound only keeps a real hang from blocking the run for ever.
  }, 600_000);
});
