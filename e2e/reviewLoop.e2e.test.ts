/**
 * The whole Review loop in real Chromium, against the browser host and the real engine, with a
 * scripted provider: the agent edits, the user saves a restore point and goes back to it, undoes
 * a turn, creates a branch in their repository, applies, and discards — while a shell in the
 * chat's terminal keeps running through all of it (the same shell, its background job alive),
 * and afterwards the sandbox user can still write every file and folder of the chat's copy.
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
import type { RunningHost } from './support/browserHost.js';
import { activeTerminal, attach, newChatAtPrompt, typeInTerminal, waitForTerminal } from './support/ui.js';

const KEY = 'sk-e2e-review-loop-5c1e';
let root: string;
let host: RunningHost;
let browser: Browser;
let page: Page;
let provider: OpenAiTestServer;
const profile = uniqueName('loop');

/** What the agent writes for each thing the user asks, then its answer. */
const SCRIPT: Record<string, ScriptedWrite> = {
  'Write a greeting': { path: 'greeting.txt', content: 'hello from the agent\n', answer: 'Wrote greeting.txt.' },
  'Rewrite the readme': { path: 'readme.md', content: '# Rewritten by the agent\n', answer: 'Rewrote readme.md.' },
  'Add a helper': { path: 'src/lib/helper.js', content: 'export const help = 1;\n', answer: 'Added src/lib/helper.js.' },
  'Make a scratch file': { path: 'notes/scratch.txt', content: 'scratch\n', answer: 'Made notes/scratch.txt.' },
};

const git = (repo: string, ...args: string[]) => userGit(repo, root, ...args);

const conversation = () => page.getByRole('region', { name: 'Conversation' });
const changes = () => page.getByRole('region', { name: 'Changes', exact: true });
const changedFiles = (repo: string) => changes().getByRole('list', { name: `Changed files in ${repo}` });

async function ask(text: string): Promise<void> {
  const step = SCRIPT[text];
  if (!step) throw new Error(`no script for ${text}`);
  await conversation().getByRole('textbox', { name: 'Message' }).fill(text);
  await page.keyboard.press('Enter');
  await conversation().getByRole('article', { name: 'Assistant' }).filter({ hasText: step.answer }).last().waitFor({ timeout: 90_000 });
  await conversation().getByRole('button', { name: 'Send' }).waitFor({ timeout: 30_000 });
}

async function openChanges(): Promise<void> {
  if (await changes().count()) return;
  await page.getByRole('button', { name: /^Changes/ }).click();
  await changes().waitFor();
}

/** The files the Changes panel lists for the copy, once it has settled on `expected`. */
async function expectChanged(repo: string, expected: string[]): Promise<void> {
  await expect
    .poll(async () => (await changedFiles(repo).getByRole('button').allTextContents()).map((t) => t.replace(/ \(.*\)$/, '')).sort(), { timeout: 30_000 })
    .toEqual([...expected].sort());
}

/**
 * What the shell that was started first says now: its pid, the variable it exported, and whether
 * its background job still runs. Typed into the terminal, read back by a marker line.
 */
async function shellState(tag: string): Promise<string> {
  await typeInTerminal(page, `echo "STATE-${tag} $$ $LOOPMARK $(kill -0 $LOOPJOB 2>/dev/null && echo job-alive || echo job-gone)"`);
  const text = await waitForTerminal(page, (t) => new RegExp(`\\nSTATE-${tag} \\S+ \\S+ job-\\w+`).test(t), `the shell's state (${tag})`, 60_000);
  return (text.match(new RegExp(`\\nSTATE-${tag} (\\S+ \\S+ job-\\w+)`)) as RegExpMatchArray)[1] as string;
}

beforeAll(async () => {
  ({ root, host, browser, page, provider } = await openAgentApp({ profile, key: KEY, responder: writeResponder(SCRIPT, 'review loop e2e') }));
});

afterAll(() => closeAgentApp({ root, host, browser, provider }));

describe('the Review loop', () => {
  it('restores, undoes, branches, applies and discards while the terminal keeps running, and the sandbox can write every file after', async () => {
    const repo = path.join(root, 'loop');
    writeTree(repo, { 'readme.md': '# Project\n', 'src/main.js': 'console.log(1);\n', 'docs/guide.md': 'guide\n' }, SANDBOX_UID, SANDBOX_GID);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'first');
    chownTree(repo, SANDBOX_UID, SANDBOX_GID);

    await page.getByLabel('Profile for new chats').selectOption(profile);
    await newChatAtPrompt(page);
    // The chat's first terminal is ended before the attach, so the attach (which may make the
    // sandbox again, or start an idle shell again in the folder) has no shell to replace: the
    // shell this test watches is opened after it, and only Review's own steps follow.
    await typeInTerminal(page, 'exit');
    await page.getByRole('tab').filter({ hasText: '(ended)' }).waitFor({ timeout: 30_000 });
    await attach(page, repo, 'Review');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    const row = page.getByRole('list', { name: 'Attached folders' }).getByRole('listitem').filter({ hasText: repo });
    await row.getByText(/Copy of HEAD [0-9a-f]{7}/).waitFor({ timeout: 60_000 });

    // A terminal of its own, opened with the copy in place: a shell with a background job and a variable.
    const before = await activeTerminal(page);
    await page.getByRole('button', { name: 'New terminal', exact: true }).click();
    await expect.poll(() => activeTerminal(page), { timeout: 60_000 }).not.toBe(before);
    await waitForTerminal(page, (t) => /\$ $/.test(t.trimEnd() + ' '), 'the new terminal’s prompt', 60_000);
    await typeInTerminal(page, 'sleep 100000 & LOOPJOB=$!; export LOOPMARK=kept; cd "$(dirname "$(find /workspace -maxdepth 2 -name readme.md | head -n 1)")" && echo "AT-$(pwd) JOB-$LOOPJOB"');
    const text = await waitForTerminal(page, (t) => /\nAT-\/workspace\S* JOB-\d+/.test(t), 'the shell in the copy', 60_000);
    const at = text.match(/\nAT-(\/workspace\S*) JOB-\d+/)?.[1];
    expect(at).toMatch(/^\/workspace/);
    const first = await shellState('start');
    expect(first).toMatch(/^\d+ kept job-alive$/);

    // Turn 1, then a restore point, then turn 2; restoring it takes turn 2's change back.
    await ask('Write a greeting');
    await openChanges();
    await expectChanged(repo, ['greeting.txt']);
    await changes().getByRole('button', { name: 'Checkpoint', exact: true }).click();
    await changes().getByText(/^Checkpoint saved at /).waitFor({ timeout: 30_000 });
    await ask('Rewrite the readme');
    await expectChanged(repo, ['greeting.txt', 'readme.md']);
    const points = changes().getByRole('combobox', { name: 'Restore point' });
    const saved = (await points.locator('option').allTextContents()).find((t) => t.endsWith(': Checkpoint'));
    expect(saved).toBeDefined();
    await points.selectOption({ label: saved as string });
    await changes().getByRole('button', { name: 'Restore…' }).click();
    await page.getByRole('dialog', { name: 'Restore this point?' }).getByRole('button', { name: 'Restore', exact: true }).click();
    await expectChanged(repo, ['greeting.txt']);
    expect(await shellState('restored')).toBe(first);

    // Turn 3 adds a file in new folders; undoing it takes them away again.
    await ask('Add a helper');
    await expectChanged(repo, ['greeting.txt', 'src/lib/helper.js']);
    const turn = conversation().getByRole('group', { name: 'Files this turn changed' }).filter({ hasText: 'src/lib/helper.js' });
    await turn.getByRole('button', { name: 'Undo this turn' }).click();
    await page.getByRole('dialog', { name: 'Undo this turn?' }).getByRole('button', { name: 'Undo this turn' }).click();
    await expectChanged(repo, ['greeting.txt']);
    expect(await shellState('undone')).toBe(first);

    // A branch in the user's repository with the copy's change, their working tree untouched.
    await changes().getByRole('button', { name: 'Create branch in my repository' }).click();
    await expect.poll(() => git(repo, 'branch', '--list', 'berth/*').trim(), { timeout: 30_000 }).not.toBe('');
    const branch = git(repo, 'branch', '--list', 'berth/*').replace('*', '').trim();
    expect(git(repo, 'show', `${branch}:greeting.txt`)).toBe('hello from the agent\n');
    expect(git(repo, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
    expect(fs.existsSync(path.join(repo, 'greeting.txt'))).toBe(false);

    // Apply: the file reaches the folder as an uncommitted change.
    await changes().getByRole('button', { name: 'Apply all as uncommitted changes' }).click();
    await expect.poll(() => fs.existsSync(path.join(repo, 'greeting.txt')), { timeout: 30_000 }).toBe(true);
    expect(fs.readFileSync(path.join(repo, 'greeting.txt'), 'utf8')).toBe('hello from the agent\n');

    // Discard a new turn's file: the copy goes back to the folder as it is now.
    await ask('Make a scratch file');
    await expectChanged(repo, ['notes/scratch.txt']);
    await changes().getByRole('button', { name: 'Discard…' }).click();
    await page.getByRole('dialog', { name: "Discard the chat's changes?" }).getByRole('button', { name: 'Discard changes' }).click();
    await changes().getByText(/No changes: the chat's copy matches your folder/).waitFor({ timeout: 30_000 });
    expect(fs.existsSync(path.join(repo, 'notes'))).toBe(false);

    // The same shell, its job alive; and every file and folder of the copy is the sandbox user's to write.
    expect(await shellState('end')).toBe(first);
    await typeInTerminal(
      page,
      'find . -path ./.git -prune -o -print | while read -r f; do if [ -d "$f" ]; then (touch "$f/.probe" && rm "$f/.probe") 2>/dev/null || echo "NOTWRITABLE $f"; elif [ ! -w "$f" ]; then echo "NOTWRITABLE $f"; fi; done; echo "CHECKED-$((6*7))"',
    );
    const checked = await waitForTerminal(page, (t) => /\nCHECKED-42/.test(t), 'the write check', 60_000);
    expect(checked.split('\n').filter((l) => l.startsWith('NOTWRITABLE'))).toEqual([]);
    // And a file of its own in each of the copy's folders, there and gone.
    await typeInTerminal(page, 'echo mine > src/mine.txt && cat src/mine.txt && rm src/mine.txt && echo "EDITED-$((6*7))"');
    await waitForTerminal(page, (t) => /\nmine\r?\nEDITED-42/.test(t.replace(/\r/g, '')), 'the sandbox’s own edit', 60_000);
  });
});
