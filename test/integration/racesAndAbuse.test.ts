/** What a hostile command, a racing caller or a pruned network must not be able to do. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxProgressEvent } from '../../shared/contract.js';
import type { BerthCore } from '../../electron/main/core.js';
import { containersWithLabel, docker } from '../support/docker.js';
import { Harness, uniqueName } from '../support/harness.js';

const h = new Harness();
let core: BerthCore;
let profile: string;

beforeAll(async () => {
  ({ core, profile } = await h.coreWithProfile());
});
afterAll(() => h.cleanup());

describe('one chat cannot reach another', () => {
  it("a task id is bound to its chat: another chat's id or task is refused, and deleting one chat leaves the other's home", async () => {
    const x = await core.chats.create({ profile, title: 'X' });
    const y = await core.chats.create({ profile, title: 'Y' });
    await core.sandbox.exec({ chatId: y.id, command: 'echo private > ~/notes.txt' });
    await expect(core.sandbox.exec({ chatId: x.id, taskId: y.id, command: 'cat ~/notes.txt' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(core.tasks.register({ chatId: x.id, taskId: y.id, parentId: x.id })).rejects.toMatchObject({ code: 'already_exists' });
    await core.tasks.register({ chatId: y.id, taskId: 'y-sub', parentId: y.id });
    await expect(core.tasks.register({ chatId: x.id, taskId: 'x-sub', parentId: 'y-sub' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(core.sandbox.exec({ chatId: x.id, taskId: 'y-sub', command: 'true' })).rejects.toMatchObject({ code: 'not_found' });
    await core.chats.delete({ chatId: x.id });
    expect((await core.sandbox.exec({ chatId: y.id, command: 'cat ~/notes.txt' })).output).toBe('private\n');
  });

  it('refuses a folder nested in a folder another chat can write, since a swap could mount anything', async () => {
    const outer = h.workspace('outer', { 'sub/file.txt': 'f' });
    const a = await core.chats.create({ profile, title: 'Outer chat' });
    const b = await core.chats.create({ profile, title: 'Inner chat' });
    await core.workspace.attach({ chatId: a.id, path: outer, mode: 'readwrite' });
    const nested = core.workspace.attach({ chatId: b.id, path: path.join(outer, 'sub'), mode: 'readwrite' });
    await expect(nested).rejects.toMatchObject({ code: 'workspace_refused' });
    await expect(nested).rejects.toThrow(/inside .*outer, which the chat "Outer chat" can change/);
    // Read-only outside, it is safe.
    await core.workspace.attach({ chatId: a.id, path: outer, readOnly: true });
    await core.workspace.attach({ chatId: b.id, path: path.join(outer, 'sub'), mode: 'readwrite' });
    // The same folder in two chats is fine.
    const c = await core.chats.create({ profile });
    await core.workspace.attach({ chatId: c.id, path: path.join(outer, 'sub'), mode: 'readwrite' });
  });

  it("an interrupt in a shared container stops only the caller's own command", async () => {
    const shared = (await h.profile(core, { containerScope: 'shared' })).name;
    const a = await core.chats.create({ profile: shared });
    const b = await core.chats.create({ profile: shared });
    await core.sandbox.exec({ chatId: a.id, command: 'true' });
    const running = core.sandbox.exec({ chatId: b.id, command: 'sleep 1; echo finished' });
    await new Promise((r) => setTimeout(r, 300));
    expect(await core.sandbox.interrupt({ chatId: a.id })).toEqual({ interrupted: false });
    expect(await running).toMatchObject({ exitCode: 0, output: 'finished\n' });
  });
});

describe('a hostile command', () => {
  it('cannot see its end marker, so it cannot end its output early or slip past the cap', async () => {
    const chat = await core.chats.create({ profile });
    const peek = await core.sandbox.exec({ chatId: chat.id, command: 'echo "[$1][$__m][$2]"' });
    expect(peek.output).toBe('[][][]\n');
    const flood = await core.sandbox.exec({ chatId: chat.id, command: 'printf "__BERTH_END_%s__ 0 /x" nothexnothexnothexnothe; head -c 3000000 /dev/zero; echo; echo done' });
    expect(flood.exitCode).toBe(0);
    expect(flood.truncated).toBe(true);
    expect(flood.outputBytes).toBeGreaterThan(3_000_000);
    expect(flood.output.endsWith('done\n')).toBe(true);
  });
});

describe('races', () => {
  it('waits for a running command before recreating the container for a new folder', async () => {
    const chat = await core.chats.create({ profile });
    await core.sandbox.exec({ chatId: chat.id, command: 'true' });
    const long = core.sandbox.exec({ chatId: chat.id, command: 'sleep 1; echo survived' });
    await new Promise((r) => setTimeout(r, 200));
    await core.workspace.attach({ chatId: chat.id, path: h.workspace('late', { 'late.txt': 'l' }), mode: 'readwrite' });
    const next = core.sandbox.exec({ chatId: chat.id, command: 'ls /workspace' });
    expect(await long).toMatchObject({ exitCode: 0, output: 'survived\n' });
    const after = await next;
    expect(after.output).toBe('late.txt\n');
    expect(after.notices.join(' ')).toMatch(/recreated/);
  });

  it('a stop racing a command ends cleanly, and the next command starts the sandbox without a false alarm', async () => {
    const chat = await core.chats.create({ profile });
    const first = core.sandbox.exec({ chatId: chat.id, command: 'echo one' });
    const stopped = core.sandbox.stop({ chatId: chat.id });
    const settled = await Promise.allSettled([first, stopped]);
    expect(settled[1].status).toBe('fulfilled');
    const next = await core.sandbox.exec({ chatId: chat.id, command: 'echo two' });
    expect(next.output).toBe('two\n');
    expect(next.notices).toEqual([]);
  });

  it('callers waiting on a failed bring-up share its error instead of retrying it each', async () => {
    const p = (await core.profiles.create({ name: uniqueName('p'), image: `127.0.0.1:1/${uniqueName('absent')}:1` })).name;
    const chat = await core.chats.create({ profile: p });
    const pulls: SandboxProgressEvent[] = [];
    const sub = core.onEvent((event, payload) => {
      const e = payload as SandboxProgressEvent;
      if (event === 'sandbox.progress' && e.chatId === chat.id && e.phase === 'pulling') pulls.push(e);
    });
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => core.sandbox.exec({ chatId: chat.id, command: 'true' })));
    sub.dispose();
    expect(results.every((r) => r.status === 'rejected' && (r.reason as { code: string }).code === 'registry_unreachable')).toBe(true);
    expect(pulls).toHaveLength(1);
  });

  it('a chat whose network was pruned while it was stopped gets a new network and container', async () => {
    const p = (await h.profile(core)).name;
    const chat = await core.chats.create({ profile: p });
    await core.sandbox.exec({ chatId: chat.id, command: 'echo kept > ~/k' });
    const status = await core.sandbox.stop({ chatId: chat.id });
    await docker('network', 'rm', status.networkName as string);
    const out = await core.sandbox.exec({ chatId: chat.id, command: 'cat ~/k' });
    expect(out.output).toBe('kept\n');
    expect(out.notices.join(' ')).toMatch(/network had been removed/);
    expect(await containersWithLabel(`berth.chat=${chat.id}`)).toHaveLength(1);
  });
});

describe('without the engine', () => {
  it('a local chat whose folder vanished runs in its fallback and says so; deleting chats needs no engine', async () => {
    const offline = h.core({ env: { DOCKER_HOST: `unix://${path.join(h.root, 'none.sock')}` } });
    const local = await offline.profiles.create({ name: uniqueName('local'), backend: 'local' });
    const chat = await offline.chats.create({ profile: local.name });
    const ws = h.workspace('local-ws');
    await offline.workspace.attach({ chatId: chat.id, path: ws, mode: 'readwrite' });
    fs.mkdirSync(path.join(ws, 'gone'));
    await offline.sandbox.exec({ chatId: chat.id, command: 'cd gone' });
    fs.rmdirSync(path.join(ws, 'gone'));
    const out = await offline.sandbox.exec({ chatId: chat.id, command: 'pwd' });
    expect(out.exitCode).toBe(0);
    expect(out.output).toBe(`${ws}\n`);
    expect(out.notices.join(' ')).toMatch(/does not exist any more/);
    expect(await offline.chats.delete({ chatId: chat.id })).toEqual({ removed: true });
    const dockerChat = await offline.chats.create({});
    expect(await offline.chats.delete({ chatId: dockerChat.id })).toEqual({ removed: true });
  });
});
