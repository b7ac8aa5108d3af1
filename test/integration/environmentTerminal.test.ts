/**
 * A terminal open while the chat's sandbox moves to its project environment: accepting the
 * environment makes the sandbox again from another image (the built one, then the prepared one),
 * and the open terminal starts again in place in it, after a line saying why, where the
 * project's toolchain runs. It never ends waiting for the user to press Restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { removesItsEnvironmentImages } from '../support/environmentImages.js';
import { Harness, uniqueName } from '../support/harness.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
removesItsEnvironmentImages();
let core: BerthCore;
let profile: string;
const output = new Map<string, string>();
const exits = new Map<string, string>();
const marker = uniqueName('envterm');
const screen = (id: string) => output.get(id) ?? '';

beforeAll(async () => {
  core = h.core();
  profile = (await h.profile(core, { egress: 'none' })).name;
  core.onEvent((event, payload) => {
    if (event === 'terminal.data') {
      const p = payload as { terminalId: string; data: string };
      output.set(p.terminalId, screen(p.terminalId) + p.data);
    }
    if (event === 'terminal.exit') {
      const p = payload as { terminalId: string; reason: string };
      exits.set(p.terminalId, p.reason);
    }
  });
}, 60_000);

afterAll(async () => {
  await h.cleanup();
}, 120_000);

const folder = () =>
  h.workspace('repo', {
    '.devcontainer/devcontainer.json': `{ "name": "${marker}", "build": { "dockerfile": "Dockerfile" },
      "containerEnv": { "PATH": "/opt/tool:/usr/local/bin:/usr/bin:/bin" },
      "postCreateCommand": "echo made > /opt/tool/made" }`,
    '.devcontainer/Dockerfile': [
      'FROM berth-test:busybox',
      "RUN mkdir -p /opt/tool && chown 1000:1000 /opt/tool && printf '#!/bin/sh\\necho toolchain-ok\\n' > /opt/tool/berth-tool && chmod 755 /opt/tool/berth-tool",
    ].join('\n'),
  });

/** A chat on the folder with a terminal open in its sandbox (the profile's image: no toolchain). */
async function chatWithTerminal(repo: string): Promise<{ chatId: string; terminalId: string }> {
  const chatId = (await core.chats.create({ profile })).id;
  await core.workspace.attach({ chatId, path: repo });
  const { terminalId } = await core.terminal.open({ chatId, cols: 100, rows: 30 });
  await core.terminal.input({ terminalId, data: 'command -v berth-tool || echo no-tool-yet\n' });
  await waitFor(async () => screen(terminalId).includes('no-tool-yet\r\n'), 'the first shell');
  return { chatId, terminalId };
}

/** The same terminal, running, said why it started again, and runs the toolchain. */
async function expectRestartedWithToolchain(chatId: string, terminalId: string): Promise<void> {
  await waitFor(async () => screen(terminalId).includes('The chat’s project environment changed') || exits.has(terminalId), 'the restart line');
  expect(exits.get(terminalId)).toBeUndefined();
  expect((await core.terminal.list({ chatId })).terminals).toMatchObject([{ terminalId, state: 'running' }]);
  await core.terminal.input({ terminalId, data: 'berth-tool; cat /opt/tool/made\n' });
  await waitFor(async () => /toolchain-ok\r\nmade\r\n/.test(screen(terminalId)), 'the toolchain in the restarted terminal');
  expect(exits.get(terminalId)).toBeUndefined();
  // Moved once, with the reason the environment gives (not a second, unexplained recreate).
  expect(screen(terminalId)).not.toContain('The chat’s sandbox was made again');
}

describe('a terminal open while the chat takes its project environment', () => {
  const repo = folder();

  // First built and prepared, then taken from what was prepared: each moves the open terminal.
  it.each([
    ['built: starts again in place in the environment’s sandbox with a line saying why, and runs the toolchain there', false],
    ['prepared before: the same, from the prepared image', true],
  ])('%s', async (_name, reused) => {
    const { chatId, terminalId } = await chatWithTerminal(repo);
    const status = await core.environment.use({ chatId, folder: repo, config: '.devcontainer/devcontainer.json' });
    expect(status).toMatchObject({ state: 'ready', reused });
    await expectRestartedWithToolchain(chatId, terminalId);
  }, 240_000);
});

describe('a terminal open when its sandbox is made again from another image', () => {
  it('starts again in place in the new one with a line saying why (no Restart to press)', async () => {
    const own = (await h.profile(core, { egress: 'none' })).name;
    const chatId = (await core.chats.create({ profile: own })).id;
    const { terminalId } = await core.terminal.open({ chatId, cols: 100, rows: 30 });
    await core.terminal.input({ terminalId, data: 'command -v bash || echo no-bash\n' });
    await waitFor(async () => screen(terminalId).includes('no-bash\r\n'), 'the first shell');
    await core.profiles.update({ name: own, settings: { image: 'berth-test:bookworm' } });
    // The next command makes the sandbox again from the new image.
    await core.sandbox.exec({ chatId, command: 'true' });
    await waitFor(async () => screen(terminalId).includes('The chat’s sandbox was made again'), 'the restart line');
    await core.terminal.input({ terminalId, data: 'bash -c \'echo "bash-$((40+2))"\'\n' });
    await waitFor(async () => screen(terminalId).includes('bash-42'), 'bash in the restarted terminal');
    expect(exits.get(terminalId)).toBeUndefined();
  }, 120_000);
});
