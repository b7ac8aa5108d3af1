/** The exec service's logic on the in-memory engine: cwd records, errors, deletion. */
import { afterEach, describe, expect, it } from 'vitest';
import { fakeCore, type FakeCore } from '../../../test/support/fakeCore.js';
import { rejectionCode } from '../../../test/support/tempDirs.js';

let f: FakeCore;
afterEach(async () => f?.dispose());


describe('SandboxService on the fake engine', () => {
  it('runs in the attached folder, keeps the cwd a command left, and never records a host path as a cwd', async () => {
    f = fakeCore();
    const chat = await f.chat();
    await f.core.workspace.attach({ chatId: chat.id, path: f.folder('site') });
    const first = await f.core.sandbox.exec({ chatId: chat.id, command: 'pwd' });
    expect(first).toMatchObject({ exitCode: 0, output: '/workspace\n', cwd: '/workspace' });
    expect((await f.core.sandbox.exec({ chatId: chat.id, command: 'cd /tmp' })).cwd).toBe('/tmp');
    expect((await f.core.sandbox.exec({ chatId: chat.id, command: 'pwd' })).output).toBe('/tmp\n');
    expect(f.engine.calls.filter((c) => c === 'createContainer')).toHaveLength(1);
  });

  it('says so when the engine is down, and the status follows once it is back', async () => {
    f = fakeCore();
    const chat = await f.chat();
    f.engine.down = true;
    expect(await rejectionCode(f.core.sandbox.exec({ chatId: chat.id, command: 'true' }))).toBe('engine_unreachable');
    f.engine.down = false;
    expect((await f.core.sandbox.exec({ chatId: chat.id, command: 'echo back' })).output).toBe('back\n');
    expect((await f.core.sandbox.status({ chatId: chat.id })).state).toBe('running');
  });

  it('deleting a chat removes its container; the sweep removes one whose chat went behind its back', async () => {
    f = fakeCore();
    const a = await f.chat();
    const b = await f.chat();
    await f.core.sandbox.exec({ chatId: a.id, command: 'true' });
    await f.core.sandbox.exec({ chatId: b.id, command: 'true' });
    expect(f.engine.containers.size).toBe(2);
    await f.core.chats.delete({ chatId: a.id });
    expect([...f.engine.containers.values()].map((c) => c.body.Labels['berth.chat'])).toEqual([b.id]);
    // A container of this instance whose chat the store no longer has: the reaper's to remove.
    const orphan = { ...[...f.engine.containers.values()][0]!.body, name: 'orphan' };
    orphan.Labels = { ...orphan.Labels, 'berth.chat': 'gone', 'berth.key': 'default:gone' };
    await f.engine.createContainer(orphan);
    expect(await f.core.reap()).toBe(1);
    expect(f.engine.containers.size).toBe(1);
  });

  it('numbers a status when it starts reading it: one answered after the sandbox came up is older than the events that said so', async () => {
    f = fakeCore();
    const chat = await f.chat();
    // The engine is slow to answer the status's first question, until the sandbox has come up.
    let letGo: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const find = f.engine.findContainers.bind(f.engine);
    let first = true;
    f.engine.findContainers = async (labels) => {
      if (first) {
        first = false;
        await held;
        return [];
      }
      return find(labels);
    };
    const late = f.core.sandbox.status({ chatId: chat.id });
    await f.core.sandbox.exec({ chatId: chat.id, command: 'true' });
    letGo();
    const answer = await late;
    // What it read is from before the start ('none'); the start's events are numbered after it.
    expect(answer.state).toBe('none');
    const ready = f.of('sandbox.progress').find((p) => p.chatId === chat.id && p.phase === 'ready');
    expect(ready?.revision).toBeGreaterThan(answer.revision ?? Infinity);
    expect((await f.core.sandbox.status({ chatId: chat.id })).revision).toBeGreaterThan(ready?.revision ?? Infinity);
  });
});
