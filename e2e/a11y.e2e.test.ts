/**
 * axe on Berth's main screens, in Chromium against the browser host: no serious or critical
 * violation on the empty window, a chat with its running terminal, the Profiles dialog, the
 * attach flow (mode picker and folder browser), the keyboard shortcuts, a primary button
 * under the pointer (its hover colours are what a user sees while clicking), the Changes panel
 * side by side, and a terminal's note from Berth. Each screen also has its one h1.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { SANDBOX_GID, SANDBOX_UID, uniqueName, writeTree } from '../test/support/harness.js';
import { byTurn, startOpenAiTestServer, type OpenAiTestServer } from '../test/support/openaiTestServer.js';
import { launchBrowser, startHost, tempRoot, type RunningHost } from './support/browserHost.js';
import { seriousViolations } from './support/axe.js';
import * as ui from './support/ui.js';

let root: string;
let host: RunningHost;
let browser: Browser;
let page: Page;
let provider: OpenAiTestServer;
const KEY = 'sk-a11y-0c7d1e';

beforeAll(async () => {
  root = tempRoot();
  provider = await startOpenAiTestServer({ apiKey: KEY });
  host = await startHost(root);
  browser = await launchBrowser();
  // axe opens a page of its own in the same context to finish its run: a context of ours, then.
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  await page.goto(host.url);
  await page.getByRole('status', { name: 'Docker engine' }).getByText(/Docker .*\d/).waitFor({ timeout: 30_000 });
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  await provider?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** No serious or critical violation; a window (not a modal dialog, which hides it) has its one h1. */
async function expectClean(screen: string, { window = true } = {}): Promise<void> {
  const found = await seriousViolations(page);
  expect(found, `${screen}: serious or critical axe violations`).toEqual([]);
  if (window) expect(await page.getByRole('heading', { level: 1 }).count(), `${screen}: one h1`).toBe(1);
}

describe('accessibility (axe, WCAG 2.1 A/AA)', () => {
  it('the window before any chat', async () => {
    await page.getByText('No chat selected.').waitFor();
    await expectClean('empty window');
  });

  it('a chat with its running terminal, and the primary button under the pointer', async () => {
    const profile = uniqueName('axe');
    await ui.createProfile(page, profile, 'berth-test:busybox');
    await page.getByLabel('Profile for new chats').selectOption(profile);
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await page.getByText(/Sandbox: running/).waitFor({ timeout: 60_000 });
    await ui.waitForTerminal(page, (t) => /\$ $/m.test(t.trimEnd() + ' '), 'the prompt');
    await expectClean('chat with a terminal');
    // Scrolled content (the terminal's scrollback, a long conversation) must be reachable by keyboard too.
    await ui.typeInTerminal(page, 'seq 1 300');
    await ui.waitForTerminal(page, (t) => t.includes('\n300'), 'the long output');
    await page.keyboard.press('Control+Shift+Backquote');
    await expectClean('chat with a scrolled terminal');
    await page.getByRole('button', { name: 'New chat', exact: true }).hover();
    await expectClean('New chat under the pointer');
  });

  it('the Profiles dialog', async () => {
    await page.getByRole('button', { name: 'Profiles' }).click();
    await page.getByRole('dialog').waitFor();
    await expectClean('Profiles dialog', { window: false });
    const save = page.getByRole('dialog').getByRole('button', { name: 'Save profile' });
    await save.hover();
    await expectClean('Save profile under the pointer', { window: false });
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
  });

  it('the attach flow: how, then which folder', async () => {
    await page.getByRole('button', { name: 'Attach folder…' }).click();
    await page.getByRole('dialog', { name: 'Attach a folder' }).waitFor();
    await expectClean('attach: mode picker', { window: false });
    await ui.chooseFolderIn(page, 'Read-write');
    await page.getByRole('dialog', { name: 'Choose a folder to attach' }).waitFor();
    await expectClean('attach: folder browser', { window: false });
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Choose a folder to attach' }).waitFor({ state: 'hidden' });
  });

  it('a long conversation with a wide code block: its scrolled parts are reachable by keyboard', async () => {
    const wide = `echo ${'x'.repeat(400)}`;
    const paragraphs = Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1} of a long answer.`).join('\n\n');
    provider.setResponder(byTurn({ text: [`${paragraphs}\n\n`, '```sh\n' + wide + '\n```\n'] }));
    const dialog = await ui.fillAgentProfile(page, { name: uniqueName('axeagent'), image: 'berth-test:busybox', baseUrl: provider.baseUrl, approval: 'Run automatically', key: KEY });
    const name = await dialog.getByLabel('Name').inputValue();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.getByLabel('Profile for new chats').selectOption(name);
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    const conversation = page.getByRole('region', { name: 'Conversation' });
    await conversation.getByRole('textbox', { name: 'Message' }).fill('Tell me a lot');
    await page.keyboard.press('Enter');
    await conversation.locator('pre code', { hasText: 'echo xxx' }).waitFor({ timeout: 60_000 });
    await conversation.getByRole('button', { name: 'Send' }).waitFor();
    await expectClean('long conversation');
  });

  it("the Changes panel side by side, and a terminal's note from Berth", async () => {
    const folder = path.join(root, 'axe-review');
    writeTree(folder, { 'notes.txt': 'one\ntwo\n' }, SANDBOX_UID, SANDBOX_GID);
    const dialog = await ui.fillAgentProfile(page, { name: uniqueName('axereview'), image: 'berth-test:busybox', baseUrl: provider.baseUrl, approval: 'Run automatically', key: KEY });
    const name = await dialog.getByLabel('Name').inputValue();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.getByLabel('Profile for new chats').selectOption(name);
    await ui.newChatAtPrompt(page);
    await ui.attach(page, folder, 'Review');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    // The copy is made once its row says Review.
    await page.getByRole('list', { name: 'Attached folders' }).getByRole('listitem').filter({ hasText: folder }).getByText('review', { exact: true }).waitFor({ timeout: 60_000 });
    // The chat's agent (this profile runs its tools without asking) edits the copy.
    // Its command starts the sandbox again with the folder's copy in it, at /workspace/axe-review (or
    // at /workspace in a chat that took a warm sandbox).
    const edit = 'for f in /workspace/axe-review/notes.txt /workspace/notes.txt; do if [ -f "$f" ]; then echo three >> "$f"; fi; done';
    provider.setResponder(byTurn({ toolCalls: [{ name: 'terminal', arguments: { command: edit } }] }, { text: 'Edited the notes.' }));
    const conversation = page.getByRole('region', { name: 'Conversation' });
    await conversation.getByRole('textbox', { name: 'Message' }).fill('Add a line to the notes');
    await page.keyboard.press('Enter');
    await conversation.getByRole('article', { name: 'Assistant' }).filter({ hasText: 'Edited the notes.' }).waitFor({ timeout: 90_000 });
    await page.getByRole('button', { name: /^Changes/ }).click();
    const changes = page.getByRole('region', { name: 'Changes', exact: true });
    await changes.getByRole('button', { name: 'Side by side' }).click();
    await changes.getByRole('button', { name: /^notes\.txt/ }).click();
    await changes.getByRole('region', { name: 'Diff of notes.txt' }).getByText('three').first().waitFor({ timeout: 30_000 });
    await expectClean('Changes panel, side by side');
    // The empty side of an added line carries no coloured mark (it was a red bar, read as an error).
    type StyleOf = { getComputedStyle(el: unknown, pseudo: string): { backgroundColor: string } };
    const emptyMark = await changes.locator('.diff-gutter-omit').first().evaluate((el) => (globalThis as unknown as StyleOf).getComputedStyle(el, '::before').backgroundColor);
    expect(emptyMark).toBe('rgba(0, 0, 0, 0)');
    await changes.getByRole('button', { name: 'Close Changes' }).click();
    // A terminal that ends gets Berth's note line ("[… — press Restart]").
    await ui.typeInTerminal(page, 'exit');
    await ui.waitForTerminal(page, (t) => t.includes('press Restart]'), "Berth's note");
    await expectClean("a terminal with Berth's note");
  });

  it('the keyboard shortcuts', async () => {
    await page.getByRole('button', { name: /Keyboard shortcuts/i }).click();
    await page.getByText('Leave the terminal for the conversation (message box)').waitFor();
    await expectClean('keyboard shortcuts');
    await page.keyboard.press('Escape');
  });
});
