/**
 * Review mode in real Chromium, against the real browser host and engine, with a scripted
 * OpenAI-compatible provider, as a user does it: attach a git repository in Review mode, let the
 * agent write files, read the diff in the Changes panel, undo a turn, apply (exactly those
 * changes reach the folder), discard; then two chats on one repository, and the second Apply
 * refused with the conflicting file listed.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_GID, SANDBOX_UID, chownTree, uniqueName, writeTree } from '../test/support/harness.js';
import type { OpenAiTestServer } from '../test/support/openaiTestServer.js';
import { userGit } from '../test/support/userGit.js';
import { closeAgentApp, openAgentApp } from './support/agentApp.js';
import { writeResponder, type ScriptedWrite } from './support/scriptedWrites.js';
import { shot, type RunningHost } from './support/browserHost.js';
import { attach } from './support/ui.js';

const KEY = 'sk-e2e-review-8d2f1a';
let root: string;
let host: RunningHost;
let browser: Browser;
let page: Page;
let provider: OpenAiTestServer;
const profile = uniqueName('review');

/** What the agent does for each thing the user asks: one write, then a short answer. */
const SCRIPT: Record<string, ScriptedWrite> = {
  'Write a greeting': { path: 'greeting.txt', content: 'hello from the agent\n', answer: 'Wrote greeting.txt.' },
  'Rewrite the readme': { path: 'readme.md', content: '# Rewritten by the agent\n', answer: 'Rewrote readme.md.' },
  'Make a scratch file': { path: 'scratch.txt', content: 'scratch\n', answer: 'Made scratch.txt.' },
  'Write A': { path: 'shared.txt', content: 'from chat A\n', answer: 'Wrote A.' },
  'Write B': { path: 'shared.txt', content: 'from chat B\n', answer: 'Wrote B.' },
};

/** The user's own git, as they would run it. */
const git = (repo: string, ...args: string[]) => userGit(repo, root, ...args);

function userRepo(name: string): string {
  const repo = path.join(root, name);
  writeTree(repo, { 'readme.md': '# Project\n', 'src/main.js': 'console.log(1);\n' }, SANDBOX_UID, SANDBOX_GID);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'first');
  chownTree(repo, SANDBOX_UID, SANDBOX_GID);
  return repo;
}

const read = (p: string) => fs.readFileSync(p, 'utf8');
const conversation = () => page.getByRole('region', { name: 'Conversation' });
const changes = () => page.getByRole('region', { name: 'Changes', exact: true });

/** Starts a chat with `repo` attached in Review mode; returns the chat's title. */
async function newReviewChat(repo: string): Promise<string> {
  const current = page.getByRole('navigation', { name: 'Chats' }).locator('button[aria-current="true"]');
  const before = (await current.count()) > 0 ? await current.textContent() : null;
  await page.getByLabel('Profile for new chats').selectOption(profile);
  await page.getByRole('button', { name: 'New chat', exact: true }).click();
  // The new chat is selected once it exists.
  await expect.poll(async () => ((await current.count()) > 0 ? await current.textContent() : null), { timeout: 30_000 }).not.toBe(before);
  const title = (await current.textContent()) ?? '';
  await attach(page, repo, 'Review');
  await page.getByRole('dialog').waitFor({ state: 'hidden' });
  const row = page.getByRole('list', { name: 'Attached folders' }).getByRole('listitem').filter({ hasText: repo });
  await row.getByText('review', { exact: true }).waitFor({ timeout: 60_000 });
  await row.getByText(/Copy of HEAD [0-9a-f]{7}/).waitFor();
  return title;
}

async function selectChat(title: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Chats' }).getByRole('button', { name: title, exact: true }).click();
  await page.getByRole('heading', { name: title }).waitFor();
}

/** The paths `git status` lists in the user's repository. */
function statusPaths(repo: string): string[] {
  return git(repo, 'status', '--porcelain').split('\n').filter(Boolean).map((line) => line.slice(3));
}

/** Sends a message and waits for the agent's answer and the end of the turn. */
async function ask(text: string): Promise<void> {
  const step = SCRIPT[text];
  if (!step) throw new Error(`no script for ${text}`);
  await conversation().getByRole('textbox', { name: 'Message' }).fill(text);
  await page.keyboard.press('Enter');
  await conversation().getByRole('article', { name: 'Assistant' }).filter({ hasText: step.answer }).waitFor({ timeout: 90_000 });
  await conversation().getByRole('button', { name: 'Send' }).waitFor({ timeout: 30_000 });
}

async function openChanges(): Promise<void> {
  await page.getByRole('button', { name: /^Changes/ }).click();
  await changes().waitFor();
}

async function closeChanges(): Promise<void> {
  await changes().getByRole('button', { name: 'Close Changes' }).click();
  await conversation().waitFor();
}

beforeAll(async () => {
  ({ root, host, browser, page, provider } = await openAgentApp({ profile, key: KEY, responder: writeResponder(SCRIPT, 'review e2e') }));
});

afterAll(() => closeAgentApp({ root, host, browser, provider }));

describe('Review mode in the browser', () => {
  it('reviews the agent’s changes, undoes a turn, applies exactly the rest, and discards', async () => {
    const repo = userRepo('project');
    await newReviewChat(repo);

    // Turn 1 writes a file: the user's folder stays as it was, the sidebar counts the change.
    await ask('Write a greeting');
    expect(fs.existsSync(path.join(repo, 'greeting.txt'))).toBe(false);
    await page.getByRole('navigation', { name: 'Chats' }).getByRole('status', { name: '1 changed file' }).waitFor({ timeout: 30_000 });

    // Turn 2 rewrites the readme; its end says so, and the user undoes it.
    await ask('Rewrite the readme');
    const turns = conversation().getByRole('group', { name: 'Files this turn changed' });
    const second = turns.filter({ hasText: 'readme.md' });
    await second.waitFor({ timeout: 30_000 });
    await expect.poll(() => turns.count(), { timeout: 30_000 }).toBe(2);
    expect(await turns.first().textContent()).toContain('greeting.txt');
    await shot(page, 'review-01-turns');
    await second.getByRole('button', { name: 'Undo this turn' }).click();
    const confirm = page.getByRole('dialog', { name: 'Undo this turn?' });
    await confirm.getByRole('button', { name: 'Undo this turn' }).click();
    await second.getByRole('status').waitFor({ timeout: 30_000 });

    // The Changes panel: only the greeting is left, with its diff.
    await openChanges();
    const list = changes().getByRole('list', { name: `Changed files in ${repo}` });
    await list.getByRole('button', { name: 'greeting.txt (added)' }).waitFor({ timeout: 30_000 });
    await expect.poll(() => list.getByRole('button').count(), { timeout: 30_000 }).toBe(1);
    const diff = changes().getByRole('region', { name: 'Diff of greeting.txt' });
    await expect.poll(() => diff.textContent()).toContain('hello from the agent');
    await changes().getByRole('button', { name: 'Side by side' }).click();
    await diff.locator('.diff-split').waitFor();
    await shot(page, 'review-02-changes');

    // Apply: exactly that change reaches the folder (git sees one new file, the readme as committed).
    await changes().getByRole('button', { name: 'Apply all as uncommitted changes' }).click();
    await changes().getByRole('status').filter({ hasNotText: 'Working' }).first().waitFor({ timeout: 30_000 });
    expect(await changes().getByRole('alert').count()).toBe(0);
    expect(read(path.join(repo, 'greeting.txt'))).toBe('hello from the agent\n');
    expect(read(path.join(repo, 'readme.md'))).toBe('# Project\n');
    expect(statusPaths(repo)).toEqual(['greeting.txt']);
    expect(git(repo, 'log', '--format=%s')).toBe('first\n');

    // Undo last apply: the folder is as it was before it, and the chat's change waits again.
    await changes().getByRole('button', { name: 'Undo last apply (1 file)' }).click();
    await changes().getByText(`Undid the apply: one file in ${repo} is back as it was.`).waitFor({ timeout: 30_000 });
    expect(fs.existsSync(path.join(repo, 'greeting.txt'))).toBe(false);
    expect(statusPaths(repo)).toEqual([]);
    await list.getByRole('button', { name: 'greeting.txt (added)' }).waitFor({ timeout: 30_000 });
    expect(await changes().getByRole('button', { name: /Undo last apply/ }).count()).toBe(0);
    // Applied again, for what follows.
    await changes().getByRole('button', { name: 'Apply all as uncommitted changes' }).click();
    await expect.poll(() => fs.existsSync(path.join(repo, 'greeting.txt')), { timeout: 30_000 }).toBe(true);
    await changes().getByRole('button', { name: 'Undo last apply (1 file)' }).waitFor({ timeout: 30_000 });
    await closeChanges();

    // Discard: the copy goes back to the folder as it is now; the folder never sees the file.
    await ask('Make a scratch file');
    await openChanges();
    await changes().getByRole('button', { name: 'scratch.txt (added)' }).waitFor({ timeout: 30_000 });
    await changes().getByRole('button', { name: 'Discard…' }).click();
    await page.getByRole('dialog', { name: "Discard the chat's changes?" }).getByRole('button', { name: 'Discard changes' }).click();
    await changes().getByText(/No changes: the chat's copy matches your folder/).waitFor({ timeout: 30_000 });
    expect(fs.existsSync(path.join(repo, 'scratch.txt'))).toBe(false);
    expect(statusPaths(repo)).toEqual(['greeting.txt']);
    await shot(page, 'review-03-discarded');
    await closeChanges();
  });

  it('keeps two chats on one repository apart, and refuses the second Apply with the conflict listed', async () => {
    const repo = userRepo('shared');

    // A chat takes its title from its first message: afterwards the sidebar names them so.
    await newReviewChat(repo);
    await ask('Write A');
    const chatA = 'Write A';
    await newReviewChat(repo);
    await ask('Write B');
    const chatB = 'Write B';

    // Chat B sees only its own write.
    await openChanges();
    const diffB = changes().getByRole('region', { name: 'Diff of shared.txt' });
    await expect.poll(() => diffB.textContent(), { timeout: 30_000 }).toContain('from chat B');
    expect(await diffB.textContent()).not.toContain('from chat A');
    await closeChanges();

    // Chat A applies first.
    await selectChat(chatA);
    await openChanges();
    const diffA = changes().getByRole('region', { name: 'Diff of shared.txt' });
    await expect.poll(() => diffA.textContent(), { timeout: 30_000 }).toContain('from chat A');
    await changes().getByRole('button', { name: 'Apply all as uncommitted changes' }).click();
    await expect.poll(() => fs.existsSync(path.join(repo, 'shared.txt')) && read(path.join(repo, 'shared.txt')), { timeout: 30_000 }).toBe('from chat A\n');
    await closeChanges();

    // Chat B's Apply is refused, shared.txt listed, and nothing of B reaches the folder.
    await selectChat(chatB);
    await openChanges();
    await changes().getByRole('button', { name: 'shared.txt (added)' }).waitFor({ timeout: 30_000 });
    await changes().getByRole('button', { name: 'Apply all as uncommitted changes' }).click();
    const refused = changes().getByRole('alert', { name: 'Nothing was applied' });
    await refused.waitFor({ timeout: 30_000 });
    expect(await refused.textContent()).toContain('shared.txt');
    await changes().getByRole('button', { name: 'shared.txt (added, conflict)' }).waitFor();
    expect(read(path.join(repo, 'shared.txt'))).toBe('from chat A\n');
    await shot(page, 'review-04-conflict');
  });
});
