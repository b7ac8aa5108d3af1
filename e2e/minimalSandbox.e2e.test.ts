/**
 * The first chat before Berth's full default image is ready, in Chromium against the browser host:
 * its header says it runs on the minimal sandbox and the status bar shows the preparation; once
 * the status bar says ready, a new chat is on the full image and its header says nothing of the
 * kind. The full image's build source is injected (berth-test:bookworm) and held by the test.
 */
import fs from 'node:fs';
import path from 'node:path';
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
let hold: string;
const baseTag = `berth-e2e-env-${uniqueName('b')}:1`;

beforeAll(async () => {
  root = tempRoot();
  hold = path.join(root, 'release-preparation');
  ({ host, browser, page } = await openApp(root, {
    env: { BERTH_PREPARE_IMAGES: '1', BERTH_BASE_IMAGE: baseTag, BERTH_FULL_IMAGE_SOURCE: 'berth-test:bookworm', BERTH_TEST_HOLD_PREPARATION: hold },
  }));
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  for (const image of [baseTag, `${baseTag}-full`]) await dockerOk('rmi', '-f', image);
  fs.rmSync(root, { recursive: true, force: true });
});

describe('the minimal sandbox while the full one is prepared', () => {
  it('the first chat says "minimal" while the status bar shows the preparation; a chat after it is ready does not', async () => {
    const preparing = page.getByRole('status', { name: 'Full sandbox image' });
    await preparing.getByText('preparing…').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await page.getByText(/^Minimal sandbox: the full environment is being prepared/).waitFor({ timeout: 120_000 });
    await shot(page, 'minimal-sandbox');

    fs.writeFileSync(hold, '');
    await preparing.getByText('ready').waitFor({ timeout: 120_000 });
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    // The new chat's sandbox runs on the full image, and its header says nothing of a minimal one.
    await expect.poll(async () => (await docker('ps', '-q', '--filter', `ancestor=${baseTag}-full`)).trim() !== '', { timeout: 120_000 }).toBe(true);
    await page.getByText(/Sandbox: running/).waitFor({ timeout: 60_000 });
    await expect.poll(() => page.getByText(/Minimal sandbox/).count(), { timeout: 60_000 }).toBe(0);
    await ui.waitForTerminal(page, (t) => t.includes('$'), 'the full sandbox prompt', 120_000);
    await shot(page, 'full-sandbox');
  }, 400_000);
});
