/**
 * Warm sandboxes (sandbox/warmPool.ts): a new chat takes a container started before it
 * existed, and that container is the chat's alone: labels, mounts, store and reaping agree.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { LABEL } from '../../electron/main/policy/containerSpec.js';
import { folderNameFor } from '../../electron/main/policy/names.js';
import { docker, inspect } from '../support/docker.js';
import { Harness } from '../support/harness.js';
import { waitFor } from '../support/waitFor.js';
import { NET_IMAGE, startPretendInternet, type PretendInternet } from '../support/pretendInternet.js';

const h = new Harness();
let inet: PretendInternet | undefined;
afterAll(async () => {
  await h.cleanup();
  await inet?.stop();
}, 120_000);

interface Inspected {
  Id: string;
  Config: { Labels: Record<string, string> };
  Mounts: { Source: string; Destination: string }[];
}

/** The profile's containers on the engine, with their chat labels. */
async function containersOf(core: BerthCore, profile: string): Promise<{ id: string; chat: string }[]> {
  const out = await docker('ps', '-a', '--filter', `label=${LABEL.instance}=${core.instanceId}`, '--filter', `label=${LABEL.profile}=${profile}`,
    '--format', `{{.ID}} {{.Label "${LABEL.chat}"}}`);
  return out.split('\n').filter(Boolean).map((l) => {
    const [id, chat] = l.split(' ');
    return { id: id as string, chat: chat ?? '' };
  });
}

function creatingEvents(core: BerthCore, chatIds: Set<string>): string[] {
  const seen: string[] = [];
  core.onEvent((event, payload) => {
    const p = payload as { chatId: string; phase: string; message: string };
    if (event === 'sandbox.progress' && chatIds.has(p.chatId) && (p.phase === 'creating' || p.phase === 'starting')) seen.push(`${p.chatId}:${p.message}`);
  });
  return seen;
}

describe('warm sandboxes', () => {
  it('a new chat takes a started container made for its id, mounting nothing of the host; the pool refills with another', async () => {
    const core = h.core();
    const profile = (await h.profile(core, { warmPool: 1 })).name;
    await waitFor(async () => (await containersOf(core, profile)).length === 1, 'the warm sandbox', 60_000);
    const [warm] = await containersOf(core, profile);
    const before = await inspect<Inspected>(warm!.id);
    // Only the sandbox's own home and its empty slot folder (both in Berth's data folder) are
    // mounted: no folder of the user's (test/integration/warmSlots.test.ts follows the slot).
    const home = before.Mounts.find((m) => m.Destination.startsWith('/home'));
    expect(before.Mounts.map((m) => m.Destination).sort()).toEqual([home?.Destination, '/workspace'].sort());
    const slot = before.Mounts.find((m) => m.Destination === '/workspace')!.Source;
    expect(path.basename(path.dirname(slot))).toBe('slots');
    expect(fs.readdirSync(slot)).toEqual([]);

    const watched = new Set<string>();
    const cold = creatingEvents(core, watched);
    const chat = await core.chats.create({ profile });
    watched.add(chat.id);
    expect(chat.id).toBe(warm!.chat);
    const out = await core.sandbox.exec({ chatId: chat.id, command: 'echo warm-$((6*7)); id -u' });
    expect(out.output).toContain('warm-42');
    expect(out.output).not.toMatch(/^0$/m);
    expect(cold).toEqual([]);
    expect((await core.sandbox.status({ chatId: chat.id })).containerId?.startsWith(warm!.id)).toBe(true);

    // The pool makes another, for another id; the next chat gets that one, not the first.
    await waitFor(async () => (await containersOf(core, profile)).length === 2, 'the pool to refill', 60_000);
    const second = await core.chats.create({ profile });
    expect(second.id).not.toBe(chat.id);
    await core.sandbox.exec({ chatId: chat.id, command: 'touch ~/mine' });
    const other = await core.sandbox.exec({ chatId: second.id, command: 'ls ~/mine 2>&1; echo rc=$?' });
    expect(other.output).toMatch(/rc=[12]/);
    expect((await core.sandbox.status({ chatId: second.id })).containerId?.startsWith(warm!.id)).toBe(false);

    // Chats made faster than the pool refills: one may join a warming sandbox, the others wait
    // for a fresh one, and their progress line says why.
    const rush = await Promise.all([core.chats.create({ profile }), core.chats.create({ profile })]);
    rush.forEach((c) => watched.add(c.id));
    await Promise.all(rush.map((c) => core.sandbox.exec({ chatId: c.id, command: 'true' })));
    const creating = cold.filter((line) => line.includes('Creating'));
    expect(creating.length, cold.join('\n')).toBeGreaterThanOrEqual(1);
    expect(creating.every((line) => /pool is refilling/.test(line)), cold.join('\n')).toBe(true);

    // Deleting the chat removes its container, as for any chat.
    await core.chats.delete({ chatId: chat.id });
    expect((await containersOf(core, profile)).map((c) => c.chat)).not.toContain(chat.id);
  });

  it('a folder attached to a pooled chat is mounted by a container made with it, and only in that chat', async () => {
    const core = h.core();
    const profile = (await h.profile(core, { warmPool: 1 })).name;
    await waitFor(async () => (await containersOf(core, profile)).length === 1, 'the warm sandbox', 60_000);
    const chat = await core.chats.create({ profile });
    const folder = h.workspace('pooled-ws', { 'theirs.txt': 't' });
    await core.workspace.attach({ chatId: chat.id, path: folder, mode: 'readwrite' });
    const out = await core.sandbox.exec({ chatId: chat.id, command: 'ls /workspace' });
    expect(out.output).toContain('theirs.txt');
    // The refilled warm sandbox (for the next chat) mounts no folder.
    await waitFor(async () => (await containersOf(core, profile)).some((c) => c.chat !== chat.id), 'the pool to refill', 60_000);
    for (const c of await containersOf(core, profile)) {
      if (c.chat === chat.id) continue;
      const i = await inspect<Inspected>(c.id);
      expect(i.Mounts.some((m) => m.Source === folder)).toBe(false);
    }
  });

  it('quitting removes the warm sandboxes and the next run makes new ones; a profile change or 0 empties the pool', async () => {
    const dataDir = h.dataDir();
    const first = h.core({ dataDir });
    const profile = (await h.profile(first, { warmPool: 1, retention: { idleStopMinutes: 30, onQuit: 'keep' } })).name;
    await waitFor(async () => (await containersOf(first, profile)).length === 1, 'the warm sandbox', 60_000);
    const [old] = await containersOf(first, profile);
    await first.dispose();
    // Removed at quit, even on a profile that keeps its chats' containers; the next run makes another.
    expect(await containersOf(first, profile)).toEqual([]);

    const second = h.core({ dataDir });
    expect(second.instanceId).toBe(first.instanceId);
    await waitFor(async () => {
      const now = await containersOf(second, profile);
      return now.length === 1 && now[0]!.id !== old!.id;
    }, 'the old warm sandbox replaced by a new one', 60_000);
    const chat = await second.chats.create({ profile });
    expect(chat.id).not.toBe(old!.chat);

    await second.profiles.update({ name: profile, settings: { warmPool: 0 } });
    await waitFor(async () => (await containersOf(second, profile)).every((c) => c.chat === chat.id), 'the pool emptied');
  });

  it('quitting removes the warm sandboxes, with their homes and slot folders, even where the profile keeps containers at quit', async () => {
    const dataDir = h.dataDir();
    const core = h.core({ dataDir });
    const views = [await h.profile(core, { warmPool: 1 }), await h.profile(core, { warmPool: 1, retention: { idleStopMinutes: 30, onQuit: 'keep' } })];
    const [plain, keeping] = views.map((v) => v.name) as [string, string];
    await waitFor(async () => (await containersOf(core, plain)).length === 1 && (await containersOf(core, keeping)).length === 1, 'the warm sandboxes', 60_000);
    // Each warm sandbox's home and slot folder, in the profile's folder of Berth's data.
    const made = [plain, keeping].flatMap((p) => ['homes', 'slots'].map((d) => path.join(dataDir, 'profiles', folderNameFor(p), d)));
    for (const dir of made) expect(fs.readdirSync(dir)).toHaveLength(1);
    await core.dispose();
    // A data folder never opened again keeps nothing: no container of this instance, exited or not.
    expect(await docker('ps', '-aq', '--filter', `label=${LABEL.instance}=${core.instanceId}`)).toBe('');
    for (const dir of made) expect(fs.readdirSync(dir)).toEqual([]);
    // The profiles' own networks stay with the profiles (the harness cannot delete them through a core that quit).
    for (const v of views) if (v.networkName) await docker('network', 'rm', v.networkName);
  }, 120_000);

  it('a profile without a pool starts nothing before a chat asks', async () => {
    const core = h.core();
    const profile = (await h.profile(core)).name;
    await core.ready;
    expect(await containersOf(core, profile)).toEqual([]);
    const chat = await core.chats.create({ profile });
    await core.sandbox.exec({ chatId: chat.id, command: 'true' });
    expect((await containersOf(core, profile)).map((c) => c.chat)).toEqual([chat.id]);
  });

  it('a profile whose image arrives with its first chat (the first run builds it) warms the next chat without waiting for another to be made', async () => {
    const core = h.core();
    const image = `berth-test:warm-late-${Math.random().toString(16).slice(2, 8)}`;
    try {
      const profile = (await h.profile(core, { warmPool: 1, image })).name;
      await core.ready;
      const first = await core.chats.create({ profile });
      expect(await containersOf(core, profile)).toEqual([]); // nothing to warm: the engine lacks the image
      await docker('tag', 'berth-test:busybox', image); // what the first chat's own start does on a first run: Berth builds its image
      await core.sandbox.exec({ chatId: first.id, command: 'true' });
      await waitFor(async () => (await containersOf(core, profile)).some((c) => c.chat !== first.id) || undefined, 'a warm sandbox after the first chat started', 60_000);
      const second = await core.chats.create({ profile });
      expect((await containersOf(core, profile)).map((c) => c.chat)).toContain(second.id);
    } finally {
      // Only the tag goes (the test image stays); the containers go with the harness.
      await docker('rmi', '-f', image).catch(() => undefined);
    }
  }, 120_000);

  it("an allowlist profile's warm sandbox is sealed behind its proxy like any other: the chat that takes it reaches allowed hosts only", async () => {
    inet = await startPretendInternet();
    const core = h.core({ egress: { outsideNetwork: inet.network } });
    const profile = (await h.profile(core, { image: NET_IMAGE, egress: 'allowlist', egressAllow: ['allowed.test'], warmPool: 1 })).name;
    // The profile's proxy is a container of the profile too: the warm sandbox is the one with a chat.
    const sandboxes = async () => (await containersOf(core, profile)).filter((c) => c.chat);
    await waitFor(async () => (await sandboxes()).length === 1, 'the warm sandbox', 120_000);
    const [warm] = await sandboxes();
    const chat = await core.chats.create({ profile });
    expect(chat.id).toBe(warm?.chat);
    const r = await core.sandbox.exec({
      chatId: chat.id,
      command: `curl -sS --max-time 10 http://allowed.test/; curl -sS --max-time 10 -o /dev/null -w 'blocked:%{http_code}\\n' http://blocked.test/; curl -sS --noproxy '*' --max-time 3 http://${inet.webIp}/ || echo no-route`,
      timeoutMs: 60_000,
    });
    expect(r.output).toContain('hello from allowed.test');
    expect(r.output).toContain('blocked:403');
    expect(r.output).toContain('no-route');
    // The proxy's log names this chat: the warm container was registered under the chat's id.
    await waitFor(async () => (await core.network.log({ chatId: chat.id })).requests.some((q) => q.host === 'blocked.test' && !q.allowed), 'the refusal in the Network view', 20_000);
  }, 240_000);
});
