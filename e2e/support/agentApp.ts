/**
 * The app in Chromium with a profile whose agent runs without asking, against the scripted
 * OpenAI-compatible test server: what the agent and Review e2e files start from.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { startOpenAiTestServer, type OpenAiTestServer, type RecordedRequest, type Step } from '../../test/support/openaiTestServer.js';
import { openApp, tempRoot, type RunningHost } from './browserHost.js';
import { fillAgentProfile } from './ui.js';

export interface AgentApp {
  root: string;
  host: RunningHost;
  browser: Browser;
  page: Page;
  provider: OpenAiTestServer;
}

export async function openAgentApp(opts: { profile: string; key: string; responder: (req: RecordedRequest) => Step; image?: string }): Promise<AgentApp> {
  const made: Partial<AgentApp> = { root: tempRoot() };
  try {
    made.provider = await startOpenAiTestServer({ apiKey: opts.key });
    made.provider.setResponder(opts.responder);
    Object.assign(made, await openApp(made.root!));
    const app = made as AgentApp;
    const dialog = await fillAgentProfile(app.page, {
      name: opts.profile, image: opts.image ?? 'berth-test:busybox', baseUrl: app.provider.baseUrl, approval: 'Run automatically', key: opts.key,
    });
    await app.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    return app;
  } catch (err) {
    await closeAgentApp(made);
    throw err;
  }
}

/** Closes what openAgentApp opened, whatever part of it was reached. */
export async function closeAgentApp(app: Partial<AgentApp>): Promise<void> {
  await app.browser?.close();
  await app.host?.stop();
  await app.provider?.close();
  if (app.root) fs.rmSync(app.root, { recursive: true, force: true });
}
