/**
 * Fork a chat at a turn and compare attempts, in real Chromium against the real browser host and
 * engine with a scripted provider: "Fork from here" on the first of two turns lands in a new chat
 * whose copy holds what that turn wrote (not the second turn's); "Try again in a new chat" there
 * runs the message again in a third chat; Compare attempts shows the two side by side, and
 * applying one writes its file into the folder and closes the other attempts.
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

const KEY = 'sk-e2e-fork-7a2b1c';
let root: string;
let host: RunningHost;
let browser: Browser;
let page: Page;
let provider: OpenAiTestServer;
const profile = uniqueName('fork');
let oneAsked = 0;

function responder(req: RecordedRequest): Step {
  const messages = req.body.messages;
  const lastUser = String([...messages].reverse().find((m) => m.role === 'user')?.content ?? '');
  const answered = messages[messages.length - 1]?.role === 'tool';
  if (lastUser === 'Write one') {
    if (answered) return { text: 'Wrote one.' };
    oneAsked += 1;
    return { toolCalls: [{ name: 'write_file', arguments: { path: 'one.txt', content: oneAsked === 1 ? 'turn one\n' : 'turn one, second try\n' } }] };
  }
  if (lastUser === 'Write two') return answered ? { text: 'Wrote two.' } : { toolCalls: [{ name: 'write_file', arguments: { path: 'one.txt', content: 'turn two\n' } }] };
  return { status: 500, error: { message: `fork e2e: no script for ${JSON.stringify(lastUser)}` } };
}

const conversation = () => page.getByRole('region', { name: 'Conversation' });
const changes = () => page.getByRole('region', { name: 'Changes', exact: true });

/** Sends a message and waits for its turn to end (its fork buttons show only then). */
async function send(text: string, reply: string, turns: number): Promise<void> {
  await conversation().getByRole('textbox', { name: 'Message' }).fill(text);
  await page.keyboard.press('Enter');
  await conversation().getByRole('article', { name: 'Assistant' }).filter({ hasText: reply }).last().waitFor({ timeout: 90_000 });
  await expect.poll(() => conversation().getByRole('group', { name: 'Fork this turn' }).count(), { timeout: 60_000 }).toBe(turns);
}

beforeAll(async () => {
  ({ root, host, browser, page, provider } = await openAgentApp({ profile, key: KEY, responder }));
});

afterAll(() => closeAgentApp({ root, host, browser, provider }));

describe('Fork and compare in the browser', () => {
  it('forks at the first turn, tries it again, compares the two attempts and applies one', async () => {
    const repo = path.join(root, 'forked');
    writeTree(repo, { 'f.txt': 'base\n' }, SANDBOX_UID, SANDBOX_GID);
    const git = (...args: string[]) => userGit(repo, root, ...args);
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'first');
    chownTree(repo, SANDBOX_UID, SANDBOX_GID);

    await page.getByLabel('Profile for new chats').selectOption(profile);
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await attach(page, repo, 'Review');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await page.getByRole('list', { name: 'Attached folders' }).getByText(/Copy of HEAD [0-9a-f]{7}/).waitFor({ timeout: 60_000 });
    await send('Write one', 'Wrote one.', 1);
    await send('Write two', 'Wrote two.', 2);

    // Fork from the first turn: the new chat shows that turn only, and its copy holds what it wrote.
    await conversation().getByRole('group', { name: 'Fork this turn' }).first().getByRole('button', { name: 'Fork from here' }).click();
    await expect.poll(() => conversation().getByRole('article', { name: 'Assistant' }).filter({ hasText: 'Wrote two.' }).count(), { timeout: 30_000 }).toBe(0);
    await conversation().getByRole('article', { name: 'Assistant' }).filter({ hasText: 'Wrote one.' }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: /^Changes/ }).click();
    await changes().getByRole('button', { name: 'one.txt (added)' }).waitFor({ timeout: 30_000 });
    await changes().getByText('turn one').first().waitFor({ timeout: 30_000 });
    expect(await changes().getByText('turn two').count()).toBe(0);
    await shot(page, 'fork-01-forked');

    // Try again there, then compare the fork with its second attempt and keep the second.
    await conversation().getByRole('group', { name: 'Fork this turn' }).last().getByRole('button', { name: 'Try again in a new chat' }).click();
    await conversation().getByRole('article', { name: 'Assistant' }).filter({ hasText: 'Wrote one.' }).waitFor({ timeout: 90_000 });
    await expect.poll(() => oneAsked, { timeout: 60_000 }).toBe(2);
    await conversation().getByRole('group', { name: 'Fork this turn' }).last().getByRole('button', { name: 'Compare attempts' }).click({ timeout: 60_000 });
    const dialog = page.getByRole('dialog', { name: 'Compare attempts' });
    const picker = dialog.getByLabel('Compare with');
    if (await picker.count()) await picker.selectOption({ label: 'Write one (fork)' });
    const row = dialog.getByRole('row', { name: 'one.txt' });
    await row.getByText('turn one, second try').waitFor({ timeout: 30_000 });
    await row.getByText(/^turn one$/).first().waitFor({ timeout: 30_000 });
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'fork-02-compare');
    // The list is behind the dialog (hidden from the accessibility tree meanwhile): found by its element.
    const forkInList = () => page.locator('nav[aria-label="Chats"]').getByText('Write one (fork)', { exact: true }).count();
    expect(await forkInList()).toBe(1);
    await dialog.getByRole('button', { name: /^Apply this attempt and close the others: .*attempt 2/ }).click();
    // The confirmation names the one other attempt (the fork), not the first chat on the same folder.
    const confirm = dialog.getByRole('group', { name: 'Confirm closing attempts' });
    expect(await confirm.getByRole('listitem').allTextContents()).toEqual(['Write one (fork)']);
    await confirm.getByRole('button', { name: 'Apply and delete these chats' }).click();
    await expect.poll(() => (fs.existsSync(path.join(repo, 'one.txt')) ? fs.readFileSync(path.join(repo, 'one.txt'), 'utf8') : ''), { timeout: 30_000 }).toBe('turn one, second try\n');
    await expect.poll(forkInList, { timeout: 30_000 }).toBe(0);
    expect(await page.locator('nav[aria-label="Chats"]').getByText('Write one', { exact: true }).count()).toBe(1);
  });
});
