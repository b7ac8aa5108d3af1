/**
 * The browser host restarts while a tab is open (Ctrl+C, then `npm run web` again): the tab
 * cannot get back in (each start has a new token). In Chromium against the real host: while it
 * is down the window is inert and does not claim the sandbox is running; once it is back with
 * another token, the tab says its link expired and what to do, instead of reconnecting forever,
 * and the new URL works.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../test/support/harness.js';
import { openApp, shot, startHost, tempRoot, type RunningHost } from './support/browserHost.js';
import * as ui from './support/ui.js';

let root: string;
let host: RunningHost;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  root = tempRoot();
  ({ host, browser, page } = await openApp(root));
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('the browser host restarts under an open tab', () => {
  it('while down: controls off, no "Sandbox: running"; back with a new token: "link expired" and what to do', async () => {
    const profile = uniqueName('conn');
    await ui.createProfile(page, profile, 'berth-test:busybox');
    await page.getByLabel('Profile for new chats').selectOption(profile);
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await page.getByText(/Sandbox: running/).waitFor({ timeout: 60_000 });
    const newChat = page.getByRole('button', { name: 'New chat', exact: true });
    expect(await newChat.isEnabled()).toBe(true);

    const openChat = await page.locator('h1.chat-title').textContent();
    // Down.
    const port = Number(new URL(host.url).port);
    await host.stop();
    const connection = page.getByRole('status', { name: 'Connection' });
    await connection.getByText(/Reconnecting…/).waitFor({ timeout: 30_000 });
    await page.getByText(/Sandbox: unknown/).waitFor();
    expect(await page.getByText(/Sandbox: running/).count()).toBe(0);
    // Inert: Playwright's click waits for a target that can receive it; a short trial fails.
    await expect(newChat.click({ trial: true, timeout: 1_000 })).rejects.toThrow();
    expect(await connection.getByRole('button', { name: 'Reconnect now' }).isEnabled()).toBe(true);

    // Back on the same port and data, with a new token (as `npm run web` again would).
    const oldUrl = host.url;
    host = await startHost(root, {}, { port, dataDir: host.dataDir });
    expect(host.url).not.toBe(oldUrl);
    await connection.getByRole('button', { name: 'Reconnect now' }).click();
    const expired = page.getByRole('alert').filter({ hasText: 'link has expired' });
    await expired.waitFor({ timeout: 30_000 });
    expect(await expired.textContent()).toContain('Berth was restarted: open the address it printed');
    expect(await expired.textContent()).toContain(`${new URL(host.url).origin}/?token=`);
    await connection.getByText('Link expired').waitFor();
    await shot(page, 'link-expired');
    // It stopped trying: no "Reconnecting…" comes back.
    expect(await connection.getByRole('button', { name: 'Reconnect now' }).count()).toBe(0);

    // The new URL works: the same chats, the sandbox state is known again.
    await page.goto(host.url);
    await page.getByRole('status', { name: 'Connection' }).getByText('Connected').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'New chat', exact: true }).click({ trial: true });
    expect(await page.getByRole('alert').filter({ hasText: 'link has expired' }).count()).toBe(0);
    // The same address (the port is kept across restarts), so the chat that was open is open again.
    expect(await page.locator('h1.chat-title').textContent()).toBe(openChat);
  });
});
