/** Profiles and chats on the in-memory engine: state transitions and the errors a user sees. */
import { afterEach, describe, expect, it } from 'vitest';
import { fakeCore, type FakeCore } from '../../../test/support/fakeCore.js';
import { BUSYBOX } from '../../../test/support/docker.js';

let f: FakeCore;
afterEach(async () => f?.dispose());

describe('SessionService on the fake engine', () => {
  it('creates, renames and lists chats; a deleted chat is gone for every later call', async () => {
    f = fakeCore();
    const chat = await f.chat();
    expect(chat).toMatchObject({ title: 'Chat 1' });
    expect((await f.core.chats.rename({ chatId: chat.id, title: 'Site' })).title).toBe('Site');
    expect((await f.core.chats.list({ profile: chat.profile })).chats.map((c) => c.title)).toEqual(['Site']);
    expect(await f.core.chats.delete({ chatId: chat.id })).toEqual({ removed: true });
    expect(await f.core.chats.delete({ chatId: chat.id })).toEqual({ removed: false });
    await expect(f.core.chats.rename({ chatId: chat.id, title: 'x' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(f.core.sandbox.exec({ chatId: chat.id, command: 'true' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses a second profile of the same name, or one whose network name would clash', async () => {
    f = fakeCore();
    await f.core.profiles.create({ name: 'work', image: BUSYBOX });
    await expect(f.core.profiles.create({ name: 'work', image: BUSYBOX })).rejects.toMatchObject({ code: 'already_exists' });
    await expect(f.core.profiles.create({ name: 'Work', image: BUSYBOX })).rejects.toMatchObject({ code: 'already_exists' });
    await expect(f.core.chats.create({ profile: 'nobody' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('deleting a profile takes its chats, containers and network with it; the default profile stays', async () => {
    f = fakeCore();
    await f.core.profiles.create({ name: 'work', image: BUSYBOX, egress: 'open' });
    const chat = await f.core.chats.create({ profile: 'work' });
    await f.core.sandbox.exec({ chatId: chat.id, command: 'true' });
    expect([...f.engine.networks.keys()]).toEqual(['berth-work']);
    expect(await f.core.profiles.delete({ name: 'work' })).toEqual({ removedChats: 1 });
    expect(f.engine.containers.size).toBe(0);
    expect(f.engine.networks.size).toBe(0);
    await expect(f.core.profiles.delete({ name: 'default' })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('applies a profile edit at the chat’s next command by recreating its container', async () => {
    f = fakeCore();
    const chat = await f.chat();
    await f.core.sandbox.exec({ chatId: chat.id, command: 'true' });
    const before = [...f.engine.containers.keys()];
    await f.core.profiles.update({ name: chat.profile, settings: { limits: { memoryMb: 512, cpus: 1, pids: 256 } } });
    const out = await f.core.sandbox.exec({ chatId: chat.id, command: 'true' });
    expect(out.notices.join(' ')).toMatch(/recreated/);
    expect([...f.engine.containers.keys()]).not.toEqual(before);
    expect([...f.engine.containers.values()][0]!.body.HostConfig.Memory).toBe(512 * 1024 * 1024);
  });
});
