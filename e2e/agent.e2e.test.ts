/**
 * One full agent chat in real Chromium, against the real browser host and engine, with a
 * scripted OpenAI-compatible provider over real HTTP and SSE: set the profile's model and key,
 * attach a folder, ask, approve the command, read the streamed answer and the tool cards,
 * and find the conversation again after a reload.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_GID, SANDBOX_UID, uniqueName, writeTree } from '../test/support/harness.js';
import { byTurn, startOpenAiTestServer, type OpenAiTestServer } from '../test/support/openaiTestServer.js';
import { openApp, shot, tempRoot, type RunningHost } from './support/browserHost.js';
import { attach, fillAgentProfile } from './support/ui.js';

const KEY = 'sk-e2e-4f1c9a7b2d';
let root: string;
let host: RunningHost;
let browser: Browser;
let page: Page;
let provider: OpenAiTestServer;
const profile = uniqueName('agent');

beforeAll(async () => {
  root = tempRoot();
  provider = await startOpenAiTestServer({ apiKey: KEY });
  ({ host, browser, page } = await openApp(root));
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  await provider?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('an agent chat in the browser', () => {
  it('sets up the model, asks before a command, streams the answer with tool cards, and keeps it after a reload', async () => {
    const folder = path.join(root, 'project');
    writeTree(folder, { 'readme.md': '# Project\n' }, SANDBOX_UID, SANDBOX_GID);
    provider.setResponder(byTurn(
      { toolCalls: [{ name: 'list_dir', arguments: {} }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo hello-from-agent > /workspace/agent.txt' } }] },
      { toolCalls: [{ name: 'edit_file', arguments: { path: 'readme.md', edits: [{ old_string: '# Project', new_string: '# Project, edited' }] } }] },
      { text: ['I wrote **agent.txt**.\n\n', '```sh\ncat agent.txt\n```\n'], chunkDelayMs: 20 },
    ));

    // The profile: image, provider, model, approval and its key in one Save; the key is never shown back.
    const dialog = await fillAgentProfile(page, { name: profile, image: 'berth-test:busybox', baseUrl: provider.baseUrl, approval: 'Ask before each command', key: KEY });
    await dialog.getByText(`A key is stored for ${new URL(provider.baseUrl).origin}`).waitFor();
    expect(await dialog.getByLabel('API key').inputValue()).toBe('');
    await shot(page, 'agent-01-profile');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    // A chat in that profile, with the folder attached read-write (Review mode has its own test).
    await page.getByLabel('Profile for new chats').selectOption(profile);
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await attach(page, folder, 'Read-write');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });

    const conversation = page.getByRole('region', { name: 'Conversation' });
    await conversation.getByRole('textbox', { name: 'Message' }).fill('Write a file saying hello');
    await page.keyboard.press('Enter');

    // The command waits for the user, who sees exactly what would run.
    const approval = conversation.getByRole('group', { name: 'Approval needed' });
    await approval.waitFor({ timeout: 60_000 });
    await expect.poll(() => approval.textContent()).toContain('echo hello-from-agent > /workspace/agent.txt');
    expect(fs.existsSync(path.join(folder, 'agent.txt'))).toBe(false);
    await shot(page, 'agent-02-approval');
    await approval.getByRole('button', { name: 'Allow once' }).click();
    // The edit asks too, showing its diff; allowed, its card draws the diff.
    await expect.poll(() => approval.textContent(), { timeout: 60_000 }).toContain('+# Project, edited');
    await approval.getByRole('button', { name: 'Allow once' }).click();

    // The streamed answer, rendered as Markdown with a highlighted code block.
    const answer = conversation.getByRole('article', { name: 'Assistant' }).filter({ hasText: 'I wrote agent.txt' });
    await answer.waitFor({ timeout: 60_000 });
    await answer.locator('strong', { hasText: 'agent.txt' }).waitFor();
    await answer.locator('pre code', { hasText: 'cat agent.txt' }).waitFor();
    await conversation.getByRole('button', { name: 'Send' }).waitFor();
    expect(fs.readFileSync(path.join(folder, 'agent.txt'), 'utf8')).toBe('hello-from-agent\n');
    expect(fs.statSync(path.join(folder, 'agent.txt')).uid).toBe(SANDBOX_UID);

    // Tool cards: the command, and the listing's output behind "Show output".
    const runCard = conversation.getByRole('group', { name: 'terminal: echo hello-from-agent > /workspace/agent.txt' });
    await expect.poll(() => runCard.innerText()).toMatch(/Exit code\s+0\b/);
    expect(await runCard.innerText()).toMatch(/Directory\s+\/workspace/);
    const listCard = conversation.getByRole('group', { name: 'list_dir: list /workspace' });
    await listCard.getByRole('button', { name: 'Show output' }).click();
    await expect.poll(() => listCard.textContent()).toContain('readme.md');
    const editCard = conversation.getByRole('group', { name: 'edit_file: edit /workspace/readme.md' });
    const diff = editCard.getByRole('region', { name: 'Diff of /workspace/readme.md' });
    await expect.poll(() => diff.locator('.diff-code-insert').allTextContents()).toEqual(['# Project, edited']);
    expect(await diff.locator('.diff-code-delete').allTextContents()).toEqual(['# Project']);
    expect(fs.readFileSync(path.join(folder, 'readme.md'), 'utf8')).toBe('# Project, edited\n');
    await shot(page, 'agent-03-answer');

    // The provider got the key; the page never did.
    expect(provider.requests.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(await page.content()).not.toContain(KEY);

    // After a reload the conversation is still there.
    await page.reload();
    await page.getByRole('region', { name: 'Conversation' }).getByRole('article', { name: 'You' }).filter({ hasText: 'Write a file saying hello' }).waitFor({ timeout: 30_000 });
    await page.getByRole('region', { name: 'Conversation' }).getByText('I wrote').waitFor();
  });
});
