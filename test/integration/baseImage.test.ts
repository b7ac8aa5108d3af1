/**
 * A first chat on a fresh engine with no registry: the default profile uses Berth's own base
 * image, which Berth builds by itself (with progress) when the engine lacks it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxProgressEvent } from '../../shared/contract.js';
import type { BerthCore } from '../../electron/main/core.js';
import { docker, dockerOk } from '../support/docker.js';
import { Harness, uniqueName } from '../support/harness.js';

const h = new Harness();
const tag = `berth-it-base-${uniqueName('b')}:1`;
let core: BerthCore;

beforeAll(() => {
  core = h.core({ baseImage: tag });
});
afterAll(async () => {
  await h.cleanup();
  await dockerOk('rmi', tag);
});

describe("Berth's base image", () => {
  it('the default profile uses it, and the first chat builds it (registry or not), reports progress, then runs', async () => {
    const { profiles } = await core.profiles.list({});
    expect(profiles.find((p) => p.name === 'default')?.settings.image).toBe(tag);
    expect(await dockerOk('image', 'inspect', tag)).toBe(false);

    const chat = await core.chats.create({ profile: 'default' });
    const seen: SandboxProgressEvent[] = [];
    const sub = core.onEvent((event, payload) => {
      if (event === 'sandbox.progress' && (payload as SandboxProgressEvent).chatId === chat.id) seen.push(payload as SandboxProgressEvent);
    });
    const out = await core.sandbox.exec({ chatId: chat.id, command: 'echo first-chat-works; id -u' });
    sub.dispose();

    expect(out.output).toMatch(/^first-chat-works\n\d+\n$/);
    expect(out.output).not.toMatch(/\n0\n$/);
    const building = seen.filter((e) => e.phase === 'building');
    expect(building.length).toBeGreaterThan(2);
    expect(building.some((e) => /^Step \d+\/\d+/.test(e.message))).toBe(true);
    expect(seen.map((e) => e.phase).slice(-3)).toEqual(['creating', 'starting', 'ready']);
    const base = await docker('image', 'inspect', '-f', '{{index .Config.Labels "berth.base"}}', tag);
    expect(['debian', 'busybox']).toContain(base.trim());
    // What was built, and why, is said once.
    expect(out.notices.join('\n')).toMatch(new RegExp(`built (its|a minimal) base image ${tag.replace(/[.:]/g, '\\$&')}`));
  });

  it('a second chat does not build again', async () => {
    const chat = await core.chats.create({ profile: 'default' });
    const phases: string[] = [];
    const sub = core.onEvent((event, payload) => {
      if (event === 'sandbox.progress' && (payload as SandboxProgressEvent).chatId === chat.id) phases.push((payload as SandboxProgressEvent).phase);
    });
    await core.sandbox.exec({ chatId: chat.id, command: ':' });
    sub.dispose();
    expect(phases).not.toContain('building');
  });
});
