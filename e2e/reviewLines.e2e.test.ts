/**
 * Apply by hunk and by line, comments to the agent, and a conflict resolved, in real Chromium
 * against the real browser host and engine with a scripted provider: lines chosen with the mouse
 * and the keyboard reach the folder and nothing else does; a comment on a line reaches the agent
 * with its file, line and words; a line both sides changed ends with the user's choice applied.
 * axe finds nothing serious on the panel with lines being chosen.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_GID, SANDBOX_UID, chownTree, uniqueName, writeTree } from '../test/support/harness.js';
import { type OpenAiTestServer, type RecordedRequest, type Step } from '../test/support/openaiTestServer.js';
import { seriousViolations } from './support/axe.js';
import { closeAgentApp, openAgentApp } from './support/agentApp.js';
import { shot, type RunningHost } from './support/browserHost.js';
import { attach } from './support/ui.js';
import { userGit } from '../test/support/userGit.js';

const KEY = 'sk-e2e-lines-5c1d9e';
let root: string;
let host: RunningHost;
let browser: Browser;
let page: Page;
let provider: OpenAiTestServer;
const profile = uniqueName('lines');

const LINES = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
const BASE = `${LINES.join('\n')}\n`;
const with_ = (edits: Record<number, string>) => `${LINES.map((l, i) => edits[i + 1] ?? l).join('\n')}\n`;

function responder(req: RecordedRequest): Step {
  const messages = req.body.messages;
  const lastUser = String([...messages].reverse().find((m) => m.role === 'user')?.content ?? '');
  if (lastUser.startsWith('Review comments')) return { text: 'Noted, I will change it.' };
  if (lastUser !== 'Edit the file') return { status: 500, error: { message: `lines e2e: no script for ${JSON.stringify(lastUser)}` } };
  if (messages[messages.length - 1]?.role === 'tool') return { text: 'Edited f.txt.' };
  return { toolCalls: [{ name: 'write_file', arguments: { path: 'f.txt', content: with_({ 2: 'chat two', 18: 'chat eighteen' }) } }] };
}

const git = (repo: string, ...args: string[]): string => userGit(repo, root, ...args);

const changes = () => page.getByRole('region', { name: 'Changes', exact: true });
const conversation = () => page.getByRole('region', { name: 'Conversation' });
const read = (p: string) => fs.readFileSync(p, 'utf8');

beforeAll(async () => {
  ({ root, host, browser, page, provider } = await openAgentApp({ profile, key: KEY, responder }));
});

afterAll(() => closeAgentApp({ root, host, browser, provider }));

describe('Review: hunks, lines, comments and conflicts in the browser', () => {
  it('applies lines chosen by mouse and keyboard, sends a comment to the agent, and resolves a conflict', async () => {
    const repo = path.join(root, 'lines');
    writeTree(repo, { 'f.txt': BASE }, SANDBOX_UID, SANDBOX_GID);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'first');
    chownTree(repo, SANDBOX_UID, SANDBOX_GID);

    await page.getByLabel('Profile for new chats').selectOption(profile);
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await attach(page, repo, 'Review');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await page.getByRole('list', { name: 'Attached folders' }).getByText(/Copy of HEAD [0-9a-f]{7}/).waitFor({ timeout: 60_000 });
    await conversation().getByRole('textbox', { name: 'Message' }).fill('Edit the file');
    await page.keyboard.press('Enter');
    await conversation().getByRole('article', { name: 'Assistant' }).filter({ hasText: 'Edited f.txt.' }).waitFor({ timeout: 90_000 });

    await page.getByRole('button', { name: /^Changes/ }).click();
    await changes().getByRole('button', { name: 'f.txt (modified)' }).waitFor({ timeout: 30_000 });
    await changes().getByRole('button', { name: 'Choose hunks and lines' }).click();
    const lines = changes().getByRole('listbox', { name: 'Lines of f.txt' });
    // Mouse: the added line of the first hunk. Keyboard: up to its removed line, Space.
    await lines.getByRole('option', { name: 'added line 2: chat two' }).click();
    await lines.focus();
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Space');
    expect(await lines.getByRole('option', { selected: true }).count()).toBe(2);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'review-lines-01-chosen');
    await changes().getByRole('button', { name: 'Apply 2 selected lines' }).click();
    await expect.poll(() => read(path.join(repo, 'f.txt')), { timeout: 30_000 }).toBe(with_({ 2: 'chat two' }));

    // The other hunk stays in the copy; a comment on its added line goes to the agent.
    // The chooser stays open on the file, now with the rest of its changes.
    await expect.poll(() => lines.getByRole('option', { name: /line 2: chat two/ }).count(), { timeout: 30_000 }).toBe(0);
    await lines.getByRole('option', { name: 'added line 18: chat eighteen' }).click({ timeout: 30_000 });
    await changes().getByRole('button', { name: 'Comment on selected lines' }).click();
    await changes().getByLabel('Comment on line 18').fill('Spell eighteen as 18.');
    await changes().getByRole('button', { name: 'Add to review' }).click();
    await changes().getByText('Review draft: 1 comment').waitFor({ timeout: 30_000 });
    provider.requests.length = 0;
    await changes().getByRole('button', { name: 'Send to the agent' }).click();
    await changes().getByText("Sent 1 comment to the chat's agent.").waitFor({ timeout: 30_000 });
    await expect.poll(() => provider.requests.length, { timeout: 60_000 }).toBeGreaterThan(0);
    const told = String(provider.requests[0]!.body.messages.filter((m) => m.role === 'user').at(-1)?.content);
    expect(told).toContain('f.txt, line 18:\n```\nchat eighteen\n```\nSpell eighteen as 18.');

    // The user changes the same line in the folder: Apply refuses, Resolve shows three ways, the chat's wins.
    fs.writeFileSync(path.join(repo, 'f.txt'), with_({ 2: 'chat two', 18: 'MINE eighteen' }));
    await changes().getByRole('button', { name: 'Apply all as uncommitted changes' }).click();
    await changes().getByRole('button', { name: 'Resolve f.txt…' }).click({ timeout: 30_000 });
    const dialog = page.getByRole('dialog', { name: 'Resolve f.txt' });
    await dialog.getByText('MINE eighteen').waitFor({ timeout: 30_000 });
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'review-lines-02-three-way');
    await dialog.getByRole('radio', { name: "Take the chat's" }).check();
    await dialog.getByRole('button', { name: 'Apply resolution' }).click();
    await expect.poll(() => read(path.join(repo, 'f.txt')), { timeout: 30_000 }).toBe(with_({ 2: 'chat two', 18: 'chat eighteen' }));
  });
});
