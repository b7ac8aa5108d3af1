/**
 * Changes panel first paint: a chat whose Review-mode copy of a git repository has N changed
 * files (default 1,000), in real Chromium against the real browser host and engine. The clock
 * starts in the page at the click on "Changes" and stops at the first animation frame in which
 * the file list and the first file's diff are on screen.
 *
 *   cold: after a page reload (nothing cached: the `review.changes` call, its diffs, parsing,
 *     highlighting and layout are all in it);
 *   warm: the panel opened again in the same page (the changes already loaded; drawing only).
 *
 * Everything it starts (host, browser, containers, network, temp folders) it removes.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, openApp, tempRoot, terminalText, type RunningHost } from '../e2e/support/browserHost.js';
import { attach, createProfile, typeInTerminal, waitForTerminal } from '../e2e/support/ui.js';
import { networkNameFor } from '../electron/main/policy/names.js';
import { containersWithLabel, dockerOk } from '../test/support/docker.js';
import { SANDBOX_GID, SANDBOX_UID, chownTree, writeTree } from '../test/support/harness.js';
import { summarize, type Summary } from './stats.js';

export interface ChangesBenchOptions {
  image: string;
  files: number;
  runs: number;
  log(line: string): void;
  interrupted(): boolean;
}

export interface ChangesBenchResult {
  chromium: string;
  files: number;
  cold: Summary | null;
  warm: Summary | null;
  coldSamples: number[];
  warmSamples: number[];
  cleanupNotes: string[];
}

interface PanelProbe {
  startAt: number | null;
  seenAt: number | null;
}

/** What the probe uses of the page (this file is compiled without the DOM's types). */
interface PanelPage {
  __changesProbe?: PanelProbe;
  document: {
    addEventListener(type: string, fn: () => void, capture: boolean): void;
    removeEventListener(type: string, fn: () => void, capture: boolean): void;
    querySelector(selector: string): unknown;
  };
  requestAnimationFrame(fn: () => void): number;
  performance: { now(): number };
}

/** In the page: the clock starts at the next click (before the app sees it) and stops at the first frame showing the list and a diff. */
function armPanelProbe(): void {
  const g = globalThis as unknown as PanelPage;
  const probe: PanelProbe = { startAt: null, seenAt: null };
  g.__changesProbe = probe;
  const shown = () =>
    g.document.querySelector('.changes-file-list .change-row') !== null && g.document.querySelector('.changes-diff .file-diff, .changes-diff .diff-note') !== null;
  const poll = () => {
    if (g.__changesProbe !== probe) return;
    if (shown()) probe.seenAt = g.performance.now();
    else g.requestAnimationFrame(poll);
  };
  const onClick = () => {
    g.document.removeEventListener('click', onClick, true);
    probe.startAt = g.performance.now();
    g.requestAnimationFrame(poll);
  };
  g.document.addEventListener('click', onClick, true);
}

async function probeMs(page: Page): Promise<number> {
  await page.waitForFunction(() => (globalThis as unknown as { __changesProbe?: PanelProbe }).__changesProbe?.seenAt != null, undefined, {
    polling: 50,
    timeout: 60_000,
  });
  const p = await page.evaluate(() => (globalThis as unknown as { __changesProbe: PanelProbe }).__changesProbe);
  return (p.seenAt as number) - (p.startAt as number);
}

function git(repo: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'safe.directory=*', '-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', ...args], {
    cwd: repo,
    env: { PATH: process.env.PATH, HOME: repo, GIT_CONFIG_NOSYSTEM: '1' },
  });
}

/** A repository of `n` small source files, committed. */
function benchRepo(root: string, n: number): string {
  const repo = path.join(root, 'repo');
  const files: Record<string, string> = {};
  for (let i = 1; i <= n; i++) {
    const lines = Array.from({ length: 20 }, (_, j) => `export const value${j} = ${i * 100 + j};`);
    files[`src/m${i}.ts`] = `${lines.join('\n')}\n`;
  }
  writeTree(repo, files, SANDBOX_UID, SANDBOX_GID);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'bench');
  chownTree(repo, SANDBOX_UID, SANDBOX_GID);
  return repo;
}

async function openPanel(page: Page): Promise<number> {
  await page.evaluate(armPanelProbe);
  await page.getByRole('button', { name: /^Changes/ }).click();
  return probeMs(page);
}

async function closePanel(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Back to the chat' }).click();
  await page.getByRole('region', { name: 'Conversation' }).waitFor();
}

export async function measureChangesPanel(opts: ChangesBenchOptions): Promise<ChangesBenchResult> {
  const root = tempRoot();
  const profile = `bench-${randomBytes(4).toString('hex')}`;
  let host: RunningHost | null = null;
  let browser: Browser | null = null;
  const cleanupNotes: string[] = [];
  const result: ChangesBenchResult = { chromium: CHROMIUM, files: opts.files, cold: null, warm: null, coldSamples: [], warmSamples: [], cleanupNotes };
  try {
    let page: Page;
    ({ host, browser, page } = await openApp(root, { initScripts: [{ content: 'globalThis.__name ??= (fn) => fn;' }] }));
    result.chromium = `${CHROMIUM} (Chromium ${browser.version()}, headless)`;
    opts.log(`changes panel: a repository of ${opts.files} files, attached in Review mode…`);
    const repo = benchRepo(root, opts.files);
    await createProfile(page, profile, opts.image);
    await page.getByLabel('Profile for new chats').selectOption(profile);
    await page.getByRole('button', { name: 'New chat' }).click();
    const title = (await page.getByRole('heading', { level: 1 }).textContent()) ?? '';
    await attach(page, repo, 'Review');
    await page.getByRole('dialog').waitFor({ state: 'hidden', timeout: 120_000 });

    // The terminal starts again by itself in the copy when the folders change: change every file.
    await waitForTerminal(page, (t) => /\/workspace \$\s*$/.test(t), 'the prompt in the copy', 60_000);
    await typeInTerminal(page, `cd /workspace/src && for f in *.ts; do echo "export const changed = 1;" >> "$f"; done; echo changed-$((6*7))`);
    await waitForTerminal(page, (t) => t.includes('changed-42'), 'the files changed', 120_000).catch(async (e: unknown) => {
      throw new Error(`${String(e)}\n${await terminalText(page).catch(() => '')}`);
    });
    const label = `${opts.files.toLocaleString('en-US')} changed files`;
    await page.getByRole('navigation', { name: 'Chats' }).getByRole('status', { name: label }).waitFor({ timeout: 120_000 });

    opts.log(`changes panel: ${opts.runs} cold opens (after a reload) and ${opts.runs} warm ones, +1 warm-up each…`);
    for (let i = 0; i <= opts.runs && !opts.interrupted(); i++) {
      await page.reload();
      await page.getByRole('navigation', { name: 'Chats' }).getByRole('button', { name: title, exact: true }).click();
      await page.getByRole('heading', { name: title }).waitFor();
      const cold = await openPanel(page);
      if (i > 0) result.coldSamples.push(cold);
      await closePanel(page);
    }
    for (let i = 0; i <= opts.runs && !opts.interrupted(); i++) {
      const warm = await openPanel(page);
      if (i > 0) result.warmSamples.push(warm);
      await closePanel(page);
    }
    if (result.coldSamples.length) result.cold = summarize(result.coldSamples);
    if (result.warmSamples.length) result.warm = summarize(result.warmSamples);
    return result;
  } finally {
    await browser?.close().catch((e: unknown) => cleanupNotes.push(`closing Chromium failed: ${String(e)}`));
    if (host) {
      const instanceId = host.instanceId;
      await host.stop().catch((e: unknown) => cleanupNotes.push(`stopping the host failed: ${String(e)}`));
      const left = await containersWithLabel(`berth.instance=${instanceId}`).catch(() => []);
      if (left.length) cleanupNotes.push(`${left.length} container(s) of this host are still there`);
    }
    const net = networkNameFor(profile);
    if (await dockerOk('network', 'inspect', net)) cleanupNotes.push(`network ${net} is still there`);
    fs.rmSync(root, { recursive: true, force: true });
  }
}
