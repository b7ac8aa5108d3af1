/**
 * The first New chat on a fresh data folder asks how open the network should be (Locked down,
 * Balanced, Open), in Chromium against the browser host: axe finds nothing serious in the
 * question, the answer is the default profile's network (its form shows it, its chat's sandbox
 * has it), and the next New chat does not ask again.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, shot, tempRoot, type RunningHost } from './support/browserHost.js';
import { seriousViolations } from './support/axe.js';
import * as ui from './support/ui.js';

let root: string;
let host: RunningHost;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  root = tempRoot();
  ({ host, browser, page } = await openApp(root, { at: { firstChatQuestion: true } }));
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe("the first chat's network question", () => {
  it('asks once at the first New chat; Locked down is the default profile network and its sandbox has none', async () => {
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: "How open should your sandboxes' network be?" });
    await dialog.waitFor();
    await dialog.getByText('No network at all: nothing in or out of the sandbox.').waitFor();
    await dialog.getByText(/The package registries and code hosts only/).waitFor();
    await dialog.getByText('The whole internet and the services on your computer.').waitFor();
    await shot(page, 'first-chat-question');
    expect(await seriousViolations(page, '[role="dialog"]'), 'the first-chat question: serious or critical axe violations').toEqual([]);
    // No chat until it is answered.
    expect(await page.getByRole('navigation', { name: 'Chats' }).getByRole('button', { name: 'Chat 1' }).count()).toBe(0);

    await dialog.getByRole('radio', { name: /Locked down/ }).check();
    await dialog.getByRole('button', { name: 'Start the chat' }).click();
    await dialog.waitFor({ state: 'detached' });
    await ui.waitForTerminal(page, (t) => /[$#]\s*$/.test(t), 'the first chat prompt', 120_000);
    // Locked down: the sandbox has its loopback and nothing else.
    await ui.typeInTerminal(page, 'echo nets: $(ls /sys/class/net)');
    await ui.waitForTerminal(page, (t) => /nets: lo\s/.test(t), 'the sandbox network interfaces');

    // The profile form shows the answer, and can change it later.
    await page.getByRole('button', { name: 'Profiles' }).click();
    const profiles = page.getByRole('dialog');
    expect(await profiles.getByRole('combobox', { name: 'Network' }).inputValue()).toBe('none');
    await page.keyboard.press('Escape');
    await profiles.waitFor({ state: 'hidden' });

    // Never asked again.
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await page.getByRole('navigation', { name: 'Chats' }).getByRole('button', { name: 'Chat 2' }).waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
  }, 300_000);
});
