/**
 * Ports in Chromium (README: Ports): a python http.server started in a sealed (`none`) chat's
 * terminal shows in the chat's Ports section; "Open in browser" opens it in a new tab through
 * Berth's forward, which lets that browser in with the link's secret and nothing else.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../test/support/harness.js';
import { NET_IMAGE } from '../test/support/pretendInternet.js';
import { openApp, shot, tempRoot, type RunningHost } from './support/browserHost.js';
import * as ui from './support/ui.js';

let root: string;
let host: RunningHost;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  root = tempRoot();
  ({ host, browser, page } = await openApp(root));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  fs.rmSync(root, { recursive: true, force: true });
}, 120_000);

describe('the Ports section', () => {
  it('opens a sealed sandbox’s http.server in a new tab through Berth, and the bare address refuses another browser', async () => {
    const profile = uniqueName('ports');
    await ui.createProfile(page, profile, NET_IMAGE, 'none');

    await page.getByLabel('Profile for new chats').selectOption(profile);
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await ui.waitForTerminal(page, (t) => t.includes('$'), 'the first prompt');
    await ui.typeInTerminal(page, 'mkdir -p /tmp/e2e-site && cd /tmp/e2e-site && touch seen-in-chromium.txt && python3 -m http.server 8000');
    await ui.waitForTerminal(page, (t) => t.includes('Serving HTTP'), 'the server');

    await page.getByRole('button', { name: /^Ports/ }).click();
    await page.getByRole('button', { name: 'Forward port 8000' }).click();
    const link = page.getByRole('link', { name: 'Open in browser' });
    await link.waitFor();
    await shot(page, 'ports-01-forwarded');
    const href = (await link.getAttribute('href')) as string;
    expect(href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?berth_secret=/);

    const [tab] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
    await tab.waitForLoadState();
    await tab.getByText('seen-in-chromium.txt').waitFor();
    // The secret became a cookie and left the address.
    expect(tab.url()).toBe(href.replace(/\?berth_secret=.*$/, ''));
    await tab.close();

    // Another browser (a fresh context, no cookie) at the bare address: refused.
    const other = await browser.newContext();
    const stranger = await other.newPage();
    const answer = await stranger.goto(href.replace(/\?berth_secret=.*$/, ''));
    expect(answer?.status()).toBe(403);
    expect(await stranger.content()).not.toContain('seen-in-chromium.txt');
    await other.close();
  });
});
