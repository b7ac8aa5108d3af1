/**
 * Project environments in Chromium (README: Environments): a repository with a devcontainer.json
 * is attached; the chat offers its environment; accepting it shows the build's steps, then the
 * environment in the header, and the chat's terminal runs the tool its Dockerfile installed.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { environmentImageIds, removeNewEnvironmentImages } from '../test/support/environmentImages.js';
import { chownTree, SANDBOX_GID, SANDBOX_UID, uniqueName } from '../test/support/harness.js';
import { BUSYBOX } from '../test/support/docker.js';
import { openApp, shot, tempRoot, terminalText, type RunningHost } from './support/browserHost.js';
import * as ui from './support/ui.js';

let root: string;
let host: RunningHost;
let browser: Browser;
let page: Page;
let before: ReadonlySet<string> = new Set();
const marker = uniqueName('e2e-env');


beforeAll(async () => {
  before = await environmentImageIds();
  root = tempRoot();
  ({ host, browser, page } = await openApp(root));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  await removeNewEnvironmentImages(before);
  fs.rmSync(root, { recursive: true, force: true });
}, 120_000);

describe("a project's environment", () => {
  it('is offered for an attached repository, built with its steps shown, and its toolchain runs in the terminal', async () => {
    const repo = path.join(root, 'env-repo');
    fs.mkdirSync(path.join(repo, '.devcontainer'), { recursive: true });
    fs.writeFileSync(path.join(repo, '.devcontainer', 'devcontainer.json'), `{
  // ${marker}
  "build": { "dockerfile": "Dockerfile" },
  "containerEnv": { "PATH": "/opt/tool:/usr/local/bin:/usr/bin:/bin" },
  "postCreateCommand": "echo prepared > /opt/tool/prepared",
  "privileged": true
}`);
    fs.writeFileSync(path.join(repo, '.devcontainer', 'Dockerfile'), [
      `FROM ${BUSYBOX}`,
      'RUN mkdir -p /opt/tool && chown 1000:1000 /opt/tool && sleep 2',
      "RUN printf '#!/bin/sh\\necho toolchain-ok-$(cat /opt/tool/prepared)\\n' > /opt/tool/berth-tool && chmod 755 /opt/tool/berth-tool",
    ].join('\n'));
    chownTree(repo, SANDBOX_UID, SANDBOX_GID);

    const profile = uniqueName('env');
    await ui.createProfile(page, profile, BUSYBOX, 'none');
    await page.getByLabel('Profile for new chats').selectOption(profile);
    await ui.newChatAtPrompt(page);
    await ui.attach(page, repo, 'Review');
    const region = page.getByRole('region', { name: 'Project environment' });
    await region.getByRole('button', { name: "Use this project's environment" }).click();
    await region.getByRole('status', { name: 'Environment progress' }).getByText(/Step \d+\/\d+/).waitFor({ timeout: 60_000 });
    await shot(page, 'environment-01-building');
    await region.getByText('Environment: .devcontainer/devcontainer.json').waitFor({ timeout: 120_000 });
    await region.getByRole('button', { name: 'Environment details' }).click();
    expect(await region.getByRole('list', { name: 'Ignored settings' }).textContent()).toContain('privileged');
    await shot(page, 'environment-02-ready');

    // The sandbox was made again from the prepared image. Its terminal may have ended with the
    // old container (it says so): Restart, as a person would.
    const restart = page.getByRole('button', { name: 'Restart terminal' });
    if (await restart.isVisible()) await restart.click();
    const deadline = Date.now() + 60_000;
    let text = '';
    while (!text.includes('toolchain-ok-prepared')) {
      if (Date.now() > deadline) throw new Error(`The tool never ran in the terminal. It shows:\n${text}`);
      await ui.typeInTerminal(page, 'berth-tool');
      text = await ui.waitForTerminal(page, (t) => t.includes('toolchain-ok-prepared'), 'the tool', 5_000).catch(() => terminalText(page));
    }
  }, 300_000);
});
