/**
 * Terminals kept across chat switches, in Chromium against the browser host and the real engine:
 * going back to a chat shows its terminal with all its output, including what came while the
 * user was in another chat, without asking main to repaint it (no `terminal.replay`); a flood in
 * the background is not held back (its screen acknowledges what it parses), and a flood larger
 * than the flow-control window arrives whole and in order, in the background and on screen.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HIGH_WATER_CHARS } from '../shared/flowControl.js';
import { containersWithLabel, dockerOk } from '../test/support/docker.js';
import { uniqueName } from '../test/support/harness.js';
import { openApp, tempRoot, type RunningHost } from './support/browserHost.js';
import * as ui from './support/ui.js';

let root: string;
let host: RunningHost;
let browser: Browser;
let page: Page;

/** Counts the page's `terminal.replay` calls (a repaint from main's copy), wrapping its WebSocket before the app starts. */
function countReplays(): void {
  type Ws = new (...args: unknown[]) => { send(d: unknown): void };
  const g = globalThis as unknown as { WebSocket: Ws; __replays: number };
  g.__replays = 0;
  const Original = g.WebSocket;
  g.WebSocket = class extends Original {
    override send(d: unknown): void {
      if (typeof d === 'string' && d.includes('"method":"terminal.replay"')) g.__replays++;
      super.send(d);
    }
  };
}

const replays = () => page.evaluate(() => (globalThis as unknown as { __replays: number }).__replays);
const chatButton = (name: string) => page.getByRole('navigation', { name: 'Chats' }).getByRole('button', { name, exact: true });

async function newChat(): Promise<void> {
  const before = await ui.activeTerminal(page);
  await page.getByRole('button', { name: 'New chat', exact: true }).click();
  await expect.poll(() => ui.activeTerminal(page)).not.toBe(before);
  await ui.waitForTerminal(page, (t) => /[$#]\s*$/.test(t), "the new chat's first prompt", 60_000);
}

/**
 * The numbers `seq 1 last` printed, as the terminal holds them (its scrollback keeps the newest
 * lines): every one of them is there, once, in order, up to `last` — nothing lost or reordered.
 */
function expectSeqTail(text: string, last: number, atLeast: number): void {
  const lines = text.split('\n');
  const end = lines.lastIndexOf(String(last));
  expect(end, `the terminal shows ${last}`).toBeGreaterThan(0);
  let n = last;
  for (let i = end; i >= 0 && lines[i] === String(n); i--) n--;
  // Contiguous back to the top of what the scrollback keeps.
  expect(last - n, 'numbers in order before the last one').toBeGreaterThanOrEqual(atLeast);
}

beforeAll(async () => {
  root = tempRoot();
  ({ host, browser, page } = await openApp(root, { initScripts: [{ content: 'globalThis.__name ??= (fn) => fn;' }, countReplays] }));
  const profile = uniqueName('keep');
  await ui.createProfile(page, profile, 'berth-test:busybox');
  await page.getByLabel('Profile for new chats').selectOption(profile);
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('terminals kept across chat switches', () => {
  it("shows a chat's terminal again as it was, with what came meanwhile, without a repaint from main", async () => {
    await newChat();
    const first = await ui.activeTerminal(page);
    await ui.typeInTerminal(page, 'echo before-$((6*7))');
    await ui.waitForTerminal(page, (t) => t.includes('before-42'), 'the first output');
    // More than the flow-control window, printed after the user has left the chat: main keeps
    // reading only while the kept screen acknowledges what it parses.
    const last = Math.ceil(HIGH_WATER_CHARS / 6) * 2; // ~7 characters a line: about twice the window
    await ui.typeInTerminal(page, `sleep 3; seq 1 ${last}; touch /tmp/flood-done; echo after-$((6*7))`);

    await newChat();
    expect(await ui.activeTerminal(page)).not.toBe(first);
    const shownReplays = await replays();

    // The flood finishes while its chat is in the background: nothing held it back.
    const containers = await containersWithLabel(`berth.instance=${host.instanceId}`, { running: true });
    await expect
      .poll(async () => {
        for (const c of containers) if (await dockerOk('exec', c, 'test', '-f', '/tmp/flood-done')) return true;
        return false;
      }, { timeout: 120_000, interval: 500 })
      .toBe(true);

    await chatButton('Chat 1').click();
    await expect.poll(() => ui.activeTerminal(page)).toBe(first);
    const text = await ui.waitForTerminal(page, (t) => t.includes('after-42'), 'the flood and the line after it', 60_000);
    expect(text).not.toContain('before-42'); // scrolled out of the 10,000-line scrollback by the flood…
    expectSeqTail(text, last, 9_000); // …whose tail is all there, in order
    expect(await replays()).toBe(shownReplays);
  });

  it('a flood on screen, larger than the flow-control window, arrives whole and in order', async () => {
    const last = Math.ceil(HIGH_WATER_CHARS / 7) * 2;
    await ui.typeInTerminal(page, `clear; seq 1 ${last}; echo flood-$((6*7))`);
    const text = await ui.waitForTerminal(page, (t) => t.includes('flood-42'), 'the end of the flood', 120_000);
    expectSeqTail(text, last, 9_000);
    expect(text.split('\n').filter((l) => l === String(last))).toHaveLength(1);
  });
});
