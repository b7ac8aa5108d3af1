/**
 * Starts the real browser host (`npm run web`'s entry) as a child process on a temp data
 * folder, and real Chromium through playwright-core. Everything it starts, it stops.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { networkNameFor } from '../../electron/main/policy/names.js';
import { openDatabase } from '../../electron/main/store/database.js';
import { STARTING_POINT_SETTING } from '../../electron/main/policy/startingPoint.js';
import { docker, dockerOk, removeInstanceContainers } from '../../test/support/docker.js';
import { record } from '../../test/support/testRun.js';

export const CHROMIUM = process.env.BERTH_CHROMIUM ?? '/usr/bin/chromium';
const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

export interface RunningHost {
  url: string;
  origin: string;
  dataDir: string;
  instanceId: string;
  stop(): Promise<void>;
}

/**
 * `at`: a port and data folder to start on (the same Berth again, as after a restart); by
 * default a free port and a new data folder under `root`.
 */
/**
 * `knownHosts`: a known_hosts file for ssh:// engines (the test sshd's), instead of the user's.
 * `firstChatQuestion`: a new data folder's first New chat asks how open the network should be
 * (features/network/StartingPointQuestion). Other tests find it answered (Balanced, the default
 * profile's network anyway), as a user's second day would.
 */
export async function startHost(
  root: string,
  env: NodeJS.ProcessEnv = {},
  at: { port?: number; dataDir?: string; knownHosts?: string; firstChatQuestion?: boolean } = {},
): Promise<RunningHost> {
  if (!fs.existsSync(path.join(REPO, 'dist', 'renderer', 'index.html'))) {
    throw new Error('The renderer is not built: run `npm run build:renderer` first (npm test does).');
  }
  const dataDir = at.dataDir ?? fs.mkdtempSync(path.join(root, 'host-data-'));
  if (at.dataDir === undefined && !at.firstChatQuestion) {
    const db = openDatabase(dataDir);
    db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run(STARTING_POINT_SETTING, 'balanced');
    db.close();
  }
  // BERTH_HOST_CPU_PROF=DIR: a Node CPU profile of the host, written there when it stops (bench/README.md).
  const profile = process.env.BERTH_HOST_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BERTH_HOST_CPU_PROF] : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, '--import', 'tsx', 'electron/main/host/web.ts', '--port', String(at.port ?? 0), '--data-dir', dataDir, ...(at.knownHosts ? ['--known-hosts', at.knownHosts] : [])], {
    cwd: REPO,
    // Image preparation at start (a full default image) only where a test asks for it: the others keep today's default image.
    env: { ...process.env, BERTH_PREPARE_IMAGES: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`The host did not print its URL in 30 s. stderr:\n${stderr}`)), 30_000);
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /Berth is running at (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    child.on('exit', (code) => reject(new Error(`The host exited (${code}) before it was ready. stderr:\n${stderr}`)));
  });
  const db = openDatabase(dataDir);
  const instanceId = (db.prepare("SELECT value FROM settings WHERE key = 'instance_id'").get() as { value: string }).value;
  db.close();
  record('instances', instanceId);
  return {
    url,
    origin: new URL(url).origin,
    dataDir,
    instanceId,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 15_000)))]);
        clearTimeout(timer);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      try {
        await removeInstanceContainers(instanceId);
      } finally {
        await removeProfileNetworks(dataDir);
        // Allowlist chats' own sealed networks, labelled with the instance.
        const sealed = (await docker('network', 'ls', '-q', '--filter', `label=berth.instance=${instanceId}`).catch(() => '')).split('\n').filter(Boolean);
        for (const id of sealed) await dockerOk('network', 'rm', id);
      }
    },
  };
}

/**
 * Removes the networks of the profiles made on the host. It runs in another process, so they
 * are read from its store once it has exited (Harness sees them made instead), and recorded
 * for the global teardown's leftover check. `default` is left alone: its network's name is
 * the same for every Berth on the engine. Failures are ignored: the global teardown (or the
 * bench's cleanup notes) report what is left.
 */
async function removeProfileNetworks(dataDir: string): Promise<void> {
  const db = openDatabase(dataDir);
  let profiles: string[];
  try {
    profiles = (db.prepare('SELECT name FROM profiles').all() as Array<{ name: string }>).map((row) => row.name);
  } finally {
    db.close();
  }
  for (const profile of profiles) {
    if (profile === 'default') continue;
    let network: string;
    try {
      network = networkNameFor(profile);
    } catch {
      continue; // a name without letters or digits never had a network
    }
    record('networks', network);
    await dockerOk('network', 'rm', network);
  }
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * What went wrong in a page, as its user's developer tools would show it: errors logged to the
 * console, uncaught exceptions, and anything the page's Content Security Policy refused (each
 * such refusal is either our code doing what the policy forbids, or something we did not load).
 */
export interface PageProblems {
  consoleErrors: string[];
  pageErrors: string[];
  cspViolations: string[];
}

const problemsOf = new WeakMap<Page, PageProblems>();
/** The pages watched in this test file (e2e/support/pageWatch.setup.ts checks them at its end). */
export const watchedPages: Page[] = [];

/** Starts recording `page`'s problems (before it loads anything); read them with `pageProblems`. */
export async function watchPage(page: Page): Promise<void> {
  const problems: PageProblems = { consoleErrors: [], pageErrors: [], cspViolations: [] };
  problemsOf.set(page, problems);
  watchedPages.push(page);
  page.on('console', (m) => {
    if (m.type() === 'error') problems.consoleErrors.push(`${m.text()} (${m.location().url}:${m.location().lineNumber})`);
  });
  page.on('pageerror', (e) => problems.pageErrors.push(e.message));
  await page.exposeFunction('__berthCspViolation', (what: string) => problems.cspViolations.push(what));
  // A string: this file is compiled without the DOM's types.
  await page.addInitScript(`document.addEventListener('securitypolicyviolation', (e) =>
    void __berthCspViolation(e.effectiveDirective + ' refused ' + (e.blockedURI || '(inline)') + ' at ' + e.sourceFile + ':' + e.lineNumber))`);
}

/** What `watchPage` recorded so far (all empty for a page it does not watch). */
export function pageProblems(page: Page): PageProblems {
  return problemsOf.get(page) ?? { consoleErrors: [], pageErrors: [], cspViolations: [] };
}

/** A script for `page.addInitScript`: it runs in the page before the app's own scripts. */
export type InitScript = Parameters<Page['addInitScript']>[0];

/**
 * The host, a browser and one page on Berth's URL (with `initScripts` added first, in order),
 * once the status bar shows the engine. If a step fails, what it started is stopped first.
 */
export async function openApp(
  root: string,
  { initScripts = [], env = {}, permissions = [], at = {} }: { initScripts?: InitScript[]; env?: NodeJS.ProcessEnv; permissions?: string[]; at?: Parameters<typeof startHost>[2] } = {},
): Promise<{ host: RunningHost; browser: Browser; page: Page }> {
  const host = await startHost(root, env, at);
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    // A context of its own (not browser.newPage's implicit one): axe (e2e/support/axe.ts) opens a page in it.
    // `permissions`: what the user granted the page (for example 'notifications').
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, permissions });
    const page = await context.newPage();
    await watchPage(page);
    for (const script of initScripts) await page.addInitScript(script);
    await page.goto(host.url);
    await page.getByRole('status', { name: 'Docker engine' }).getByText(/Docker .*\d/).waitFor({ timeout: 30_000 });
    return { host, browser, page };
  } catch (error) {
    await browser?.close().catch(() => undefined);
    await host.stop().catch(() => undefined);
    throw error;
  }
}

/** The active terminal's text, read from xterm's buffer through the app's test hook. */
export async function terminalText(page: Page): Promise<string> {
  return page.evaluate(() => (globalThis as unknown as { __berthTest: { terminalText(): string } }).__berthTest.terminalText());
}

export function tempRoot(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'berth-e2e-'));
}

export const SCREENSHOTS = path.join(REPO, 'e2e', 'screenshots');

/** Saves what the page shows as e2e/screenshots/<name>.png. */
export async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}
