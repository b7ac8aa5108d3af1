/**
 * Starts the real browser host (`npm run web`'s entry) as a child process on a temp data
 * folder, and real Chromium through playwright-core. Everything it starts, it stops.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { openDatabase } from '../../electron/main/store/database.js';
import { containersWithLabel, docker } from '../../test/support/docker.js';

export const CHROMIUM = process.env.BERTH_CHROMIUM ?? '/usr/bin/chromium';
const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

export interface RunningHost {
  url: string;
  origin: string;
  dataDir: string;
  instanceId: string;
  stop(): Promise<void>;
}

export async function startHost(root: string): Promise<RunningHost> {
  if (!fs.existsSync(path.join(REPO, 'dist', 'renderer', 'index.html'))) {
    throw new Error('The renderer is not built: run `npm run build:renderer` first (npm test does).');
  }
  const dataDir = fs.mkdtempSync(path.join(root, 'host-data-'));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'electron/main/host/web.ts', '--port', '0', '--data-dir', dataDir], {
    cwd: REPO,
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
  const runDir = process.env.BERTH_TEST_RUN_DIR;
  if (runDir) fs.appendFileSync(path.join(runDir, 'instances'), `${instanceId}\n`);
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
      const left = await containersWithLabel(`berth.instance=${instanceId}`);
      if (left.length) await docker('rm', '-f', ...left);
    },
  };
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

/** The host, a browser and one page on Berth's URL, once the status bar shows the engine. */
export async function openApp(root: string): Promise<{ host: RunningHost; browser: Browser; page: Page }> {
  const host = await startHost(root);
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(host.url);
  await page.getByRole('status', { name: 'Docker engine' }).getByText(/Docker .*\d/).waitFor({ timeout: 30_000 });
  return { host, browser, page };
}

/** The active terminal's text, read from xterm's buffer through the app's test hook. */
export async function terminalText(page: Page): Promise<string> {
  return page.evaluate(() => (globalThis as unknown as { __berthTest: { terminalText(): string } }).__berthTest.terminalText());
}

export function tempRoot(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'berth-e2e-'));
}

export const SCREENSHOTS = path.join(REPO, 'e2e', 'screenshots');
