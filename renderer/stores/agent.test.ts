import { waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { agentMessage, chatView, createFakeApi } from '../test/fakeApi';
import { createAgentStore, reduceAgent, upsertMessage, type Conversations } from './agent';
import { createStores, startSync } from './index';

const CHAT = 'c1';

function opened(): Conversations {
  return reduceAgent({}, { type: 'open', chatId: CHAT });
}

describe('reduceAgent', () => {
  it('appends deltas to a streaming message, and ignores them for a message not yet known or done', () => {
    const streaming = agentMessage({ id: 'm1', chatId: CHAT, content: 'Hel', done: false });
    let state = reduceAgent(opened(), { type: 'delta', chatId: CHAT, messageId: 'm1', text: 'lost' });
    expect(state[CHAT]?.messages).toEqual([]);
    state = reduceAgent(state, { type: 'message', message: streaming });
    state = reduceAgent(state, { type: 'delta', chatId: CHAT, messageId: 'm1', text: 'lo' });
    state = reduceAgent(state, { type: 'delta', chatId: CHAT, messageId: 'm1', text: ' there' });
    expect(state[CHAT]?.messages[0]?.content).toBe('Hello there');
    state = reduceAgent(state, { type: 'message', message: { ...streaming, content: 'Hello there.', done: true } });
    state = reduceAgent(state, { type: 'delta', chatId: CHAT, messageId: 'm1', text: '!!' });
    expect(state[CHAT]?.messages[0]).toMatchObject({ content: 'Hello there.', done: true });
  });

  it('replaces a message by id and keeps the order by time', () => {
    const a = agentMessage({ id: 'a', chatId: CHAT, createdAt: 1 });
    const c = agentMessage({ id: 'c', chatId: CHAT, createdAt: 3 });
    const b = agentMessage({ id: 'b', chatId: CHAT, createdAt: 2 });
    let list = upsertMessage(upsertMessage([], a), c);
    list = upsertMessage(list, b);
    expect(list.map((m) => m.id)).toEqual(['a', 'b', 'c']);
    list = upsertMessage(list, { ...a, content: 'changed' });
    expect(list.map((m) => [m.id, m.content])).toEqual([
      ['a', 'changed'],
      ['b', ''],
      ['c', ''],
    ]);
  });

  it('drops events for a chat that was never opened', () => {
    const state = reduceAgent({}, { type: 'message', message: agentMessage({ chatId: 'elsewhere' }) });
    expect(state).toEqual({});
  });

  it('tracks a turn: running clears the last error; ending keeps its error and drops what waited', () => {
    let state = reduceAgent(opened(), { type: 'patch', chatId: CHAT, patch: { error: { code: 'x', message: 'old', hint: null } } });
    state = reduceAgent(state, { type: 'state', chatId: CHAT, running: true, error: null });
    expect(state[CHAT]).toMatchObject({ running: true, error: null });
    const request = { approvalId: 'ap1', chatId: CHAT, taskId: null, callId: 'call1', tool: 'terminal', command: 'ls', cwd: '/workspace', detail: null };
    state = reduceAgent(state, { type: 'approval', request });
    state = reduceAgent(state, { type: 'approval', request });
    expect(state[CHAT]?.approvals).toEqual([request]);
    state = reduceAgent(state, {
      type: 'state',
      chatId: CHAT,
      running: false,
      error: { code: 'provider_unauthorized', message: 'The provider refused the key.', hint: 'Save a new key.' },
    });
    expect(state[CHAT]).toMatchObject({
      running: false,
      approvals: [],
      error: { code: 'provider_unauthorized', message: 'The provider refused the key.', hint: 'Save a new key.' },
    });
  });

  it('hides an approval once it is done', () => {
    const request = { approvalId: 'ap1', chatId: CHAT, taskId: null, callId: 'call1', tool: 'terminal', command: 'ls', cwd: null, detail: null };
    let state = reduceAgent(opened(), { type: 'approval', request });
    state = reduceAgent(state, { type: 'approvalDone', chatId: CHAT, approvalId: 'ap1' });
    expect(state[CHAT]?.approvals).toEqual([]);
  });
});

describe('agent store', () => {
  function setup() {
    const api = createFakeApi({ chats: [chatView({ id: CHAT, title: 'One' })] });
    return { api, store: createAgentStore(api) };
  }

  it('loads the history, then applies events on top', async () => {
    const { api, store } = setup();
    const first = agentMessage({ id: 'm1', chatId: CHAT, role: 'user', content: 'hi', createdAt: 1 });
    api.conversations[CHAT] = { messages: [first], running: true, approvals: [] };
    await store.getState().load(CHAT);
    expect(store.getState().byChat[CHAT]).toMatchObject({ loaded: true, running: true, messages: [first] });
    store.getState().dispatch({ type: 'message', message: agentMessage({ id: 'm2', chatId: CHAT, done: false, createdAt: 2 }) });
    store.getState().dispatch({ type: 'delta', chatId: CHAT, messageId: 'm2', text: 'Hello' });
    expect(store.getState().byChat[CHAT]?.messages.map((m) => m.content)).toEqual(['hi', 'Hello']);
  });

  it('keeps only the latest of two overlapping loads', async () => {
    const { api, store } = setup();
    let answer = 0;
    api.handle('agent.history', async () => {
      const mine = ++answer;
      if (mine === 1) await new Promise((r) => setTimeout(r, 10));
      return { messages: [agentMessage({ id: `load-${mine}`, chatId: CHAT })], running: false, approvals: [], allowedForChat: false };
    });
    await Promise.all([store.getState().load(CHAT), store.getState().load(CHAT)]);
    expect(store.getState().byChat[CHAT]?.messages.map((m) => m.id)).toEqual(['load-2']);
  });

  it('sends, and keeps a refusal with its hint to show', async () => {
    const { api, store } = setup();
    await store.getState().load(CHAT);
    expect(await store.getState().send(CHAT, 'list the files')).toBe(true);
    expect(store.getState().byChat[CHAT]?.messages.map((m) => [m.role, m.content])).toEqual([['user', 'list the files']]);
    api.fail('agent.send', 'agent_not_configured', 'This profile has no model.', 'Set one in Profiles.');
    expect(await store.getState().send(CHAT, 'again')).toBe(false);
    expect(store.getState().byChat[CHAT]).toMatchObject({
      sending: false,
      error: { code: 'agent_not_configured', message: 'This profile has no model.', hint: 'Set one in Profiles.' },
    });
  });

  it('answers an approval and hides it; a failed answer keeps it', async () => {
    const { api, store } = setup();
    const ask = (approvalId: string) => ({ approvalId, chatId: CHAT, taskId: null, callId: `call-${approvalId}`, tool: 'terminal', command: 'rm -rf build', cwd: '/workspace', detail: null });
    api.conversations[CHAT] = { messages: [], running: true, approvals: [ask('ap1'), ask('ap2')] };
    await store.getState().load(CHAT);
    await store.getState().approve(CHAT, 'ap1', 'deny');
    expect(api.callsTo('agent.approve')).toEqual([{ chatId: CHAT, approvalId: 'ap1', decision: 'deny' }]);
    expect(store.getState().byChat[CHAT]?.approvals).toEqual([ask('ap2')]);
    api.fail('agent.approve', 'not_found', 'That approval is gone.');
    await store.getState().approve(CHAT, 'ap2', 'once');
    expect(store.getState().byChat[CHAT]).toMatchObject({ approvals: [ask('ap2')], answering: [], error: { message: 'That approval is gone.' } });
  });
});

describe('agent sync', () => {
  it('loads the conversation of the chat that is opened, applies events, forgets a deleted chat', async () => {
    const api = createFakeApi({ chats: [chatView({ id: 'c1', title: 'One', createdAt: 1 }), chatView({ id: 'c2', title: 'Two', createdAt: 2 })] });
    api.conversations['c1'] = { messages: [agentMessage({ id: 'old', chatId: 'c1', content: 'from before' })], running: false, approvals: [] };
    const stores = createStores(api, api.connection);
    const stop = startSync(stores, api, api.connection, { autoOpenTerminal: false, refetchDelayMs: 0 });
    try {
      await waitFor(() => expect(stores.chats.getState().selectedId).toBe('c2'));
      await waitFor(() => expect(stores.agent.getState().byChat['c2']?.loaded).toBe(true));
      expect(api.callsTo('agent.history')).toEqual([{ chatId: 'c2' }]);
      stores.chats.getState().select('c1');
      await waitFor(() => expect(stores.agent.getState().byChat['c1']?.messages.map((m) => m.id)).toEqual(['old']));
      api.pushAgent('agent.state', { chatId: 'c1', running: true, error: null });
      api.pushAgent('agent.message', { message: agentMessage({ id: 'new', chatId: 'c1', done: false, createdAt: Date.now() }) });
      api.pushAgent('agent.delta', { chatId: 'c1', messageId: 'new', text: 'streamed' });
      expect(stores.agent.getState().byChat['c1']).toMatchObject({ running: true });
      expect(stores.agent.getState().byChat['c1']?.messages.map((m) => m.content)).toEqual(['from before', 'streamed']);
      await stores.chats.getState().remove('c1');
      await waitFor(() => expect(stores.agent.getState().byChat['c1']).toBeUndefined());
    } finally {
      stop();
    }
  });

  it("loads a selected chat when the page says (after the switch's first frame), once, for the chat then open", async () => {
    const api = createFakeApi({ chats: [chatView({ id: 'c1', title: 'One', createdAt: 1 }), chatView({ id: 'c2', title: 'Two', createdAt: 2 }), chatView({ id: 'c3', title: 'Three', createdAt: 3 })] });
    const deferred: Array<() => void> = [];
    const stores = createStores(api, api.connection);
    const stop = startSync(stores, api, api.connection, { autoOpenTerminal: false, refetchDelayMs: 0, deferSelectionLoad: (run) => deferred.push(run) });
    try {
      await waitFor(() => expect(stores.chats.getState().selectedId).toBe('c3'));
      deferred.splice(0).forEach((run) => run());
      await waitFor(() => expect(stores.agent.getState().byChat['c3']?.loaded).toBe(true));
      const before = api.callsTo('agent.history').length;
      // Two switches within one frame: nothing is fetched in the switch itself…
      stores.chats.getState().select('c1');
      stores.chats.getState().select('c2');
      expect(api.callsTo('agent.history')).toHaveLength(before);
      expect(deferred).toHaveLength(1);
      // …and after it, the chat on screen is loaded, once.
      deferred.splice(0).forEach((run) => run());
      await waitFor(() => expect(stores.agent.getState().byChat['c2']?.loaded).toBe(true));
      expect(api.callsTo('agent.history').slice(before)).toEqual([{ chatId: 'c2' }]);
      expect(stores.agent.getState().byChat['c1']).toBeUndefined();
    } finally {
      stop();
    }
  });
});
