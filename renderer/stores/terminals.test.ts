import { describe, expect, it } from 'vitest';
import { chatView, createFakeApi } from '../test/fakeApi';
import { createTerminalsStore, pickActive } from './terminals';

function setup() {
  const api = createFakeApi({ chats: [chatView({ id: 'c1', title: 'One' })] });
  return { api, store: createTerminalsStore(api) };
}

describe('terminals store', () => {
  it('opens a terminal for a chat that has none, once per session', async () => {
    const { api, store } = setup();
    await store.getState().ensure('c1');
    expect(store.getState().byChat['c1']?.map((t) => t.title)).toEqual(['Terminal 1']);
    expect(store.getState().active['c1']).toBe('term-1');
    await store.getState().close('term-1');
    await store.getState().ensure('c1');
    expect(api.callsTo('terminal.open')).toHaveLength(1);
    expect(store.getState().byChat['c1']).toEqual([]);
  });

  it('keeps what main already has and never opens a second one by itself', async () => {
    const { api, store } = setup();
    await api.call('terminal.open', { chatId: 'c1' });
    api.calls.length = 0;
    await store.getState().ensure('c1');
    expect(api.callsTo('terminal.open')).toEqual([]);
    expect(store.getState().active['c1']).toBe('term-1');
  });

  it('marks an ended terminal and restarts it as a new one in its place', async () => {
    const { api, store } = setup();
    await store.getState().open('c1');
    store.getState().markExited('term-1', 'c1', 'The sandbox stopped.');
    expect(store.getState().byChat['c1']?.[0]).toMatchObject({ state: 'exited', exitReason: 'The sandbox stopped.' });
    await store.getState().restart('term-1');
    expect(store.getState().byChat['c1']?.map((t) => t.terminalId)).toEqual(['term-2']);
    expect(store.getState().active['c1']).toBe('term-2');
    expect(api.callsTo('terminal.close')).toEqual([{ terminalId: 'term-1' }]);
  });

  it("restarts an ended terminal under its own name and in its own place among the tabs", async () => {
    const { api, store } = setup();
    await store.getState().open('c1');
    await store.getState().open('c1');
    store.getState().markExited('term-1', 'c1', 'The shell exited.');
    await store.getState().restart('term-1');
    expect(api.callsTo('terminal.open').at(-1)).toMatchObject({ chatId: 'c1', replaces: 'term-1' });
    expect(store.getState().byChat['c1']?.map((t) => [t.terminalId, t.title])).toEqual([
      ['term-3', 'Terminal 1'],
      ['term-2', 'Terminal 2'],
    ]);
    expect(store.getState().active['c1']).toBe('term-3');
  });

  it('keeps a failed open to show, with its hint', async () => {
    const { api, store } = setup();
    api.fail('terminal.open', 'engine_unreachable', 'Docker is not answering.', 'Start Docker.');
    expect(await store.getState().open('c1')).toBeNull();
    expect(store.getState().errors['c1']).toEqual({ code: 'engine_unreachable', message: 'Docker is not answering.', hint: 'Start Docker.' });
    expect(store.getState().opening['c1']).toBeUndefined();
  });

  it('shows the remembered tab, else the first running one, else the last', () => {
    const t = (id: string, state: 'running' | 'exited') => ({ terminalId: id, chatId: 'c', title: id, state, exitReason: null, cols: 80, rows: 24 });
    expect(pickActive([t('a', 'exited'), t('b', 'running')], undefined)).toBe('b');
    expect(pickActive([t('a', 'exited'), t('b', 'running')], 'a')).toBe('a');
    expect(pickActive([t('a', 'exited'), t('b', 'exited')], 'gone')).toBe('b');
    expect(pickActive([], undefined)).toBeNull();
  });
});
