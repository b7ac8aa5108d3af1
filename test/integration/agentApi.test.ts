/**
 * The browser host's OpenAI-compatible API (/v1/chat/completions), over real HTTP, in front of
 * a real core and engine, with a scripted provider behind it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { createHostServer, type HostServer } from '../../electron/main/host/server.js';
import { rawApiChatId } from '../../electron/main/policy/apiChatId.js';
import { nextEvent } from '../support/events.js';
import { Harness } from '../support/harness.js';
import { startOpenAiTestServer, type OpenAiTestServer } from '../support/openaiTestServer.js';

const h = new Harness();
let provider: OpenAiTestServer;
let core: BerthCore;
let host: HostServer;
let base: string;
const profiles: string[] = [];

const conversation = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'What is in my project?' },
];

async function post(body: object, headers: Record<string, string> = {}, token = host.token): Promise<Response> {
  return fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify(body),
  });
}

beforeAll(async () => {
  provider = await startOpenAiTestServer();
  provider.setResponder((req) => ({ text: `answer ${req.body.messages.filter((m) => m.role === 'user').length}` }));
  core = h.core();
  const agent = { baseUrl: provider.baseUrl, model: 'm', approval: 'auto' as const };
  await core.profiles.update({ name: 'default', settings: { agent, image: 'berth-test:busybox' } });
  for (let i = 0; i < 2; i++) profiles.push((await h.profile(core, { agent })).name);
  const staticDir = path.join(h.root, 'static');
  fs.mkdirSync(staticDir, { recursive: true });
  host = await createHostServer({
    core, port: 0, staticDir, api: { apiChats: core.apiChats, onEvent: (l) => core.onEvent(l), profileNames: () => core.profileNames() },
  });
  base = `http://127.0.0.1:${host.port}`;
});
afterAll(async () => {
  await host?.close();
  await h.cleanup();
  await provider?.close();
});

describe('the OpenAI-compatible API', () => {
  it('refuses requests without the token', async () => {
    expect((await post({ messages: conversation }, {}, 'wrong')).status).toBe(401);
    const noAuth = await fetch(`${base}/v1/models`);
    expect(noAuth.status).toBe(401);
    // An API client shows OpenAI's error shape, which says where its key comes from.
    for (const res of [noAuth, await post({ messages: conversation }, {}, 'wrong'), await fetch(`${base}/t/wrong/v1/models`)]) {
      expect(res.headers.get('content-type')).toBe('application/json');
      const { error } = (await res.json()) as { error: { message: string; code: string } };
      expect(error.code).toBe('unauthorized');
      expect(error.message).toMatch(/API key.*Authorization: Bearer.*\?token=/s);
    }
  });

  it('header-less requests with the same conversation in two named profiles land in two chats', async () => {
    const [a, b] = await Promise.all(profiles.map((p) => post({ model: `berth/${p}`, messages: conversation })));
    expect([a?.status, b?.status]).toEqual([200, 200]);
    const idA = decodeURIComponent(a?.headers.get('x-berth-chat-id') ?? '');
    const idB = decodeURIComponent(b?.headers.get('x-berth-chat-id') ?? '');
    expect(idA).not.toBe(idB);
    const { chats } = await core.chats.list({});
    expect(chats.find((c) => c.id === idA)?.profile).toBe(profiles[0]);
    expect(chats.find((c) => c.id === idB)?.profile).toBe(profiles[1]);
    expect(((await a?.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe('answer 1');
  });

  it("keeps the default profile's derived id byte-identical, and continues that chat on the next turn", async () => {
    const first = await post({ model: 'berth', messages: conversation });
    expect(first.status).toBe(200);
    const id = decodeURIComponent(first.headers.get('x-berth-chat-id') ?? '');
    expect(id).toBe(rawApiChatId(null, conversation));
    const next = await post({ messages: [...conversation, { role: 'assistant', content: 'answer 1' }, { role: 'user', content: 'And now?' }], stream: true });
    expect(decodeURIComponent(next.headers.get('x-berth-chat-id') ?? '')).toBe(id);
    expect(next.headers.get('content-type')).toMatch(/text\/event-stream/);
    const sse = await next.text();
    const events: string[] = [];
    createParser({ onEvent: (e) => events.push(e.data) }).feed(sse);
    const text = events
      .filter((data) => data !== '[DONE]')
      .map((data) => (JSON.parse(data) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '')
      .join('');
    // Berth keeps the chat's own history: the provider saw both user turns of this chat.
    expect(text).toBe('answer 2');
    expect(sse.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect((await core.agent.history({ chatId: id })).messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['What is in my project?', 'And now?']);
  });

  it('a session header names the chat, namespaced for a named profile only', async () => {
    const inDefault = await post({ messages: conversation }, { 'X-Session-Id': 'session-42' });
    expect(decodeURIComponent(inDefault.headers.get('x-berth-chat-id') ?? '')).toBe('session-42');
    const named = await post({ messages: conversation }, { 'X-Session-Id': 'session-42', 'X-Berth-Profile': profiles[0] as string });
    expect(decodeURIComponent(named.headers.get('x-berth-chat-id') ?? '')).not.toBe('session-42');
  });

  it('a client that hangs up stops the turn', async () => {
    provider.setResponder(() => ({ hang: true }));
    const res = await post({ messages: [{ role: 'user', content: 'this will hang' }], stream: true }, { 'X-Session-Id': 'hang-up' });
    const chatId = decodeURIComponent(res.headers.get('x-berth-chat-id') ?? '');
    expect((await core.agent.history({ chatId })).running).toBe(true);
    const ended = nextEvent(core, 'agent.state', (s) => s.chatId === chatId && !s.running);
    await res.body?.cancel();
    await ended;
    expect((await core.agent.history({ chatId })).running).toBe(false);
    provider.setResponder((req) => ({ text: `answer ${req.body.messages.filter((m) => m.role === 'user').length}` }));
  });

  it('answers in OpenAI’s error shape', async () => {
    const bad = await post({ messages: [{ role: 'assistant', content: 'no user' }] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/user message/);
    const unknown = await post({ model: 'berth/no-such-profile', messages: conversation });
    expect(unknown.status).toBe(404);
    const models = (await (await fetch(`${base}/v1/models`, { headers: { Authorization: `Bearer ${host.token}` } })).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(['berth', ...profiles.map((p) => `berth/${p}`)]);
  });
});
