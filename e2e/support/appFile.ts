/**
 * A test file's app: before its tests the browser host, a browser and a page (with a profile of
 * `image` chosen for new chats, when given); after them all stopped and the folder removed.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { uniqueName } from '../../test/support/harness.js';
import { openApp, tempRoot, type RunningHost } from './browserHost.js';
import { createProfile } from './ui.js';

export interface AppFile {
  root: string;
  host: RunningHost;
  browser: Browser;
  page: Page;
}

export function appForFile(image?: string): AppFile {
  const app = {} as AppFile;
  beforeAll(async () => {
    app.root = tempRoot();
    Object.assign(app, await openApp(app.root));
    if (image === undefined) return;
    const profile = uniqueName('e2e');
    await createProfile(app.page, profile, image);
    await app.page.getByLabel('Profile for new chats').selectOption(profile);
  });
  afterAll(async () => {
    await app.browser?.close();
    await app.host?.stop();
    if (app.root) fs.rmSync(app.root, { recursive: true, force: true });
  });
  return app;
}
