/**
 * What needs the user while they are elsewhere, in Chromium against the
 * browser host and the real engine: a chat whose command waits for approval gets a badge in the
 * sidebar and, with the window in the background, a desktop notification (the browser's
 * Notification API, permission granted as a user would); a chat whose agent finished while
 * another chat was open is marked until it is opened.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../test/support/harness.js';
import { byTurn, startOpenAiTestServer, type OpenAiTestServer, type Step } from '../test/support/openaiTestServer.js';
import { openApp, shot, tempRoot, type RunningHost } from './support/browserHost.js';
import { fillAgentProfile } from './support/ui.js';

const KEY = 'sk-e2e-attention-1';
let root: string;
let host: RunningHost;
let browser: Browser;
let page: Page;
let provider: OpenAiTestServer;
const profile = uniqueName('attn');

/** Records every Notification the page constructs (and still constructs the real one). */
const recordNotifications = `(() => {
  const Real = window.Notification;
  const made = [];
  window.__notifications = made;
  class Recorded extends Real {
    constructor(title, options) {
      super(title, options);
      made.push({ title, body: options && options.body });
    }
  }
  window.Notification = Recorded;
})()`;

/**
 * Headless Chromium has no desktop whose focus can move to another window (every page reports
 * the focus, whichever is in front), so the user's switching away is played by the page's own
 * focus signals: `document.hasFocus()` and the window's blur and focus events.
 */
const playWindowFocus = `(() => {
  let focused = true;
  document.hasFocus = () => focused;
  window.__setWindowFocus = (f) => {
    focused = f;
    window.dispatchEvent(new Event(f ? 'focus' : 'blur'));
  };
})()`;
const setWindowFocus = (focused: boolean) => page.evaluate(`window.__setWindowFocus(${focused})`);

/** A step the test lets go of when it is ready for what it causes. */
function gate(step: Step) {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { step: opened.then(() => step), open };
}

beforeAll(async () => {
  root = tempRoot();
  provider = await startOpenAiTestServer({ apiKey: KEY });
  ({ host, browser, page } = await openApp(root, { initScripts: [recordNotifications, playWindowFocus], permissions: ['notifications'] }));
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  await provider?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const notifications = () => page.evaluate<Array<{ title: string; body: string }>>('window.__notifications');

describe('a chat that needs the user, while they are elsewhere', () => {
  it('badges the chat, notifies while the window is in the background, and marks an answer that came meanwhile', async () => {
    const command = gate({ toolCalls: [{ name: 'terminal', arguments: { command: 'echo built' } }] });
    const answer = gate({ text: 'Built it.' });
    const steps = [command.step, answer.step];
    provider.setResponder((req) => steps[req.body.messages.filter((m) => m.role === 'assistant').length] ?? byTurn()(req, 0));

    const dialog = await fillAgentProfile(page, { name: profile, image: 'berth-test:busybox', baseUrl: provider.baseUrl, approval: 'Ask before each command', key: KEY });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.getByLabel('Profile for new chats').selectOption(profile);
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    const nav = page.getByRole('navigation', { name: 'Chats' });
    await nav.getByRole('button', { name: 'Chat 1' }).waitFor();
    const conversation = page.getByRole('region', { name: 'Conversation' });
    await conversation.getByRole('textbox', { name: 'Message' }).fill('Build it');
    await page.keyboard.press('Enter');
    await expect.poll(() => provider.requests.length, { timeout: 60_000 }).toBe(1);

    // The user goes to another chat (numbered on: Chat 1 took its title from its first message), then to another window.
    await nav.getByRole('button', { name: 'Build it' }).waitFor();
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await nav.getByRole('button', { name: 'Chat 2', exact: true }).waitFor();
    await setWindowFocus(false);
    expect(await page.evaluate<boolean>('document.hasFocus()')).toBe(false);
    command.open();

    await expect.poll(notifications, { timeout: 60_000 }).toEqual([{ title: '“Build it” is waiting for your approval', body: 'The agent wants to use terminal: echo built' }]);

    // Back in Berth: the sidebar says which chat waits.
    await setWindowFocus(true);
    // Its first message named it.
    const chat1 = nav.getByRole('listitem').filter({ has: page.getByRole('button', { name: 'Build it' }) });
    await chat1.getByRole('status', { name: 'Waiting for your approval' }).waitFor();
    await shot(page, 'attention-01-approval-badge');
    await nav.getByRole('button', { name: 'Build it' }).click();
    await conversation.getByRole('status').filter({ hasText: 'Waiting for your approval' }).waitFor();
    const approval = conversation.getByRole('group', { name: 'Approval needed' });
    await approval.getByRole('button', { name: 'Allow once' }).click();
    await chat1.getByRole('status', { name: 'Waiting for your approval' }).waitFor({ state: 'detached' });

    // The answer comes while Chat 2 is open: Chat 1 is marked until it is opened. A focused window gets no notification.
    await expect.poll(() => provider.requests.length, { timeout: 60_000 }).toBe(2);
    await nav.getByRole('button', { name: 'Chat 2', exact: true }).click();
    answer.open();
    await chat1.getByRole('status', { name: 'The agent finished' }).waitFor({ timeout: 60_000 });
    await shot(page, 'attention-02-finished-badge');
    await nav.getByRole('button', { name: 'Build it' }).click();
    await conversation.getByText('Built it.').waitFor();
    await chat1.getByRole('status').waitFor({ state: 'detached' });
    expect(await notifications()).toHaveLength(1);
  });

  it("shows the open chat's sandbox use live in its details, against the profile's limits", async () => {
    // Chat 1's sandbox ran the approved command above, so it is running.
    await page.getByText('Sandbox:').locator('strong', { hasText: 'running' }).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Sandbox details' }).click();
    const use = page.getByRole('group', { name: 'Sandbox use' });
    // The profile's defaults: 2 GiB of memory, 512 processes, 2 cores.
    await use.getByText(/^[\d.]+ (KiB|MiB) of 2\.0 GiB \(\d+ %\)$/).waitFor({ timeout: 30_000 });
    await use.getByText(/^\d+ of 512$/).waitFor();
    await use.getByText(/^\d\.\d\d of 2 cores$/).waitFor({ timeout: 30_000 });
    await use.getByRole('img', { name: /Memory over the last \d+ s/ }).waitFor();
    // Sizes on disk: the home folder and the container's writable layer, measured.
    await expect.poll(() => use.locator('dd').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringMatching(/^[\d.]+ (B|KiB|MiB)$/)]));
    await shot(page, 'attention-03-sandbox-use');
    await page.getByRole('button', { name: 'Sandbox details' }).click();
    await use.waitFor({ state: 'detached' });
  });
});
