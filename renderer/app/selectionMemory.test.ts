import { describe, expect, it } from 'vitest';
import { chatView, createFakeApi } from '../test/fakeApi';
import { createChatsStore } from '../stores/chats';
import { localSelectionMemory } from './selectionMemory';

const a = chatView({ id: 'a', title: 'Alpha', createdAt: 1 });
const c = chatView({ id: 'c', title: 'Gamma', createdAt: 3 });

describe('the open chat after a reload', () => {
  it('opens the chat that was open before a reload, while it exists', async () => {
    const storage = new Map<string, string>();
    const memory = localSelectionMemory({
      getItem: (k) => storage.get(k) ?? null,
      setItem: (k, v) => void storage.set(k, v),
      removeItem: (k) => void storage.delete(k),
    });
    const before = createChatsStore(createFakeApi({ chats: [a, c] }), memory);
    await before.getState().refresh();
    before.getState().select('a');
    // The page loads again: a new store, the same storage.
    const after = createChatsStore(createFakeApi({ chats: [a, c] }), memory);
    await after.getState().refresh();
    expect(after.getState().selectedId).toBe('a');
    // Deleted meanwhile: the newest chat opens instead.
    const gone = createChatsStore(createFakeApi({ chats: [c] }), memory);
    await gone.getState().refresh();
    expect(gone.getState().selectedId).toBe('c');
  });
});
