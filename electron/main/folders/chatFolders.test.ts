/** A chat's folders on the in-memory engine: the mount plan's input is computed once per state of what it is made from. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeCore, type FakeCore } from '../../../test/support/fakeCore.js';
import { ChatFolders } from './chatFolders.js';

let f: FakeCore;
afterEach(async () => {
  vi.restoreAllMocks();
  await f?.dispose();
});

describe('ChatFolders.planInput', () => {
  it('computes the plan input once per state of the chat\'s folders: an attach, its notice and the bring-up after it share one', async () => {
    f = fakeCore();
    const asked = vi.spyOn(ChatFolders.prototype, 'planInput');
    const computed = () => (asked.mock.contexts[0] as ChatFolders | undefined)?.planComputations ?? 0;
    const chat = await f.chat();
    await f.core.workspace.attach({ chatId: chat.id, path: f.folder('site'), mode: 'review' });
    // Before the attach (no folders) and after it (the copy): two states, two computations.
    expect(computed()).toBe(2);
    const out = await f.core.sandbox.exec({ chatId: chat.id, command: 'cd /workspace && pwd' });
    expect(out.exitCode).toBe(0);
    await f.core.sandbox.exec({ chatId: chat.id, command: 'true' });
    // The bring-up and the commands read the attach's plan input: asked again, computed never.
    expect(asked.mock.calls.length).toBeGreaterThan(2);
    expect(computed()).toBe(2);
    await f.core.workspace.attach({ chatId: chat.id, path: f.folder('docs'), mode: 'readonly' });
    // A new state of the folders: computed once more.
    expect(computed()).toBe(3);
  });
});
