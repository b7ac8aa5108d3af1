/**
 * The Network view in Chromium (README: Network egress): an allowlist chat's requests through Berth's proxy
 * show as allowed and refused (grouped by host and port, each saying why), and Allow, asked for
 * this chat only, lets that chat's next request through and can be revoked,
 * against a pretend internet of our own (test/support/pretendInternet.ts).
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../test/support/harness.js';
import { NET_IMAGE, startPretendInternet, type PretendInternet } from '../test/support/pretendInternet.js';
import { seriousViolations } from './support/axe.js';
import { openApp, shot, tempRoot, terminalText, type RunningHost } from './support/browserHost.js';
import * as ui from './support/ui.js';

let root: string;
let inet: PretendInternet;
let host: RunningHost;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  root = tempRoot();
  inet = await startPretendInternet();
  process.env.BERTH_EGRESS_NETWORK = inet.network;
  ({ host, browser, page } = await openApp(root));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  await inet?.stop();
  fs.rmSync(root, { recursive: true, force: true });
}, 120_000);

describe('the Network view', () => {
  it('shows allowed and refused requests, and Allow for this chat lets the next request through; Revoke closes it', async () => {
    const profile = uniqueName('net');
    await page.getByRole('button', { name: 'Profiles' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Create profile' }).click();
    await dialog.getByLabel('Name').fill(profile);
    await dialog.getByLabel('Image').fill(NET_IMAGE);
    expect(await dialog.getByRole('combobox', { name: 'Network' }).inputValue()).toBe('allowlist');
    await dialog.getByRole('textbox', { name: /Allowed hosts/ }).fill('allowed.test');
    await dialog.getByRole('button', { name: 'Save profile' }).click();
    await dialog.getByText('Saved.').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    await page.getByLabel('Profile for new chats').selectOption(profile);
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await ui.waitForTerminal(page, (t) => t.includes('$'), 'the first prompt');
    await ui.typeInTerminal(page, 'curl -s http://allowed.test/; curl -s -o /dev/null -w "blocked:%{http_code}\\n" http://blocked.test/');
    await ui.waitForTerminal(page, (t) => t.includes('hello from allowed.test') && t.includes('blocked:403'), 'both requests');

    await page.getByRole('button', { name: /^Network/ }).click();
    const table = page.getByRole('table', { name: 'Network requests' });
    await table.getByRole('row', { name: /allowed\.test.*allowed/ }).waitFor();
    await table.getByRole('row', { name: /blocked\.test.*refused/ }).waitFor();
    await shot(page, 'network-01-refused');
    expect(await seriousViolations(page, '.network-view'), 'the Network view: serious or critical axe violations').toEqual([]);
    await page.getByRole('button', { name: 'Allow… blocked.test:80' }).click();
    const form = page.getByRole('form', { name: 'Allow blocked.test' });
    await form.getByRole('radio', { name: 'For this chat' }).check();
    await shot(page, 'network-02-allow-form');
    expect(await seriousViolations(page, '.network-view'), 'the Allow form: serious or critical axe violations').toEqual([]);
    await form.getByRole('button', { name: 'Allow' }).click();
    const grants = page.getByRole('list', { name: 'Allowed for this chat' });
    await grants.getByText('blocked.test:80, for this chat').waitFor();

    await ui.typeInTerminal(page, 'curl -s http://blocked.test/');
    await ui.waitForTerminal(page, (t) => t.includes('hello from blocked.test'), 'the allowed request');
    await table.getByRole('row', { name: /blocked\.test.*allowed/ }).waitFor();
    await shot(page, 'network-03-allowed');
    expect(await terminalText(page)).toContain('hello from blocked.test');

    // Revoked: the next request is refused again, with the proxy's own words.
    await grants.getByRole('button', { name: 'Revoke blocked.test:80' }).click();
    await grants.waitFor({ state: 'detached' });
    await ui.typeInTerminal(page, 'curl -s http://blocked.test/ | head -c 60; echo');
    await ui.waitForTerminal(page, (t) => t.includes("Berth's egress proxy refused blocked.test:80"), 'the refusal after Revoke');
  });

  it('keeps the conversation and the terminal in view however many requests it lists', async () => {
    // Names the allowlist refuses before any look-up: nothing leaves the machine.
    await ui.typeInTerminal(page, 'for i in $(seq 40); do curl -s -o /dev/null http://h$i.refused.test/; done; echo sent-$((6*7))');
    await ui.waitForTerminal(page, (t) => t.includes('sent-42'), 'the forty requests');
    const table = page.getByRole('table', { name: 'Network requests' });
    await table.getByRole('row', { name: /h40\.refused\.test/ }).waitFor();
    const height = page.viewportSize()?.height ?? 0;
    const terminal = await page.locator('.terminal-panel:not([hidden])').boundingBox();
    // The conversation and terminals' own split: the innermost around the terminal (the Changes panel's split holds it when open).
    const split = await page.locator('.split').filter({ has: page.locator('.terminal-panel') }).last().boundingBox();
    await shot(page, 'network-04-many');
    // Both still on screen and of a usable height; the window itself does not scroll.
    expect(terminal && terminal.y + terminal.height <= height && terminal.height > height * 0.3, `terminal at ${JSON.stringify(terminal)} in a window ${height} high`).toBe(true);
    expect(split && split.y + split.height <= height && split.height > height * 0.3, `conversation and terminals at ${JSON.stringify(split)}`).toBe(true);
    expect(await page.evaluate(() => (globalThis as unknown as { document: { scrollingElement: { scrollHeight: number } } }).document.scrollingElement.scrollHeight)).toBe(height);
    // The oldest request is still there, a scroll away.
    const oldest = table.getByRole('row', { name: /allowed\.test.*allowed/ }).first();
    await oldest.scrollIntoViewIfNeeded();
    expect(await oldest.isVisible()).toBe(true);
    expect(await seriousViolations(page, '.network-view'), 'the Network view, scrolled: serious or critical axe violations').toEqual([]);
  });
});
