/**
 * Attaching folders read-write, in Chromium against the browser host and the real engine, with
 * Berth running as root (as here): a folder the sandbox cannot write says so right when it is
 * attached, with what to do; a folder of another (non-root) user is written as that user.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName, writeTree } from '../test/support/harness.js';
import { openApp, shot, tempRoot, type RunningHost } from './support/browserHost.js';
import * as ui from './support/ui.js';

const asRoot = process.getuid?.() === 0;
if (!asRoot) console.log('folders.e2e: skipped, these cases are about Berth running as root and this run is not root.');

let root: string;
let host: RunningHost;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  root = tempRoot();
  ({ host, browser, page } = await openApp(root));
  const profile = uniqueName('rw');
  await ui.createProfile(page, profile, 'berth-test:busybox');
  await page.getByLabel('Profile for new chats').selectOption(profile);
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!asRoot)('read-write folders (Berth runs as root)', () => {
  it('a root-owned folder: the attach says the sandbox cannot write it, and what to do', async () => {
    const dir = path.join(root, 'root-owned');
    writeTree(dir, { 'notes.txt': 'hi\n' }, 0, 0);
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await page.getByText(/Sandbox: running/).waitFor({ timeout: 60_000 });
    await ui.attach(page, dir, 'Read-write');
    const warning = page.getByRole('region', { name: 'Attached folders' }).getByRole('alert');
    await warning.waitFor({ timeout: 30_000 });
    const text = (await warning.textContent()) ?? '';
    expect(text).toContain('The sandbox cannot write to this folder');
    expect(text).toContain('belongs to root');
    expect(text).toMatch(/Review mode.*Read-only.*chown -R 1000:1000/);
    await shot(page, 'refused-folder');
    // Attaching recreates the running sandbox; type once its terminal is back (on a busy machine
    // it may still be opening when the attach returns).
    await ui.waitForShellInWorkspace(page, 60_000);
    // It is true: the shell cannot write there.
    await ui.typeInTerminal(page, 'touch /workspace/x; echo "exit=$?"');
    await ui.waitForTerminal(page, (t) => /Permission denied[\s\S]*exit=1/.test(t), 'the refused write', 60_000);
  });

  it("another user's folder: no warning, and what the shell writes there is that user's", async () => {
    const dir = path.join(root, 'someone');
    writeTree(dir, {}, 1234, 1234);
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await page.getByText(/Sandbox: running/).waitFor({ timeout: 60_000 });
    await ui.attach(page, dir, 'Read-write');
    await page.getByRole('region', { name: 'Attached folders' }).getByText(dir).waitFor();
    expect(await page.getByRole('region', { name: 'Attached folders' }).getByRole('alert').count()).toBe(0);
    // Attaching recreates the running sandbox; type once its terminal is back (on a busy machine
    // it may still be opening when the attach returns).
    await ui.waitForShellInWorkspace(page, 60_000);
    await ui.typeInTerminal(page, 'echo hi > /workspace/from-sandbox.txt; echo "exit=$?"');
    await ui.waitForTerminal(page, (t) => t.includes('exit=0'), 'the write', 60_000);
    expect(fs.statSync(path.join(dir, 'from-sandbox.txt')).uid).toBe(1234);
  });
});
