/**
 * What a newcomer sees, in Chromium against the browser
 * host and the real engine (screenshots in e2e/screenshots/newcomer-*.png): a first chat right
 * after start with its terminal working; an agent's command waiting for approval, its chat's
 * title shown in full beside its badge; the folder picker on a refused folder (/etc), saying
 * only the refusal and what to do.
 *
 * The default profile's image is Berth's base image, built on first use (minutes here; the
 * first-run e2e covers that): this file names a local Debian image as the base image instead,
 * so the first chat is the default profile's, on an engine that already has its image.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOKWORM } from '../test/support/docker.js';
import { uniqueName } from '../test/support/harness.js';
import { byTurn, startOpenAiTestServer, type OpenAiTestServer } from '../test/support/openaiTestServer.js';
import { openApp, pageProblems, shot, tempRoot, type RunningHost } from './support/browserHost.js';
import * as ui from './support/ui.js';

const KEY = 'sk-e2e-newcomer-1';
const TITLE = 'Write the README';
let root: string;
let host: RunningHost;
let browser: Browser;
let page: Page;
let provider: OpenAiTestServer;

beforeAll(async () => {
  root = tempRoot();
  provider = await startOpenAiTestServer({ apiKey: KEY });
  ({ host, browser, page } = await openApp(root, { env: { BERTH_BASE_IMAGE: BOOKWORM } }));
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  await provider?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** The chat's title in the sidebar: its full text, and whether it is cut (an ellipsis). */
async function titleShown(title: string): Promise<{ text: string; cut: boolean }> {
  const button = page.getByRole('navigation', { name: 'Chats' }).getByRole('button', { name: title, exact: true });
  return button.evaluate((el) => ({ text: el.textContent ?? '', cut: el.scrollWidth > el.clientWidth }));
}

describe("a newcomer's screens", () => {
  it('a first chat right after start: its terminal works', async () => {
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    // Not "starting" beside a terminal that works (it was, when the chat took a warm sandbox still starting).
    await ui.waitForSandboxRunning(page, 120_000);
    await ui.waitForTerminal(page, (t) => t.includes('$'), 'the prompt', 60_000);
    await ui.typeInTerminal(page, 'echo "works in $(pwd)"');
    await ui.waitForTerminal(page, (t) => /works in \//.test(t), 'the echo', 60_000);
    await shot(page, 'newcomer-first-run');
  });

  it("an agent's command waits for approval: the chat's title is shown in full beside its badge", async () => {
    provider.setResponder(byTurn({ toolCalls: [{ name: 'terminal', arguments: { command: 'ls /workspace' } }] }, { text: 'Done.' }));
    const profile = uniqueName('agent');
    const dialog = await ui.fillAgentProfile(page, { name: profile, image: 'berth-test:busybox', baseUrl: provider.baseUrl, approval: 'Ask before each command', key: KEY });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.getByLabel('Profile for new chats').selectOption(profile);
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    const conversation = page.getByRole('region', { name: 'Conversation' });
    // Its (empty) history loaded: until then the message box sends nothing.
    await conversation.getByText('No messages yet.').waitFor();
    await conversation.getByRole('textbox', { name: 'Message' }).fill(TITLE);
    await page.keyboard.press('Enter');
    await expect.poll(() => provider.requests.length, { timeout: 60_000 }).toBeGreaterThan(0);
    await conversation.getByRole('group', { name: 'Approval needed' }).waitFor({ timeout: 120_000 });
    expect(await conversation.getByRole('textbox', { name: 'Message' }).getAttribute('placeholder')).toMatch(/^Waiting for your approval/);
    const nav = page.getByRole('navigation', { name: 'Chats' });
    const item = nav.getByRole('listitem').filter({ has: page.getByRole('button', { name: TITLE, exact: true }) });
    await item.getByRole('status', { name: 'Waiting for your approval' }).waitFor();
    // Open (its Rename and Delete shown too) and at the default window width: the whole title.
    expect(await titleShown(TITLE)).toEqual({ text: TITLE, cut: false });
    await shot(page, 'newcomer-approval-waiting');

    // From another chat, the same.
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await nav.getByRole('button', { name: /^Chat \d+$/ }).last().waitFor();
    await item.getByRole('status', { name: 'Waiting for your approval' }).waitFor();
    expect(await titleShown(TITLE)).toEqual({ text: TITLE, cut: false });
    await nav.getByRole('button', { name: TITLE, exact: true }).click();
    await conversation.getByRole('group', { name: 'Approval needed' }).getByRole('button', { name: 'Deny' }).click();
  });

  it('the folder picker on /etc says only that it is refused and what to do', async () => {
    await page.getByRole('button', { name: 'Attach folder…' }).click();
    await ui.chooseFolderIn(page, 'Review');
    const dialog = page.getByRole('dialog', { name: 'Choose a folder to attach' });
    await expect.poll(() => dialog.getByLabel('Folder path').inputValue(), { timeout: 10_000 }).not.toBe('');
    await dialog.getByLabel('Folder path').fill('/etc');
    await dialog.getByRole('button', { name: 'Go', exact: true }).click();
    const alert = dialog.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/\/etc.*system folder/);
    expect(await alert.textContent()).toContain('Pick another folder');
    expect(await dialog.textContent()).not.toMatch(/will see|through its own copy/);
    expect(await dialog.getByRole('button', { name: 'Choose this folder' }).isDisabled()).toBe(true);
    await shot(page, 'newcomer-refused-folder');
    await page.keyboard.press('Escape');
  });

  it('all along, the page broke no rule of its security policy and logged no error', () => {
    // What a newcomer who opens the developer tools would see after the three screens above.
    expect(pageProblems(page)).toEqual({ consoleErrors: [], pageErrors: [], cspViolations: [] });
  });
});
