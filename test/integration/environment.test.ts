/**
 * Project environments on the real engine: a repository's devcontainer.json with a Dockerfile
 * is built with progress and prepared once; the next chat on it starts from the prepared image
 * without building; an edit to the file makes the next chat build again. Keys Berth never
 * honours are named, root is refused, and a `privileged: true` file still gets a sandbox with
 * every capability dropped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineApi, removesItsEnvironmentImages } from '../support/environmentImages.js';
import fs from 'node:fs';
import path from 'node:path';
import type { BerthCore } from '../../electron/main/core.js';
import type { EventPayload } from '../../shared/contract.js';
import { Harness, uniqueName } from '../support/harness.js';

const docker = engineApi;

const h = new Harness();
removesItsEnvironmentImages();
let core: BerthCore;
let profile: string;
const progress: EventPayload<'sandbox.progress'>[] = [];
const marker = uniqueName('env');

const DOCKERFILE = [
  'FROM berth-test:busybox',
  // The image's uid 1000 becomes "dev": the file's non-root remoteUser.
  "RUN sed -i 's/^sandbox:/dev:/' /etc/passwd && mkdir -p /opt/tool && chown 1000:1000 /opt/tool",
  "RUN printf '#!/bin/sh\\necho toolchain-ok\\n' > /opt/tool/berth-tool && chmod 755 /opt/tool/berth-tool",
].join('\n');

function devcontainer(extra: Record<string, unknown> = {}): string {
  return `// ${marker}: JSON with comments, as editors write it
{
  "name": "${marker}",
  "build": { "dockerfile": "Dockerfile", "args": { "UNUSED": "1" } },
  "containerEnv": { "PATH": "/opt/tool:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "GREETING": "hello-${marker}" },
  "remoteUser": "dev",
  "onCreateCommand": "echo created > /opt/tool/on-create-marker",
  // The marker lives in the image (/opt is not a mount), so a reused image still has it.
  "postCreateCommand": ["sh", "-c", "id -un > /opt/tool/post-create-marker"],
  "postStartCommand": { "a": "echo start-a", "b": ["echo", "start-b"] },
  "forwardPorts": [3000],
  "portsAttributes": { "3000": { "label": "Web app" } },
  ${Object.entries(extra).map(([k, v]) => `"${k}": ${JSON.stringify(v)},`).join('\n  ')}
}`;
}

function repo(extra: Record<string, unknown> = {}): string {
  return h.workspace('repo', { '.devcontainer/devcontainer.json': devcontainer(extra), '.devcontainer/Dockerfile': DOCKERFILE, 'README.md': 'hi\n' });
}

async function chatOn(folder: string): Promise<string> {
  const chatId = (await core.chats.create({ profile })).id;
  await core.workspace.attach({ chatId, path: folder });
  return chatId;
}

async function run(chatId: string, command: string) {
  return core.sandbox.exec({ chatId, command, timeoutMs: 60_000 });
}

async function imageId(tag: string): Promise<string | null> {
  return docker.getImage(tag).inspect().then((i) => i.Id, () => null);
}

const made: string[] = [];

beforeAll(async () => {
  core = h.core();
  profile = (await h.profile(core, { egress: 'none' })).name;
  core.onEvent((event, payload) => {
    if (event === 'sandbox.progress') progress.push(payload as EventPayload<'sandbox.progress'>);
  });
}, 60_000);

afterAll(async () => {
  await h.cleanup();
}, 120_000);

describe('a repository with a devcontainer.json', () => {
  const folder = repo();
  let first: Awaited<ReturnType<BerthCore['environment']['use']>>;

  it('is offered, built with progress, prepared, and its toolchain runs as the non-root user', async () => {
    const chatId = await chatOn(folder);
    const offer = await core.environment.detect({ chatId });
    expect(offer.offers).toEqual([{ folder, configs: ['.devcontainer/devcontainer.json'], remembered: null }]);
    first = await core.environment.use({ chatId, folder, config: '.devcontainer/devcontainer.json' });
    made.push(String((await docker.getImage(first.image ?? '').inspect()).Config.Labels?.['berth.env.key']));
    expect(first).toMatchObject({ state: 'ready', reused: false, source: '.devcontainer/devcontainer.json', ports: [{ port: 3000, label: 'Web app' }] });
    expect(first.sizeBytes).toBeGreaterThan(0);
    const steps = progress.filter((p) => p.chatId === chatId).map((p) => p.message);
    expect(steps.some((m) => /^Step 2\/\d+: RUN sed/.test(m))).toBe(true);
    expect(steps).toContain('Running postCreateCommand…');
    expect(steps.some((m) => m.includes('[a] start-a'))).toBe(true);
    const r = await run(chatId, 'berth-tool; echo "$GREETING"; id -un; id -u; cat /opt/tool/post-create-marker');
    expect(r.output.split('\n').slice(0, 5)).toEqual(['toolchain-ok', `hello-${marker}`, 'dev', '1000', 'dev']);
    // The folder's choice is remembered.
    expect((await core.environment.detect({ chatId })).offers[0]?.remembered).toBe('.devcontainer/devcontainer.json');
  }, 240_000);

  it('starts the next chat on the folder from the prepared image, without building', async () => {
    const baseTag = `berth-env-base:${String(made[0]).slice(0, 20)}`;
    const baseBefore = await imageId(baseTag);
    const preparedBefore = await imageId(first.image ?? '');
    expect(baseBefore).not.toBeNull();
    const chatId = await chatOn(folder);
    const before = progress.length;
    const second = await core.environment.use({ chatId, folder, config: '.devcontainer/devcontainer.json' });
    expect(second).toMatchObject({ state: 'ready', reused: true, image: first.image });
    expect(await imageId(baseTag)).toBe(baseBefore);
    expect(await imageId(first.image ?? '')).toBe(preparedBefore);
    const steps = progress.slice(before).filter((p) => p.chatId === chatId).map((p) => p.message);
    expect(steps.some((m) => m.startsWith('Step '))).toBe(false);
    expect(steps).not.toContain('Running postCreateCommand…');
    expect(steps).toContain('Running postStartCommand…');
    const r = await run(chatId, 'berth-tool; cat /opt/tool/post-create-marker');
    expect(r.output).toBe('toolchain-ok\ndev\n');
  }, 240_000);

  it('builds again after the devcontainer.json changed', async () => {
    fs.writeFileSync(path.join(folder, '.devcontainer/devcontainer.json'), devcontainer({ remoteEnv: { EDITED: 'yes' } }));
    const chatId = await chatOn(folder);
    const third = await core.environment.use({ chatId, folder, config: '.devcontainer/devcontainer.json' });
    made.push(String((await docker.getImage(third.image ?? '').inspect()).Config.Labels?.['berth.env.key']));
    expect(third).toMatchObject({ state: 'ready', reused: false });
    expect(third.image).not.toBe(first.image);
    // The old one still serves the chats that use it.
    expect(await imageId(first.image ?? '')).not.toBeNull();
    expect((await run(chatId, 'echo "$EDITED"')).output).toBe('yes\n');
  }, 240_000);
});

describe('what Berth does not honour', () => {
  it('names each never-honoured key as ignored and still drops every capability for privileged: true', async () => {
    const folder = repo({
      privileged: true, capAdd: ['SYS_ADMIN'], securityOpt: ['seccomp=unconfined'], runArgs: ['--network=host'],
      mounts: ['source=/,target=/host,type=bind'], init: true, initializeCommand: 'touch /tmp/host-was-here',
    });
    const chatId = await chatOn(folder);
    const status = await core.environment.use({ chatId, folder, config: '.devcontainer/devcontainer.json' });
    made.push(String((await docker.getImage(status.image ?? '').inspect()).Config.Labels?.['berth.env.key']));
    expect(status.ignored.map((i) => i.key).sort()).toEqual(['capAdd', 'init', 'initializeCommand', 'mounts', 'privileged', 'runArgs', 'securityOpt']);
    expect(fs.existsSync('/tmp/host-was-here')).toBe(false);
    const { containerId } = await core.sandbox.status({ chatId });
    const info = await docker.getContainer(containerId ?? '').inspect();
    expect(info.HostConfig.Privileged).toBe(false);
    expect(info.HostConfig.CapDrop).toEqual(['ALL']);
    expect(info.HostConfig.CapAdd ?? []).toEqual([]);
    expect(info.HostConfig.SecurityOpt).toContain('no-new-privileges:true');
    expect(info.HostConfig.NetworkMode).toBe('none');
    expect(info.Config.User).not.toMatch(/^0(:|$)|^root/);
    expect(info.Mounts.map((m) => m.Destination).sort()).toEqual(['/home/berth', '/workspace']);
  }, 240_000);

  it('refuses remoteUser root, and a user that is uid 0 in the image, each with a sentence', async () => {
    const folder = repo({ remoteUser: 'root' });
    const chatId = await chatOn(folder);
    await expect(core.environment.use({ chatId, folder, config: '.devcontainer/devcontainer.json' })).rejects.toThrow(/never runs a sandbox as root/);
    expect((await core.environment.detect({ chatId })).status).toMatchObject({ state: 'failed' });
    const sneaky = h.workspace('sneaky', {
      '.devcontainer.json': `{ "name": "${marker}-sneaky", "build": { "dockerfile": "Dockerfile" }, "remoteUser": "admin" }`,
      Dockerfile: "FROM berth-test:busybox\nRUN echo 'admin:x:0:0::/root:/bin/sh' >> /etc/passwd",
    });
    const other = await chatOn(sneaky);
    await expect(core.environment.use({ chatId: other, folder: sneaky, config: '.devcontainer.json' })).rejects.toThrow(/uid 0, gid 0 in the image/);
  }, 240_000);

  it('refuses features with a sentence saying why', async () => {
    const folder = repo({ features: { 'ghcr.io/devcontainers/features/node:1': {} } });
    const chatId = await chatOn(folder);
    await expect(core.environment.use({ chatId, folder, config: '.devcontainer/devcontainer.json' })).rejects.toThrow(/does not install Dev Container Features/);
  }, 60_000);
});
