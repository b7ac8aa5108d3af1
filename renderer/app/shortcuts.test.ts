import type { Terminal } from '@xterm/xterm';
import { describe, expect, it } from 'vitest';
import { registerTerminal } from '../features/terminals/registry';
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

  it("Alt+Shift+A and Alt+Shift+D press the shown prompt's Allow once and Deny", async () => {
    const { stores } = await setup();
    const pressed: string[] = [];
    document.body.innerHTML = '<div class="approvals"><button data-answer="once">Allow once</button><button data-answer="deny">Deny</button></div>';
    for (const b of Array.from(document.querySelectorAll('button'))) b.addEventListener('click', () => pressed.push(b.dataset.answer ?? ''));
    runShortcut(stores, 'allowOnce');
    runShortcut(stores, 'deny');
    expect(pressed).toEqual(['once', 'deny']);
    document.body.innerHTML = '';
  });

  describe('Ctrl+` while the chat\'s terminal is still opening', () => {
    const screen = (focused: string[], id: string) => registerTerminal(id, { focus: () => focused.push(id) } as unknown as Terminal);

    it('focuses the terminal as soon as it is on screen', async () => {
      const { stores } = await setup();
      const focused: string[] = [];
      runShortcut(stores, 'focusTerminal');
      await stores.terminals.getState().open('b');
      const off = screen(focused, activeTerminalId(stores) as string);
      expect(focused).toEqual([activeTerminalId(stores)]);
      off();
    });

    it('does not, once the user has moved on: another chat, or the focus put elsewhere', async () => {
      const { stores } = await setup();
      const focused: string[] = [];
      runShortcut(stores, 'focusTerminal');
      stores.chats.getState().select('a');
      stores.chats.getState().select('b');
      await stores.terminals.getState().open('b');
      screen(focused, activeTerminalId(stores) as string)(); // on screen, then gone (its chat left)
      expect(focused).toEqual([]);

      runShortcut(stores, 'focusTerminal');
      const input = document.body.appendChild(document.createElement('input'));
      input.focus();
      await stores.terminals.getState().open('b');
      const off = screen(focused, activeTerminalId(stores) as string);
      expect(focused).toEqual([]);
      off();
      input.remove();
    });
  });
});
