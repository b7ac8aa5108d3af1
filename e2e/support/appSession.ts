/**
 * The start and end most browser tests share, for a test file: before its tests, the app open on
 * a profile of the file's own (busybox unless told), chosen for new chats; after them, the
 * browser closed, the host stopped, the temp folder removed.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { uniqueName } from '../../test/support/harness.js';
import { openApp, tempRoot, type RunningHost } from './browserHost.js';
import { createProfile } from './ui.js';

export interface AppSession {
  root: string;
  /** A test that starts the host again (a restart) puts the new one here: it is the one stopped. */
  host: RunningHost;
  browser: Browser;
  page: Page;
  profile: string;
}

/** Filled in before the file's tests (`prefix` and a unique tail name the profile). */
export function appWithProfile(prefix: string, image = 'berth-test:busybox'): AppSession {
  const app = {} as AppSession;
  beforeAll(async () => {
    app.root = tempRoot();
    Object.assign(app, await openApp(app.root));
    app.profile = uniqueName(prefix);
    await createProfile(app.page, app.profile, image);
    await app.page.getByLabel('Profile for new chats').selectOption(app.profile);
  });
  afterAll(async () => {
    await app.browser?.close();
    await app.host?.stop();
    if (app.root) fs.rmSync(app.root, { recursive: true, force: true });
  });
  return app;
}
