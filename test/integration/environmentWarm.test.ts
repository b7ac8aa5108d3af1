/**
 * The next chat on a folder starts from the warm pool when its profile has one: once a chat of
 * the profile has taken a prepared project environment, the profile's warm sandboxes are made
 * from that image with its settings, so a new chat that uses the same environment gets the
 * container that was waiting (no new one is made). A chat that does not use it gets a new
 * sandbox at its first command, and its progress says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import type { EventPayload } from '../../shared/contract.js';
import { docker } from '../support/docker.js';
import { removesItsEnvironmentImages } from '../support/environmentImages.js';
import { Harness, uniqueName } from '../support/harness.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
removesItsEnvironmentImages();
let core: BerthCore;
const marker = uniqueName('envwarm');

beforeAll(() => {
  core = h.core();
});
afterAll(() => h.cleanup(), 120_000);

/** The profile's containers (running or not): short id → the image they were made from, in one read. */
async function containers(profile: string): Promise<Map<string, string>> {
  const lines = (await docker('ps', '-a', '--filter', `label=berth.profile=${profile}`, '--format', '{{.ID}} {{.Image}}')).split('\n').filter(Boolean);
  return new Map(lines.map((l) => l.split(' ') as [string, string]));
}

describe('warm sandboxes of a profile whose chats take a project environment', () => {
  it('are made from the prepared image, and the next chat using it takes one without a new container', async () => {
    const profile = (await h.profile(core, { egress: 'none', warmPool: 1 })).name;
    const folder = h.workspace('repo', {
      '.devcontainer/devcontainer.json': `{ "name": "${marker}", "build": { "dockerfile": "Dockerfile" },
        "containerEnv": { "PATH": "/opt/tool:/usr/local/bin:/usr/bin:/bin" }, "postCreateCommand": "echo made > /opt/tool/made" }`,
      '.devcontainer/Dockerfile': [
        'FROM berth-test:busybox',
        "RUN mkdir -p /opt/tool && chown 1000:1000 /opt/tool && printf '#!/bin/sh\\necho toolchain-ok\\n' > /opt/tool/berth-tool && chmod 755 /opt/tool/berth-tool",
      ].join('\n'),
    });
    const first = (await core.chats.create({ profile })).id;
    await core.workspace.attach({ chatId: first, path: folder });
    const prepared = await core.environment.use({ chatId: first, folder, config: '.devcontainer/devcontainer.json' });
    expect(prepared).toMatchObject({ state: 'ready', reused: false });

    // The pool is made again from the prepared image: one waiting container from it, not the first chat's.
    const { containerId: firstContainer } = await core.sandbox.status({ chatId: first });
    let waiting = '';
    await waitFor(async () => {
      const found = [...(await containers(profile))].filter(([id, image]) => !(firstContainer ?? '-').startsWith(id) && image === prepared.image);
      waiting = found[0]?.[0] ?? '';
      return found.length === 1 && core.warmReady(profile) === 1;
    }, 'a warm sandbox made from the prepared image', 60_000);

    const second = (await core.chats.create({ profile })).id;
    await core.workspace.attach({ chatId: second, path: folder });
    const reused = await core.environment.use({ chatId: second, folder, config: '.devcontainer/devcontainer.json' });
    expect(reused).toMatchObject({ state: 'ready', reused: true, image: prepared.image });
    expect((await core.sandbox.status({ chatId: second })).containerId?.startsWith(waiting)).toBe(true);
    const r = await core.sandbox.exec({ chatId: second, command: 'berth-tool; cat /opt/tool/made; pwd' });
    expect(r.output).toBe('toolchain-ok\nmade\n/workspace\n');
    expect((await core.sandbox.status({ chatId: second })).containerId?.startsWith(waiting)).toBe(true);

    // A chat that does not take the environment gets a sandbox of the profile's image, and reads why it was made.
    await waitFor(async () => core.warmReady(profile) === 1, 'the pool refilled', 60_000);
    const said: string[] = [];
    const listening = core.onEvent((event, payload) => {
      if (event === 'sandbox.progress') said.push((payload as EventPayload<'sandbox.progress'>).message);
    });
    const third = (await core.chats.create({ profile })).id;
    const plain = await core.sandbox.exec({ chatId: third, command: 'command -v berth-tool || echo plain' });
    expect(plain.output).toBe('plain\n');
    listening.dispose();
    expect(said.some((m) => m.includes('the project environment this profile’s chats last used'))).toBe(true);
  }, 240_000);
});
