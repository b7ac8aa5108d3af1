/** Containers are created once, kept, stopped when idle and at quit, recreated and reaped. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { BOOKWORM, containersWithLabel, docker, engineSocket, inspect } from '../support/docker.js';
import { Harness } from '../support/harness.js';
import { ManualClock } from '../support/manualClock.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
afterAll(() => h.cleanup());

const running = async (id: string) => (await inspect<{ State: { Running: boolean } }>(id)).State.Running;

describe('one container per chat', () => {
  it('20 parallel requests for one new chat make exactly one container, and all of them run', async () => {
    const core = h.core();
    const p = (await h.profile(core)).name;
    const chat = await core.chats.create({ profile: p });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => core.sandbox.exec({ chatId: chat.id, command: `echo run-${i}` })),
    );
    expect(results.map((r) => r.output.trim()).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `run-${i}`).sort());
    expect(await containersWithLabel(`berth.chat=${chat.id}`)).toHaveLength(1);
  });

  it('deleting a chat removes its container and its home', async () => {
    const core = h.core();
    const p = (await h.profile(core)).name;
    const chat = await core.chats.create({ profile: p });
    const out = await core.sandbox.exec({ chatId: chat.id, command: 'echo keep > ~/marker && echo $HOME' });
    expect(out.output.trim()).toBe('/home/berth');
    const id = (await core.sandbox.status({ chatId: chat.id })).containerId as string;
    const home = (await inspect<{ Mounts: { Source: string; Destination: string }[] }>(id)).Mounts.find((m) => m.Destination === '/home/berth')?.Source as string;
    expect(fs.readFileSync(path.join(home, 'marker'), 'utf8')).toBe('keep\n');

    expect(await core.chats.delete({ chatId: chat.id })).toEqual({ removed: true });
    expect(await containersWithLabel(`berth.chat=${chat.id}`)).toEqual([]);
    expect(fs.existsSync(home)).toBe(false);
    await expect(core.sandbox.exec({ chatId: chat.id, command: 'true' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('a container removed by hand is recreated by the next command, which says so', async () => {
    const core = h.core();
    const p = (await h.profile(core)).name;
    const chat = await core.chats.create({ profile: p });
    await core.sandbox.exec({ chatId: chat.id, command: 'echo data > ~/file; cd /etc' });
    const first = (await core.sandbox.status({ chatId: chat.id })).containerId as string;
    await docker('rm', '-f', first);

    const out = await core.sandbox.exec({ chatId: chat.id, command: 'cat ~/file; pwd' });
    expect(out.exitCode).toBe(0);
    expect(out.output).toBe('data\n/etc\n');
    expect(out.notices.join(' ')).toMatch(/disappeared.*created a new one/);
    const second = (await core.sandbox.status({ chatId: chat.id })).containerId;
    expect(second).not.toBe(first);
    expect(await containersWithLabel(`berth.chat=${chat.id}`)).toHaveLength(1);
  });

  it('a container stopped by hand (as a Docker restart does) is started again by the next command, which says so', async () => {
    const core = h.core();
    const p = (await h.profile(core)).name;
    const chat = await core.chats.create({ profile: p });
    await core.sandbox.exec({ chatId: chat.id, command: 'cd /etc' });
    const id = (await core.sandbox.status({ chatId: chat.id })).containerId as string;
    await docker('stop', '-t', '1', id);
    const out = await core.sandbox.exec({ chatId: chat.id, command: 'pwd' });
    expect(out.output).toBe('/etc\n');
    expect(out.notices.join(' ')).toMatch(/had stopped.*started it again/);
    expect((await core.sandbox.status({ chatId: chat.id })).containerId).toBe(id);
  });
});

describe('changing folders', () => {
  it('attaching after the container exists recreates it at next use; the home and folders survive', async () => {
    const core = h.core();
    const p = (await h.profile(core)).name;
    const chat = await core.chats.create({ profile: p });
    const one = h.workspace('one', { 'a.txt': 'a' });
    await core.workspace.attach({ chatId: chat.id, path: one, mode: 'readwrite' });
    await core.sandbox.exec({ chatId: chat.id, command: 'echo mine > ~/home-file' });
    const before = (await core.sandbox.status({ chatId: chat.id })).containerId;

    const two = h.workspace('two', { 'b.txt': 'b' });
    const attached = await core.workspace.attach({ chatId: chat.id, path: two, mode: 'readwrite' });
    expect(attached.notice).toMatch(/recreated the next time/);
    expect(attached.attachments.map((a) => a.containerPath)).toEqual(['/workspace/one', '/workspace/two']);

    const out = await core.sandbox.exec({ chatId: chat.id, command: 'ls /workspace/one /workspace/two; cat ~/home-file' });
    expect(out.output).toContain('a.txt');
    expect(out.output).toContain('b.txt');
    expect(out.output).toContain('mine');
    expect(out.notices.join(' ')).toMatch(/recreated to apply changed folders.*reset/);
    expect((await core.sandbox.status({ chatId: chat.id })).containerId).not.toBe(before);

    const detached = await core.workspace.detach({ chatId: chat.id, path: one });
    expect(detached.attachments.map((a) => a.containerPath)).toEqual(['/workspace']);
    const after = await core.sandbox.exec({ chatId: chat.id, command: 'ls /workspace' });
    expect(after.output.trim()).toBe('b.txt');
  });

  it('a folder swapped for a symlink after it was attached is refused at start, and before create', async () => {
    const core = h.core();
    const p = (await h.profile(core)).name;
    const elsewhere = h.workspace('elsewhere', { 'not-yours.txt': 'x' });

    // Swapped before the container ever existed.
    const chat1 = await core.chats.create({ profile: p });
    const ws1 = h.workspace('swap1');
    await core.workspace.attach({ chatId: chat1.id, path: ws1, mode: 'readwrite' });
    fs.rmSync(ws1, { recursive: true });
    fs.symlinkSync(elsewhere, ws1);
    await expect(core.sandbox.exec({ chatId: chat1.id, command: 'ls' })).rejects.toMatchObject({ code: 'workspace_changed' });
    expect(await containersWithLabel(`berth.chat=${chat1.id}`)).toEqual([]);

    // Swapped while the container was stopped: Docker would resolve the link at start.
    const chat2 = await core.chats.create({ profile: p });
    const ws2 = h.workspace('swap2', { 'mine.txt': 'm' });
    await core.workspace.attach({ chatId: chat2.id, path: ws2, mode: 'readwrite' });
    await core.sandbox.exec({ chatId: chat2.id, command: 'ls' });
    await core.sandbox.stop({ chatId: chat2.id });
    fs.rmSync(ws2, { recursive: true });
    fs.symlinkSync(elsewhere, ws2);
    const refused = core.sandbox.exec({ chatId: chat2.id, command: 'ls /workspace' });
    await expect(refused).rejects.toMatchObject({ code: 'workspace_changed' });
    await expect(refused).rejects.toThrow(/replaced by a link/);
    const id = (await containersWithLabel(`berth.chat=${chat2.id}`))[0] as string;
    expect(await running(id)).toBe(false);
  });
});

describe('editing', () => {
  it("a profile edit applies at each chat's next use, by recreating its container; a rename keeps everything", async () => {
    const core = h.core();
    const p = (await h.profile(core)).name;
    const chat = await core.chats.create({ profile: p, title: 'Before' });
    await core.sandbox.exec({ chatId: chat.id, command: 'echo mine > ~/kept' });
    const renamed = await core.chats.rename({ chatId: chat.id, title: 'After' });
    expect(renamed.title).toBe('After');
    const edited = await core.profiles.update({ name: p, settings: { limits: { memoryMb: 768, cpus: 1, pids: 256 } } });
    expect(edited.settings.limits.memoryMb).toBe(768);
    expect(edited.settings.image).toBe('berth-test:busybox');
    const out = await core.sandbox.exec({ chatId: chat.id, command: 'cat ~/kept' });
    expect(out.output).toBe('mine\n');
    expect(out.notices.join(' ')).toMatch(/recreated/);
    const id = (await core.sandbox.status({ chatId: chat.id })).containerId as string;
    expect((await inspect<{ HostConfig: { Memory: number; PidsLimit: number } }>(id)).HostConfig).toMatchObject({ Memory: 768 * 1024 * 1024, PidsLimit: 256 });
    await expect(core.chats.rename({ chatId: chat.id, title: '   ' })).rejects.toMatchObject({ code: 'invalid_request' });
  });
});

describe('retention', () => {
  it('stops a container after the idle period and starts it again with its state on next use', async () => {
    const clock = new ManualClock();
    const core = h.core({ clock });
    const p = (await h.profile(core, { image: BOOKWORM, retention: { idleStopMinutes: 30, onQuit: 'stop' } })).name;
    const chat = await core.chats.create({ profile: p });
    // /home/sandbox is the image's own folder: state in the container's layer, not in a mount.
    await core.sandbox.exec({ chatId: chat.id, command: 'echo layer > /home/sandbox/state.txt; cd /etc' });
    const id = (await core.sandbox.status({ chatId: chat.id })).containerId as string;

    clock.advance(29 * 60_000);
    expect(await running(id)).toBe(true);
    clock.advance(2 * 60_000);
    await waitFor(async () => !(await running(id)), 'the idle stop');
    expect((await core.sandbox.status({ chatId: chat.id })).state).toBe('stopped');

    const out = await core.sandbox.exec({ chatId: chat.id, command: 'cat /home/sandbox/state.txt; pwd' });
    expect(out.output).toBe('layer\n/etc\n');
    expect(out.notices).toEqual([]);
    expect((await core.sandbox.status({ chatId: chat.id })).containerId).toBe(id);
  });

  it("dispose() stops containers; a profile that keeps them finds its running container again after a restart", async () => {
    const dataDir = h.dataDir();
    const first = h.core({ dataDir });
    const stopP = (await h.profile(first)).name;
    const keepP = (await h.profile(first, { retention: { idleStopMinutes: 30, onQuit: 'keep' } })).name;
    const stopChat = await first.chats.create({ profile: stopP });
    const keepChat = await first.chats.create({ profile: keepP });
    await first.sandbox.exec({ chatId: stopChat.id, command: 'true' });
    await first.sandbox.exec({ chatId: keepChat.id, command: 'export WHERE=before-restart; cd /tmp' });
    const stopId = (await first.sandbox.status({ chatId: stopChat.id })).containerId as string;
    const keepId = (await first.sandbox.status({ chatId: keepChat.id })).containerId as string;
    await first.dispose();
    expect(await running(stopId)).toBe(false);
    expect(await running(keepId)).toBe(true);

    const second = h.core({ dataDir });
    await second.ready;
    const out = await second.sandbox.exec({ chatId: keepChat.id, command: 'echo $WHERE; pwd' });
    expect(out.output).toBe('before-restart\n/tmp\n');
    expect((await second.sandbox.status({ chatId: keepChat.id })).containerId).toBe(keepId);
    expect(await containersWithLabel(`berth.chat=${keepChat.id}`)).toHaveLength(1);
  });
});

describe('orphans', () => {
  it('a process killed without cleanup leaves containers that the next start reaps; other instances are untouched', async () => {
    const dataDir = h.dataDir();
    const other = h.core();
    const otherP = (await h.profile(other)).name;
    const otherChat = await other.chats.create({ profile: otherP });
    await other.sandbox.exec({ chatId: otherChat.id, command: 'true' });

    // A real Berth process that dies (SIGKILL) after committing a chat's deletion, before removing its container.
    // Egress 'open', as every harness profile: the sweep is the point here, and Podman refuses 'allowlist'.
    const script = path.join(h.root, 'crash.mts');
    fs.writeFileSync(
      script,
      `import { createCore } from ${JSON.stringify(path.resolve('electron/main/core.ts'))};
import { DockerEngine } from ${JSON.stringify(path.resolve('electron/main/engine/dockerEngine.ts'))};
const engine = new DockerEngine({ kind: 'socket', socketPath: ${JSON.stringify(engineSocket())} });
engine.removeContainer = async () => { process.kill(process.pid, 'SIGKILL'); await new Promise(() => {}); };
const core = createCore({ dataDir: ${JSON.stringify(dataDir)}, engine, reapIntervalMs: 0 });
await core.profiles.create({ name: 'crashy', image: 'berth-test:busybox', egress: 'open' });
const doomed = await core.chats.create({ profile: 'crashy' });
const kept = await core.chats.create({ profile: 'crashy' });
await core.sandbox.exec({ chatId: doomed.id, command: 'true' });
await core.sandbox.exec({ chatId: kept.id, command: 'true' });
console.log(JSON.stringify({ doomed: doomed.id, kept: kept.id, instance: core.instanceId }));
await core.chats.delete({ chatId: doomed.id });
`,
    );
    const { spawnSync } = await import('node:child_process');
    let next: BerthCore | null = null;
    try {
      // The bound only catches a hang: a loaded machine can take a minute to compile and start it.
      const child = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 600_000 });
      expect(child.signal, child.stderr).toBe('SIGKILL');
      const ids = JSON.parse(child.stdout.trim().split('\n').pop() as string) as { doomed: string; kept: string; instance: string };
      expect(await containersWithLabel(`berth.chat=${ids.doomed}`)).toHaveLength(1);

      next = h.core({ dataDir });
      expect(next.instanceId).toBe(ids.instance);
      await next.ready;
      expect(await containersWithLabel(`berth.chat=${ids.doomed}`)).toEqual([]);
      expect(await containersWithLabel(`berth.chat=${ids.kept}`)).toHaveLength(1);
      expect(await containersWithLabel(`berth.chat=${otherChat.id}`)).toHaveLength(1);
      expect(await next.reap()).toBe(0);
    } finally {
      // Whatever failed, a core on this data records the killed process's instance, so the
      // harness's cleanup removes its containers (a failed run once left three behind).
      if (!next) h.core({ dataDir });
    }
  }, 660_000);
});

describe('periodic reaping', () => {
  it('sweeps again on its interval: a chat deleted behind its back loses its container', async () => {
    const clock = new ManualClock();
    const dataDir = h.dataDir();
    const core = h.core({ dataDir, clock, reapIntervalMs: 60_000 });
    const p = (await h.profile(core)).name;
    const chat = await core.chats.create({ profile: p });
    await core.sandbox.exec({ chatId: chat.id, command: 'true' });
    await core.ready;
    // Another writer (say, a second window of an older version) deletes the chat row.
    const { openDatabase } = await import('../../electron/main/store/database.js');
    const side = openDatabase(dataDir);
    side.prepare('DELETE FROM chats WHERE id = ?').run(chat.id);
    side.close();
    expect(await containersWithLabel(`berth.chat=${chat.id}`)).toHaveLength(1);
    clock.advance(60_000);
    await waitFor(async () => (await containersWithLabel(`berth.chat=${chat.id}`)).length === 0, 'the periodic sweep');
  });
});

describe('scopes and aliases', () => {
  it('shared scope keeps one container; a chat with its own image gets its own; folders are refused on the shared one', async () => {
    const core = h.core();
    const p = (await h.profile(core, { containerScope: 'shared' })).name;
    const a = await core.chats.create({ profile: p });
    const b = await core.chats.create({ profile: p });
    await core.sandbox.exec({ chatId: a.id, command: 'echo from-a > /tmp/shared.txt' });
    expect((await core.sandbox.exec({ chatId: b.id, command: 'cat /tmp/shared.txt' })).output).toBe('from-a\n');
    const sa = await core.sandbox.status({ chatId: a.id });
    expect((await core.sandbox.status({ chatId: b.id })).containerId).toBe(sa.containerId);
    await expect(core.workspace.attach({ chatId: a.id, path: h.workspace('no'), mode: 'readwrite' })).rejects.toMatchObject({ code: 'workspace_refused' });

    const own = await core.chats.create({ profile: p, image: BOOKWORM });
    await core.workspace.attach({ chatId: own.id, path: h.workspace('own', { 'own.txt': '1' }), mode: 'readwrite' });
    const out = await core.sandbox.exec({ chatId: own.id, command: 'ls /workspace; test -e /tmp/shared.txt && echo leaked || echo separate' });
    expect(out.output).toBe('own.txt\nseparate\n');
    expect((await core.sandbox.status({ chatId: own.id })).containerId).not.toBe(sa.containerId);
  });

  it("a subagent shares its parent's container and folder; nested subagents resolve to the root chat", async () => {
    const core = h.core();
    const p = (await h.profile(core)).name;
    const chat = await core.chats.create({ profile: p });
    await core.workspace.attach({ chatId: chat.id, path: h.workspace('shared-ws'), mode: 'readwrite' });
    const parentKey = (await core.tasks.register({ chatId: chat.id, taskId: 'sub-1', parentId: chat.id })).key;
    const nestedKey = (await core.tasks.register({ chatId: chat.id, taskId: 'sub-2', parentId: 'sub-1' })).key;
    expect(parentKey).toBe(nestedKey);
    await core.sandbox.exec({ chatId: chat.id, taskId: 'sub-2', command: 'echo from-subagent > result.txt' });
    const read = await core.sandbox.exec({ chatId: chat.id, command: 'cat /workspace/result.txt' });
    expect(read.output).toBe('from-subagent\n');
    expect(await containersWithLabel(`berth.chat=${chat.id}`)).toHaveLength(1);
  });

  it('the same raw task id in two profiles (A, then B, then A) never shares a container or a cwd record', async () => {
    const core = h.core();
    const a = (await h.profile(core)).name;
    const b = (await h.profile(core)).name;
    const chatA = await core.chats.create({ profile: a });
    const chatB = await core.chats.create({ profile: b });
    const keyA = (await core.tasks.register({ chatId: chatA.id, taskId: 'worker', parentId: chatA.id })).key;
    const keyB = (await core.tasks.register({ chatId: chatB.id, taskId: 'worker', parentId: chatB.id })).key;
    expect(keyA).toBe(`profile:${a}:${chatA.id}`);
    expect(keyB).toBe(`profile:${b}:${chatB.id}`);

    await core.sandbox.exec({ chatId: chatA.id, taskId: 'worker', command: 'mkdir -p /tmp/a-only && cd /tmp/a-only' });
    const inB = await core.sandbox.exec({ chatId: chatB.id, taskId: 'worker', command: 'pwd; ls /tmp' });
    expect(inB.output).not.toContain('a-only');
    expect(inB.cwd).toBe('/home/berth');
    const backInA = await core.sandbox.exec({ chatId: chatA.id, taskId: 'worker', command: 'pwd' });
    expect(backInA.output.trim()).toBe('/tmp/a-only');
    expect((await core.sandbox.status({ chatId: chatA.id })).containerId).not.toBe((await core.sandbox.status({ chatId: chatB.id })).containerId);

    // Clearing one profile's records (deleting its chat) leaves the other's.
    await core.chats.delete({ chatId: chatA.id });
    await core.sandbox.exec({ chatId: chatB.id, taskId: 'worker', command: 'cd /tmp' });
    expect((await core.sandbox.exec({ chatId: chatB.id, taskId: 'worker', command: 'pwd' })).output.trim()).toBe('/tmp');
  });
});
