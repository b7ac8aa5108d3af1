/** Images: pulled with progress when missing; nothing runs anywhere until the image is ready. */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxProgressEvent } from '../../shared/contract.js';
import type { BerthCore } from '../../electron/main/core.js';
import { containersWithLabel, dockerOk } from '../support/docker.js';
import { Harness, uniqueName } from '../support/harness.js';
import { REGISTRY_BINARY, publish, startRegistry, type LocalRegistry } from '../support/registry.js';

const h = new Harness();
let core: BerthCore;
let registry: LocalRegistry | null = null;
const pulled: string[] = [];

beforeAll(async () => {
  core = h.core();
  if (fs.existsSync(REGISTRY_BINARY)) registry = await startRegistry(h.root);
});
afterAll(async () => {
  for (const ref of pulled) await dockerOk('rmi', ref);
  await registry?.stop();
  await h.cleanup();
});

function progressOf(chatId: string): SandboxProgressEvent[] {
  const seen: SandboxProgressEvent[] = [];
  core.onEvent((event, payload) => {
    if (event === 'sandbox.progress' && (payload as SandboxProgressEvent).chatId === chatId) seen.push(payload as SandboxProgressEvent);
  });
  return seen;
}

describe('images', () => {
  it('an image whose registry does not answer fails saying so, after trying to pull it, and nothing runs', async () => {
    // Port 1 on this computer: nothing listens, so no registry answers (and no traffic leaves).
    const missing = `127.0.0.1:1/${uniqueName('missing')}:1`;
    const p = (await core.profiles.create({ name: uniqueName('p'), image: missing })).name;
    const chat = await core.chats.create({ profile: p });
    const seen = progressOf(chat.id);
    const run = core.sandbox.exec({ chatId: chat.id, command: 'touch /tmp/ran' });
    await expect(run).rejects.toMatchObject({ code: 'registry_unreachable' });
    await expect(run).rejects.toThrow(new RegExp(`The image ${missing} is not on this computer, and its registry cannot be reached`));
    expect(seen.map((e) => e.phase)).toEqual(['pulling']);
    expect(await containersWithLabel(`berth.chat=${chat.id}`)).toEqual([]);
    expect((await core.sandbox.status({ chatId: chat.id })).state).toBe('error');
  });

  it('an image its registry does not have fails saying it does not exist', async (ctx) => {
    if (!registry) {
      console.warn(`skipped: ${REGISTRY_BINARY} is not installed (apt-get install docker-registry); .ci/run installs it`);
      ctx.skip();
      return;
    }
    const missing = `${registry.host}/${uniqueName('nosuch')}:1`;
    const p = (await core.profiles.create({ name: uniqueName('p'), image: missing })).name;
    const chat = await core.chats.create({ profile: p });
    const run = core.sandbox.exec({ chatId: chat.id, command: 'true' });
    await expect(run).rejects.toMatchObject({ code: 'image_unavailable' });
    await expect(run).rejects.toThrow(new RegExp(`The image ${missing} does not exist in its registry`));
  });

  it('pulls a missing image from a registry, reporting progress, before anything runs', async (ctx) => {
    if (!registry) {
      console.warn(`skipped: ${REGISTRY_BINARY} is not installed (apt-get install docker-registry); .ci/run installs it`);
      ctx.skip();
      return;
    }
    const ref = await publish(registry, 'berth-test:busybox', `${uniqueName('pull')}:latest`);
    pulled.push(ref);
    const p = (await core.profiles.create({ name: uniqueName('p'), image: ref })).name;
    const chat = await core.chats.create({ profile: p });
    const seen = progressOf(chat.id);
    const out = await core.sandbox.exec({ chatId: chat.id, command: 'echo pulled-and-ran' });
    expect(out.output).toBe('pulled-and-ran\n');
    const pulling = seen.filter((e) => e.phase === 'pulling');
    expect(pulling.length).toBeGreaterThan(1);
    const fractions = pulling.map((e) => e.fraction).filter((f): f is number => f !== null);
    expect(fractions.length).toBeGreaterThan(0);
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
    expect(fractions.at(-1)).toBe(1);
    expect(seen.map((e) => e.phase).slice(-3)).toEqual(['creating', 'starting', 'ready']);
  });
});
