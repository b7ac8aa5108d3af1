import { describe, expect, it } from 'vitest';
import { createStores, startSync } from '../stores';
import { chatView, createFakeApi, profileView } from '../test/fakeApi';
import { activeTerminalId, runShortcut } from './shortcuts';

async function setup() {
  const api = createFakeApi({
    profiles: [profileView('default'), profileView('work')],
    chats: [chatView({ id: 'a', title: 'A', createdAt: 1 }), chatView({ id: 'b', title: 'B', createdAt: 2 }), chatView({ id: 'w', title: 'W', profile: 'work', createdAt: 3 })],
  });
  const stores = createStores(api, api.connection);
  startSync(stores, api, api.connection, { autoOpenTerminal: false, refetchDelayMs: 0 });
  await stores.chats.getState().refresh();
  await stores.profiles.getState().refresh();
  return { api, stores };
}

describe('app shortcuts', () => {
  it('moves to the next and previous chat in sidebar order, wrapping', async () => {
    const { stores } = await setup();
    expect(stores.chats.getState().selectedId).toBe('b');
    runShortcut(stores, 'nextChat');
    expect(stores.chats.getState().selectedId).toBe('a');
    runShortcut(stores, 'nextChat');
    expect(stores.chats.getState().selectedId).toBe('w');
    runShortcut(stores, 'nextChat');
    expect(stores.chats.getState().selectedId).toBe('b');
    runShortcut(stores, 'previousChat');
    expect(stores.chats.getState().selectedId).toBe('w');
  });

  it('opens a terminal in the selected chat, which becomes the active one', async () => {
    const { api, stores } = await setup();
    runShortcut(stores, 'newTerminal');
    await new Promise((r) => setTimeout(r, 0));
    expect(api.callsTo('terminal.open')).toEqual([{ chatId: 'b', cols: 80, rows: 24 }]);
    expect(activeTerminalId(stores)).toBe('term-1');
  });

  it('creates a chat in the selected chat\'s profile', async () => {
    const { api, stores } = await setup();
    stores.chats.getState().select('w');
    runShortcut(stores, 'newChat');
    await new Promise((r) => setTimeout(r, 0));
    expect(api.callsTo('chats.create')).toEqual([{ profile: 'work' }]);
  });
});
