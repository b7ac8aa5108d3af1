/**
 * Attaching and detaching folders with terminals open, in Chromium against the browser host and
 * the real engine: Berth asks first when something runs in them (and names it), and after the
 * sandbox is recreated the terminals come back by themselves in the same tabs, with their names;
 * ended tabs do not pile up.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_GID, SANDBOX_UID, uniqueName, writeTree } from '../test/support/harness.js';
import { openApp, shot, tempRoot, type RunningHost } from './support/browserHost.js';
import { seriousViolations } from './support/axe.js';
import * as ui from './support/ui.js';

let root: string;
let host: RunningHost;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  root = tempRoot();
  ({ host, browser, page } = await openApp(root));
  const profile = uniqueName('term');
  await ui.createProfile(page, profile, 'berth-test:busybox');
  await page.getByLabel('Profile for new chats').selectOption(profile);
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

const tabs = () => page.getByRole('tablist', { name: 'Terminals' }).getByRole('tab');
const tabNames = async () => (await tabs().allTextContents()).map((t) => t.trim());

describe('terminals across attach and detach', () => {
  it('asks before stopping what runs, then brings the terminals back in their tabs', async () => {
    const folder = path.join(root, 'project');
    writeTree(folder, { 'hello.txt': 'hi\n' }, SANDBOX_UID, SANDBOX_GID);
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await ui.waitForTerminal(page, (t) => t.includes('$ '), 'the first prompt', 60_000);
    await page.getByRole('button', { name: 'New terminal' }).click();
    await expect.poll(tabNames).toEqual(['Terminal 1', 'Terminal 2']);
    await ui.waitForTerminal(page, (t) => t.includes('$ '), 'the second prompt');
    await ui.typeInTerminal(page, 'sleep 600');

    // Something runs: attaching asks first, naming the terminal and the command. Cancel keeps all.
    await page.getByRole('button', { name: 'Attach folder…' }).click();
    await ui.chooseFolderIn(page, 'Read-write');
    const ask = page.getByRole('dialog', { name: 'Stop what runs in the terminals?' });
    await ask.waitFor({ timeout: 30_000 });
    expect(await ask.getByRole('list', { name: 'Running in the terminals' }).innerText()).toMatch(/Terminal 2\s+sleep 600/);
    expect(await ask.innerText()).not.toContain('Terminal 1');
    await shot(page, 'terminals-ask-before-stopping');
    expect(await seriousViolations(page)).toEqual([]);
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'hidden' });
    expect(await page.getByRole('region', { name: 'Attached folders' }).getByText(folder).count()).toBe(0);

    // Agreed: the folder is attached, the same two tabs come back running, saying why.
    await page.getByRole('button', { name: 'Attach folder…' }).click();
    await ui.chooseFolderIn(page, 'Read-write');
    await page.getByRole('dialog', { name: 'Stop what runs in the terminals?' }).getByRole('button', { name: 'Stop them and attach' }).click();
    const browse = page.getByRole('dialog', { name: 'Choose a folder to attach' });
    const pathBox = browse.getByLabel('Folder path');
    await expect.poll(() => pathBox.inputValue()).not.toBe('');
    await pathBox.fill(folder);
    await browse.getByRole('button', { name: 'Choose this folder' }).click();
    await page.getByRole('region', { name: 'Attached folders' }).getByText(folder).waitFor();
    await ui.waitForTerminal(page, (t) => t.includes('this terminal started again'), 'the restart note', 60_000);
    await expect.poll(tabNames).toEqual(['Terminal 1', 'Terminal 2']);
    await ui.typeInTerminal(page, 'cat /workspace/hello.txt');
    await ui.waitForTerminal(page, (t) => /cat \/workspace\/hello.txt\s+hi/.test(t), 'the new folder in the restarted terminal', 60_000);
    await tabs().filter({ hasText: 'Terminal 1' }).click();
    await ui.waitForTerminal(page, (t) => t.includes('this terminal started again'), 'Terminal 1 restarted too', 30_000);
    await shot(page, 'terminals-back-after-attach');

    // Nothing runs now: detaching does not ask, and the tabs stay the same two, none ended.
    await page.getByRole('button', { name: `Detach ${folder}` }).click();
    await page.getByRole('region', { name: 'Attached folders' }).getByText('No folder attached').waitFor({ timeout: 30_000 });
    expect(await page.getByRole('dialog').count()).toBe(0);
    await ui.typeInTerminal(page, 'ls /workspace 2>&1 | head -1; echo done-$((6*7))');
    await ui.waitForTerminal(page, (t) => t.includes('done-42'), 'the shell after the detach', 60_000);
    expect(await tabNames()).toEqual(['Terminal 1', 'Terminal 2']);
  });

  it('ended tabs do not pile up: a new terminal takes their place', async () => {
    await ui.typeInTerminal(page, 'exit');
    await expect.poll(tabNames).toContain('Terminal 1 (ended)');
    await page.getByRole('button', { name: 'New terminal' }).click();
    await expect.poll(tabNames).toEqual(['Terminal 2', 'Terminal 3']);
  });
});

describe('an idle terminal', () => {
  it('blinks its cursor without restyling the page every frame', async () => {
    await ui.newChatAtPrompt(page);
    await ui.typeInTerminal(page, 'echo idle-$((6*7))');
    await ui.waitForTerminal(page, (t) => t.includes('idle-42'), 'the echo');
    await page.locator('.terminal-panel:not([hidden]) .xterm-helper-textarea').focus();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const recalcs = async () =>
      ((await cdp.send('Performance.getMetrics')).metrics as Array<{ name: string; value: number }>).find((m) => m.name === 'RecalcStyleCount')?.value ?? NaN;
    // The cursor goes dark and lit again, as the user sees it (the cell's computed background)...
    const cursor = page.locator('.terminal-panel:not([hidden]) .xterm-rows .xterm-cursor');
    const looks = new Set<string>();
    const before = await recalcs();
    const startedAt = Date.now();
    while (looks.size < 2 && Date.now() - startedAt < 30_000) {
      looks.add(await cursor.evaluate((el) => el.ownerDocument.defaultView?.getComputedStyle(el).backgroundColor ?? ''));
      await page.waitForTimeout(100);
    }
    expect(looks.size).toBe(2);
    // ...and the page restyles about twice a second for it, not on every frame (xterm's CSS blink: 60 a second).
    const seconds = (Date.now() - startedAt) / 1000;
    expect((await recalcs()) - before).toBeLessThan(10 * Math.max(seconds, 1));
    await cdp.detach();
  });
});

describe('find in a terminal', () => {
  it('highlights every match and says which one is selected, of how many', async () => {
    await ui.newChatAtPrompt(page);
    // The command line spells it apart, so only the twelve output lines match.
    await ui.typeInTerminal(page, 'clear; for i in $(seq 12); do echo "nee""dle-$i"; done');
    // Wait for the prompt after them too: any output re-runs xterm's search a moment later,
    // which would move the selection while the test steps through it.
    await ui.waitForTerminal(page, (t) => /needle-12\s[\s\S]*[$#]\s*$/.test(t), 'the twelve lines and the prompt after them');
    const panel = page.locator('.terminal-panel:not([hidden])');
    const screenRows = () => panel.locator('.xterm-rows > div').count();
    const rowsBefore = await screenRows();
    await panel.getByRole('button', { name: 'Find in terminal' }).click();
    const box = panel.getByRole('searchbox', { name: 'Search terminal output' });
    const status = panel.getByRole('search').getByRole('status');
    await box.fill('needle');
    await expect.poll(() => status.textContent()).toMatch(/^\d+ of 12$/);
    const first = Number(/^(\d+)/.exec((await status.textContent()) ?? '')?.[1]);
    // Opening the bar left the screen's size alone (a resize would re-run the search).
    expect(await screenRows()).toBe(rowsBefore);
    await box.press('Enter');
    await expect.poll(() => status.textContent()).toBe(`${(first % 12) + 1} of 12`);
    await box.press('Shift+Enter');
    await expect.poll(() => status.textContent()).toBe(`${first} of 12`);
    // Every match on screen is marked, in the colour of a match, but the selected one, which stands out.
    const matchColours = () =>
      panel.locator('.xterm-rows > div').evaluateAll((rows) =>
        rows
          .filter((r) => (r.textContent ?? '').startsWith('needle-'))
          .map((r) => (r.firstElementChild as unknown as { style: { backgroundColor: string } } | null)?.style.backgroundColor ?? ''),
      );
    const MATCH = 'rgb(92, 74, 26)'; // FIND_DECORATIONS.matchBackground, #5c4a1a
    await expect.poll(async () => (await matchColours()).filter((c) => c === MATCH).length).toBe(11);
    await expect.poll(async () => (await matchColours()).filter((c) => c !== MATCH && c !== '').length).toBe(1);
    const marks = panel.locator('.xterm-find-result-decoration');
    await shot(page, 'terminal-find');
    await box.fill('no-such-text');
    await expect.poll(() => status.textContent()).toBe('No match');
    await expect.poll(() => marks.count()).toBe(0);
    await box.fill('needle');
    await expect.poll(async () => (await matchColours()).filter((c) => c === MATCH).length).toBe(11);
    await box.press('Escape');
    await expect.poll(() => panel.locator('[class*=xterm-find-]').count()).toBe(0);
    await expect.poll(async () => (await matchColours()).filter((c) => c !== '')).toEqual([]);
  });
});
