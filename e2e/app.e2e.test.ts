/**
 * Berth in a real browser (Chromium) against the real browser host and the real engine, used
 * as a person would: by roles and names, reading terminals from xterm's buffer.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containersWithLabel } from '../test/support/docker.js';
import { SANDBOX_GID, SANDBOX_UID, uniqueName, writeTree } from '../test/support/harness.js';
import { openApp, shot, tempRoot, terminalText, type RunningHost } from './support/browserHost.js';
import * as ui from './support/ui.js';

let root: string;
let host: RunningHost;
let browser: Browser;
let page: Page;
const profiles = [uniqueName('alpha'), uniqueName('beta')];

function workspace(name: string, files: Record<string, string>): string {
  const dir = path.join(root, name);
  writeTree(dir, files, SANDBOX_UID, SANDBOX_GID);
  return dir;
}

const waitForTerminal = (pred: (text: string) => boolean, what: string) => ui.waitForTerminal(page, pred, what);
const typeInTerminal = (line: string) => ui.typeInTerminal(page, line);
const createProfile = (name: string) => ui.createProfile(page, name, 'berth-test:busybox');
const activeTerminal = () => ui.activeTerminal(page);
// These chats write straight into the user's folders (the test checks the files there).
const attach = (folder: string) => ui.attach(page, folder, 'Read-write');

const seenTerminals = new Set<string>();

/** Waits until a terminal this test has not used yet is active, and shows `text`. */
async function freshTerminalShowing(text: string, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const id = await activeTerminal();
    if (id && !seenTerminals.has(id) && (await terminalText(page).catch(() => '')).includes(text)) {
      seenTerminals.add(id);
      return;
    }
    if (Date.now() > deadline) {
      await shot(page, `failed-${what.replace(/\W+/g, '-')}`);
      throw new Error(`Timed out waiting for ${what}. The terminal shows:\n${await terminalText(page).catch(() => '')}`);
    }
    await page.waitForTimeout(100);
  }
}

async function newChatIn(profile: string): Promise<void> {
  const active = await activeTerminal();
  if (active) seenTerminals.add(active);
  await page.getByLabel('Profile for new chats').selectOption(profile);
  await page.getByRole('button', { name: 'New chat', exact: true }).click();
  await freshTerminalShowing('/home/berth $', "the new chat's first prompt");
}

/** After a folder change the chat's terminal starts again by itself, in the same tab, in the folder. */
async function restartIntoWorkspace(): Promise<void> {
  const active = await activeTerminal();
  await ui.waitForShellInWorkspace(page);
  expect(await activeTerminal()).toBe(active);
}

/** Runs `stty size` until its columns are fewer than `cols` (30 s at most); its last answer. */
async function ttySizeOnceNarrower(cols: number): Promise<{ rows: number; cols: number }> {
  const deadline = Date.now() + 30_000;
  for (let i = 1; ; i++) {
    await typeInTerminal(`clear; stty size; echo S2-${i}-$((${i}+1))`);
    const mark = `S2-${i}-${i + 1}`;
    const text = await waitForTerminal((t) => t.includes(mark), `stty size after resize (try ${i})`);
    // The line just above the mark's (the echoed command line holds `$((…))`, never the mark).
    const lines = text.split('\n').map((l) => l.trim());
    const m = /^(\d+) (\d+)$/.exec(lines[lines.lastIndexOf(mark) - 1] ?? '');
    const size = { rows: Number(m?.[1]), cols: Number(m?.[2]) };
    if ((m && size.cols < cols) || Date.now() > deadline) return size;
  }
}

beforeAll(async () => {
  root = tempRoot();
  ({ host, browser, page } = await openApp(root));
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('Berth in the browser', () => {
  it('two chats in two profiles each see only their own folder, write files the user owns, resize, and keep scrollback', async () => {
    await shot(page, '01-start');
    for (const p of profiles) await createProfile(p);

    const wsA = workspace('folder-a', { 'only-a.txt': 'a' });
    const wsB = workspace('folder-b', { 'only-b.txt': 'b' });

    await newChatIn(profiles[0] as string);
    await attach(wsA);
    await restartIntoWorkspace();
    await typeInTerminal('ls /workspace; echo A-$((6*7))');
    const inA = await waitForTerminal((t) => t.includes('A-42'), 'ls in chat A');
    expect(inA).toContain('only-a.txt');
    expect(inA).not.toContain('only-b.txt');
    await shot(page, '02-chat-a-terminal');

    await newChatIn(profiles[1] as string);
    await attach(wsB);
    await restartIntoWorkspace();
    await typeInTerminal('ls /workspace; echo "made here" > /workspace/from-terminal.txt; echo B-$((6*7))');
    const inB = await waitForTerminal((t) => t.includes('B-42'), 'ls in chat B');
    expect(inB).toContain('only-b.txt');
    expect(inB).not.toContain('only-a.txt');
    const written = path.join(wsB, 'from-terminal.txt');
    expect(fs.readFileSync(written, 'utf8')).toBe('made here\n');
    expect([fs.statSync(written).uid, fs.statSync(written).gid]).toEqual([SANDBOX_UID, SANDBOX_GID]);

    // Resizing the window reaches the container's TTY.
    await typeInTerminal('seq 1 80');
    await typeInTerminal('stty size; echo S1-$((1+1))');
    const before = /(\d+) (\d+)\s*\n.*S1-2/s.exec(await waitForTerminal((t) => t.includes('S1-2'), 'stty size'));
    expect(before).not.toBeNull();
    const shownRows = "document.querySelector('.terminal-panel:not([hidden]) .xterm-rows').children.length";
    const rowsBefore = await page.evaluate<number>(shownRows);
    await page.setViewportSize({ width: 900, height: 600 });
    // A shorter terminal with its cursor on the last row: the window must not scroll. (xterm's
    // input textarea stays at the old cursor row until the cursor moves; it made the page taller
    // than the window, whose scrollbar then narrowed the terminal.)
    // A function, not a string: a string predicate that must be polled is evaluated in the page,
    // which the page's Content Security Policy (no unsafe-eval) refuses.
    await page.waitForFunction(
      (before) => (globalThis as unknown as { document: { querySelector(s: string): { children: { length: number } } | null } }).document.querySelector('.terminal-panel:not([hidden]) .xterm-rows')!.children.length < before,
      rowsBefore,
    );
    expect(await page.evaluate<number>('document.scrollingElement.scrollHeight')).toBe(600);
    // The new size reaches the TTY once the page has fitted the terminal and told main (after a
    // debounce): ask again, as a person would, until it has or the time is up.
    const after = await ttySizeOnceNarrower(Number(before?.[2]));
    expect(after.cols).toBeLessThan(Number(before?.[2]));
    await page.setViewportSize({ width: 1280, height: 800 });
    await typeInTerminal('echo remember-me-$((5*5))');
    await waitForTerminal((t) => t.includes('remember-me-25'), 'the line to remember');

    // Switching away and back shows the scrollback.
    const nav = page.getByRole('navigation', { name: 'Chats' });
    const chatButtons = nav.getByRole('button', { name: /^Chat \d+$/ });
    await chatButtons.first().click();
    await waitForTerminal((t) => t.includes('A-42') && !t.includes('remember-me-25'), 'chat A again');
    await chatButtons.last().click();
    await waitForTerminal((t) => t.includes('remember-me-25'), 'chat B scrollback');
    await shot(page, '03-chat-b-after-switch');
  });

  it('a refused folder shows a clear message', async () => {
    await page.getByRole('button', { name: 'Attach folder…' }).click();
    await ui.chooseFolderIn(page, 'Review');
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.getByLabel('Folder path').inputValue(), { timeout: 10_000 }).not.toBe('');
    await shot(page, '04-folder-browser');
    await dialog.getByLabel('Folder path').fill('/etc');
    await dialog.getByRole('button', { name: 'Choose this folder' }).click();
    const alert = page.getByRole('alert').filter({ hasText: '/etc' });
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/\/etc is a system folder/);
    await shot(page, '05-refused-folder');
    if (await dialog.isVisible()) await page.keyboard.press('Escape');
  });

  it('deleting a chat asks first, then removes its container', async () => {
    // The two chats' sandboxes (the default profile may also keep a warm one, and a proxy).
    const sandboxes = async () => (await Promise.all(profiles.map((p) => containersWithLabel(`berth.profile=${p}`)))).flat();
    const before = await sandboxes();
    expect(before.length).toBe(2);
    await page.getByRole('button', { name: 'Delete chat' }).first().click();
    const confirm = page.getByRole('dialog');
    expect(await confirm.textContent()).toMatch(/container/i);
    await shot(page, '06-delete-confirm');
    await confirm.getByRole('button', { name: 'Delete chat' }).click();
    await confirm.waitFor({ state: 'hidden' });
    const deadline = Date.now() + 15_000;
    while ((await sandboxes()).length !== 1 && Date.now() < deadline) await page.waitForTimeout(200);
    expect(await sandboxes()).toHaveLength(1);
  });
});
