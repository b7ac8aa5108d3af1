import { describe, expect, it } from 'vitest';
import { chatView, createFakeApi, profileView } from '../test/fakeApi';
import { chatOrder, createChatsStore, groupChats, keepUnchanged, neighbourAfterRemoval, stepChat } from './chats';

const a = chatView({ id: 'a', title: 'Alpha', profile: 'default', createdAt: 1 });
const b = chatView({ id: 'b', title: 'Beta', profile: 'work', createdAt: 2 });
const c = chatView({ id: 'c', title: 'Gamma', profile: 'default', createdAt: 3 });
const d = chatView({ id: 'd', title: 'alphabet soup', profile: 'work', createdAt: 4 });

describe('groupChats', () => {
  it('groups by profile, default first then by name, newest chats first', () => {
    const groups = groupChats([a, b, c, d], ['work', 'default', 'empty'], '');
    expect(groups.map((g) => g.profile)).toEqual(['default', 'empty', 'work']);
    expect(groups[0]?.chats.map((x) => x.id)).toEqual(['c', 'a']);
    expect(groups[1]?.chats).toEqual([]);
    expect(groups[2]?.chats.map((x) => x.id)).toEqual(['d', 'b']);
  });

  it('gives a chat whose profile is not listed its own group', () => {
    const groups = groupChats([b], ['default'], '');
    expect(groups.map((g) => g.profile)).toEqual(['default', 'work']);
  });

  it('filters by title, case-insensitively, and hides groups with no match', () => {
    const groups = groupChats([a, b, c, d], ['default', 'work', 'empty'], '  ALPHA ');
    expect(groups.map((g) => [g.profile, g.chats.map((x) => x.id)])).toEqual([
      ['default', ['a']],
      ['work', ['d']],
    ]);
    expect(groupChats([a, b], ['default'], 'zzz')).toEqual([]);
  });
});

describe('chat order and stepping', () => {
  const order = chatOrder(groupChats([a, b, c, d], ['default', 'work'], ''));

  it('follows the sidebar', () => {
    expect(order).toEqual(['c', 'a', 'd', 'b']);
  });

  it('steps forwards and backwards, wrapping around', () => {
    expect(stepChat(order, 'c', 1)).toBe('a');
    expect(stepChat(order, 'b', 1)).toBe('c');
    expect(stepChat(order, 'c', -1)).toBe('b');
    expect(stepChat(order, null, 1)).toBe('c');
    expect(stepChat(order, null, -1)).toBe('b');
    expect(stepChat([], null, 1)).toBeNull();
  });

  it('picks the next chat after a removal, else the previous', () => {
    expect(neighbourAfterRemoval(order, 'a')).toBe('d');
    expect(neighbourAfterRemoval(order, 'b')).toBe('d');
    expect(neighbourAfterRemoval(['x'], 'x')).toBeNull();
    expect(neighbourAfterRemoval(order, 'a', new Set(['c', 'b']))).toBe('b');
  });

  it('orders chats by activity: the one written in last comes first, however old', () => {
    const old = chatView({ id: 'old', title: 'Old', createdAt: 1, lastActiveAt: 50 });
    const fresh = chatView({ id: 'fresh', title: 'Fresh', createdAt: 10 });
    expect(groupChats([fresh, old], [], '')[0]?.chats.map((x) => x.id)).toEqual(['old', 'fresh']);
  });
});

describe('chats store', () => {
  it('loads the list and selects the newest chat on first load', async () => {
    const api = createFakeApi({ chats: [a, c], profiles: [profileView('default')] });
    const store = createChatsStore(api);
    await store.getState().refresh();
    expect(store.getState().chats).toHaveLength(2);
    expect(store.getState().selectedId).toBe('c');
  });

  it('selecting a chat makes its profile the one new chats go into', async () => {
    const api = createFakeApi({ chats: [a, b] });
    const store = createChatsStore(api);
    await store.getState().refresh();
    store.getState().select('b');
    expect(store.getState().newChatProfile).toBe('work');
    const created = await store.getState().create();
    expect(api.callsTo('chats.create')).toEqual([{ profile: 'work' }]);
    expect(store.getState().selectedId).toBe(created?.id);
  });

  it('after deleting the selected chat, selects its neighbour', async () => {
    const api = createFakeApi({ chats: [a, c] });
    const store = createChatsStore(api);
    await store.getState().refresh();
    expect(store.getState().selectedId).toBe('c');
    await store.getState().remove('c');
    expect(store.getState().selectedId).toBe('a');
    expect(store.getState().chats.map((x) => x.id)).toEqual(['a']);
  });

  it('when a refetch no longer has the selected chat, selects a surviving neighbour', async () => {
    const api = createFakeApi({ chats: [a, c] });
    const store = createChatsStore(api);
    await store.getState().refresh();
    api.chats = [a];
    await store.getState().refresh();
    expect(store.getState().selectedId).toBe('a');
  });

  it('keeps a failure to show, with its hint', async () => {
    const api = createFakeApi();
    api.fail('chats.create', 'invalid_request', 'That profile does not exist.', 'Create it first.');
    const store = createChatsStore(api);
    expect(await store.getState().create()).toBeNull();
    expect(store.getState().error).toEqual({ code: 'invalid_request', message: 'That profile does not exist.', hint: 'Create it first.' });
  });
});

describe('keepUnchanged', () => {
  it("keeps the objects of chats that did not change, so the sidebar's rows skip them", () => {
    const prev = [a, b];
    // Refetched: equal objects, but new ones.
    expect(keepUnchanged(prev, [{ ...a }, { ...b }])).toBe(prev);
    const renamed = { ...b, title: 'Beta 2' };
    const next = keepUnchanged(prev, [{ ...a }, renamed]);
    expect(next[0]).toBe(a);
    expect(next[1]).toBe(renamed);
    // A chat gone, or one new: a new list.
    expect(keepUnchanged(prev, [{ ...a }])).toEqual([a]);
    expect(keepUnchanged(prev, [{ ...a }])).not.toBe(prev);
  });
});
