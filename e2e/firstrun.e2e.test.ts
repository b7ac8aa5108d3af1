/**
 * A newcomer's first minutes, in Chromium against the browser host: the first chat works on an
 * engine with no registry (Berth builds its base image, showing progress), the keyboard is never
 * trapped in the terminal, and a sandbox that cannot start says why once, until that is fixed.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docker, dockerOk } from '../test/support/docker.js';
import { uniqueName } from '../test/support/harness.js';
import { openApp, shot, tempRoot, type RunningHost } from './support/browserHost.js';
import * as ui from './support/ui.js';

let root: string;
let host: RunningHost;
let browser: Browser;
let page: Page;
// Its own tag, so the test sees the first run whatever this engine already has (removed after).
const baseImage = `berth-e2e-base-${uniqueName('b')}:1`;
// The default profile is 'allowlist': its first chat also needs the egress proxy image, built
// here too (debootstrap where no registry answers: minutes on a loaded machine).
const egressImage = `berth-e2e-egress-${uniqueName('e')}:1`;

beforeAll(async () => {
  root = tempRoot();
  ({ host, browser, page } = await openApp(root, { env: { BERTH_BASE_IMAGE: baseImage, BERTH_EGRESS_IMAGE: egressImage } }));
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  await dockerOk('rmi', baseImage);
  await dockerOk('rmi', egressImage);
  fs.rmSync(root, { recursive: true, force: true });
});

/** The message box, or (agent not set up yet) the button that sets it up: the conversation's keyboard target. */
const focusInConversation = () =>
  page.evaluate<boolean>(
    `(() => { const el = document.activeElement; return el?.getAttribute('aria-label') === 'Message' || (el?.tagName === 'BUTTON' && el.closest('.agent-setup') !== null); })()`,
  );
const focusInTerminal = () => page.evaluate<boolean>(`document.activeElement?.closest('.xterm') != null`);

describe('first run', () => {
  it("the first chat builds Berth's base image and egress proxy image with progress, then its terminal works; the message box has the focus", async () => {
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    const building = page.getByRole('progressbar', { name: 'Building image' });
    await building.first().waitFor({ timeout: 60_000 });
    await shot(page, 'first-run-building');
    await ui.waitForTerminal(page, (t) => t.includes('/home/berth $'), 'the first prompt', 900_000);
    await expect.poll(() => page.getByRole('progressbar', { name: 'Building image' }).count()).toBe(0);
    await page.getByText(/Sandbox: running/).waitFor();
    await shot(page, 'first-run-ready');
    expect(await focusInConversation()).toBe(true);
    expect(await focusInTerminal()).toBe(false);
    expect(await dockerOk('image', 'inspect', baseImage)).toBe(true);
    expect(await dockerOk('image', 'inspect', egressImage)).toBe(true);
    // The default profile's chat runs behind its egress proxy, made from that image.
    expect((await docker('ps', '-q', '--filter', `ancestor=${egressImage}`)).trim()).not.toBe('');
  }, 1_000_000);

  it('Tab stays in the terminal (for the shell), and Ctrl+Shift+` leaves it for the conversation', async () => {
    await page.keyboard.press('Control+Backquote');
    expect(await focusInTerminal()).toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Shift+Tab');
    expect(await focusInTerminal()).toBe(true);
    await page.keyboard.press('Control+Shift+Backquote');
    expect(await focusInTerminal()).toBe(false);
    expect(await focusInConversation()).toBe(true);
    // And it is documented where the shortcuts are.
    await page.getByRole('button', { name: /Keyboard shortcuts/i }).click();
    await page.getByText('Leave the terminal for the conversation (message box)').waitFor();
    await page.keyboard.press('Escape');
  });

  it('an image no registry serves shows one error saying so, which goes when the profile is fixed', async () => {
    const profile = uniqueName('offline');
    await ui.createProfile(page, profile, '127.0.0.1:1/nothing-here:1');
    await page.getByLabel('Profile for new chats').selectOption(profile);
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    const alerts = page.getByRole('alert');
    await alerts.filter({ hasText: 'registry cannot be reached' }).first().waitFor({ timeout: 60_000 });
    // Give any second copy (Retry, the terminal pane) time to appear before counting.
    await page.getByText('No terminal open in this chat.').waitFor();
    expect(await alerts.count()).toBe(1);
    await shot(page, 'single-error');

    await page.getByRole('button', { name: 'Profiles' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: new RegExp(profile) }).click();
    await dialog.getByLabel('Image').fill('berth-test:busybox');
    await dialog.getByRole('button', { name: 'Save profile' }).click();
    await dialog.getByText('Saved.').waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => alerts.count(), { timeout: 30_000 }).toBe(0);
    await page.getByText(/Sandbox: running/).waitFor({ timeout: 60_000 });
  });
});

describe('profile settings', () => {
  it('one Save stores the provider, the model and the pasted API key', async () => {
    const profile = uniqueName('keyed');
    await page.getByRole('button', { name: 'Profiles' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Create profile' }).click();
    await dialog.getByLabel('Name', { exact: true }).fill(profile);
    await dialog.getByLabel('Image').fill('berth-test:busybox');
    await dialog.getByLabel('Provider URL').fill('http://127.0.0.1:9/v1');
    await dialog.getByLabel('Model').fill('test-model');
    await dialog.getByLabel('API key').fill('sk-test-one-click');
    await dialog.getByRole('button', { name: 'Save profile' }).click();
    await dialog.getByText('Saved.').waitFor();
    await dialog.getByText('A key is stored for http://127.0.0.1:9').waitFor();
    // Never read back into the page.
    expect(await dialog.getByLabel('API key').inputValue()).toBe('');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  });
});
