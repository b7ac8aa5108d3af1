/**
 * A repository's Dockerfile is code from the internet: its build gets no more network than
 * the profile's egress. Against the pretend internet: under 'none' a RUN step that downloads
 * fails and says why; under 'allowlist' it reaches the allowed host through Berth's proxy and
 * nothing else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { environmentImageIds, removeNewEnvironmentImages } from '../support/environmentImages.js';
import type { BerthCore } from '../../electron/main/core.js';
import { Harness, uniqueName } from '../support/harness.js';
import { NET_IMAGE, startPretendInternet, type PretendInternet } from '../support/pretendInternet.js';

const h = new Harness();
let inet: PretendInternet;
let core: BerthCore;
let before: ReadonlySet<string> = new Set();
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
