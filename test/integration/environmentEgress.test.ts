/**
 * A repository's Dockerfile is code from the internet: its build gets no more network than
 * the profile's egress. Against the pretend internet: under 'none' a RUN step that downloads
 * fails and says why; under 'allowlist' it reaches the allowed host through Berth's proxy and
 * nothing else. A profile's setup command is built the same way under 'allowlist'.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { environmentImageIds, removeNewEnvironmentImages } from '../support/environmentImages.js';
import type { BerthCore } from '../../electron/main/core.js';
import { Harness, uniqueName } from '../support/harness.js';
import { docker, dockerOk } from '../support/docker.js';
import { waitFor } from '../support/waitFor.js';
import { NET_IMAGE, startPretendInternet, type PretendInternet } from '../support/pretendInternet.js';

const h = new Harness();
let inet: PretendInternet;
let core: BerthCore;
let before: ReadonlySet<string> = new Set();
const setupImages = new Set<string>();
const marker = uniqueName('envnet');


function repo(): string {
  return h.workspace('repo', {
    '.devcontainer/devcontainer.json': `{ "name": "${marker}", "build": { "dockerfile": "Dockerfile" } }`,
    '.devcontainer/Dockerfile': [
      `FROM ${NET_IMAGE}`,
      'RUN curl -sS -f --max-time 20 http://allowed.test/ > /fetched',
      // A host outside the list: the proxy refuses it, and there is no other way out.
      'RUN (curl -sS -f --max-time 10 http://blocked.test/ && echo reached || echo refused) > /blocked; (curl -sS --noproxy "*" --max-time 5 http://allowed.test/ && echo direct || echo no-direct) >> /blocked',
    ].join('\n'),
  });
}

async function chatOn(profile: string, folder: string): Promise<string> {
  const chatId = (await core.chats.create({ profile })).id;
  await core.workspace.attach({ chatId, path: folder });
  return chatId;
}

beforeAll(async () => {
  before = await environmentImageIds();
  inet = await startPretendInternet();
  core = h.core({ egress: { outsideNetwork: inet.network } });
}, 120_000);

afterAll(async () => {
  await h.cleanup();
  await inet?.stop();
  await removeNewEnvironmentImages(before);
  for (const id of setupImages) await dockerOk('rmi', '-f', id);
}, 120_000);

describe("a Dockerfile's build and the profile's egress", () => {
  it("is refused the network under 'none', with the failing step's output and what to do", async () => {
    const profile = (await h.profile(core, { image: NET_IMAGE, egress: 'none' })).name;
    const folder = repo();
    const chatId = await chatOn(profile, folder);
    const failure = await core.environment.use({ chatId, folder, config: '.devcontainer/devcontainer.json' }).then(() => null, (e: Error & { hint?: string }) => e);
    expect(failure?.message).toMatch(/did not build/);
    expect(failure?.message).toMatch(/curl/);
    expect(failure?.hint).toMatch(/egress is "none"/);
    expect((await core.environment.detect({ chatId })).status).toMatchObject({ state: 'failed' });
  }, 180_000);

  it("reaches only the allowed host under 'allowlist', through Berth's proxy", async () => {
    const profile = (await h.profile(core, { image: NET_IMAGE, egress: 'allowlist', egressAllow: ['allowed.test'] })).name;
    const folder = repo();
    const chatId = await chatOn(profile, folder);
    const status = await core.environment.use({ chatId, folder, config: '.devcontainer/devcontainer.json' });
    expect(status.state).toBe('ready');
    const r = await core.sandbox.exec({ chatId, command: 'cat /fetched /blocked', timeoutMs: 30_000 });
    expect(r.output).toBe('hello from allowed.test on 80\nrefused\nno-direct\n');
  }, 240_000);
});

describe("a profile's setup command under 'allowlist'", () => {
  it("builds through the profile's proxy: the allowed host answers, a host off the list and a direct connection do not", async () => {
    const command = [
      'curl -sS -f --max-time 20 http://allowed.test/ > /etc/berth-fetched',
      '(curl -sS -f --max-time 10 http://blocked.test/ >/dev/null 2>&1 && echo reached || echo refused) > /etc/berth-blocked',
      '(curl -sS --noproxy "*" --max-time 5 http://allowed.test/ >/dev/null 2>&1 && echo direct || echo no-direct) >> /etc/berth-blocked',
    ].join('; ');
    const profile = (await h.profile(core, { image: NET_IMAGE, egress: 'allowlist', egressAllow: ['allowed.test'], setupCommand: command })).name;
    const preparation = async () => (await core.images.status({})).preparations.find((p) => p.id === `setup:${profile}`);
    // The profile's first chat starts without it and starts its preparation.
    const first = (await core.chats.create({ profile })).id;
    await core.sandbox.exec({ chatId: first, command: 'true', timeoutMs: 30_000 });
    await waitFor(async () => ['ready', 'failed'].includes((await preparation())?.state ?? ''), 'the setup command prepared', 180_000);
    expect((await preparation())?.state, (await preparation())?.message).toBe('ready');
    // The build's sealed network went with the build.
    expect((await docker('network', 'ls', '-q', '--filter', `label=berth.key=setup:${profile}`)).trim()).toBe('');
    const chatId = (await core.chats.create({ profile })).id;
    const r = await core.sandbox.exec({ chatId, command: 'cat /etc/berth-fetched /etc/berth-blocked', timeoutMs: 30_000 });
    const { containerId } = await core.sandbox.status({ chatId });
    setupImages.add((await docker('inspect', '-f', '{{.Image}}', containerId as string)).trim());
    expect(r.output).toBe('hello from allowed.test on 80\nrefused\nno-direct\n');
  }, 240_000);
});
