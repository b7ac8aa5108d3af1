/** Deleting a profile's chats on the in-memory engine: how many at once, and the page told as each goes. */
import { afterEach, describe, expect, it } from 'vitest';
import { fakeCore, type FakeCore } from '../../../test/support/fakeCore.js';
import { BUSYBOX } from '../../../test/support/docker.js';
import { waitFor } from '../../../test/support/waitFor.js';
import { PROFILE_DELETE_CONCURRENCY } from './deletionService.js';

let f: FakeCore;
afterEach(async () => f?.dispose());

describe('DeletionService.deleteProfile', () => {
  it('deletes a profile’s chats a few at a time and tells the page as each one goes', async () => {
    f = fakeCore();
    await f.core.profiles.create({ name: 'work', image: BUSYBOX, egress: 'open' });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const chat = await f.core.chats.create({ profile: 'work' });
      await f.core.sandbox.exec({ chatId: chat.id, command: 'true' });
      ids.push(chat.id);
    }
    // Each container's removal waits until the test lets it go: what is in flight is visible.
    const held: Array<() => void> = [];
    let inFlight = 0;
    let most = 0;
    const remove = f.engine.removeContainer.bind(f.engine);
    f.engine.removeContainer = async (id: string) => {
      most = Math.max(most, ++inFlight);
      await new Promise<void>((resolve) => held.push(resolve));
      inFlight--;
      return remove(id);
    };
    const before = f.of('chats.changed').length;
    const gone = () => f.of('chats.changed').slice(before).map((e) => e.chatId).filter((id): id is string => id !== null && ids.includes(id));
    let answered = false;
    const deleting = f.core.profiles.delete({ name: 'work' }).finally(() => (answered = true));
    await waitFor(async () => held.length === PROFILE_DELETE_CONCURRENCY, 'the first chats’ removals');
    expect(gone()).toEqual([]);
    held.shift()?.();
    await waitFor(async () => gone().length === 1, 'the first chat gone');
    expect(answered).toBe(false);
    // One went, the next one started: never more than the bound at once.
    await waitFor(async () => held.length === PROFILE_DELETE_CONCURRENCY, 'the next chat’s removal');
    while (!answered) {
      held.splice(0).forEach((go) => go());
      await new Promise((r) => setTimeout(r, 0));
    }
    expect(await deleting).toEqual({ removedChats: 6 });
    expect(most).toBe(PROFILE_DELETE_CONCURRENCY);
    expect([...gone()].sort()).toEqual([...ids].sort());
    expect(f.engine.containers.size).toBe(0);
    expect((await f.core.chats.list({})).chats.filter((c) => c.profile === 'work')).toEqual([]);
  });
});
