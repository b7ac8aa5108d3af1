/** Chat titles and order as the list shows them: numbers never reused, a title from the first message, activity first. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runTurn } from '../../../test/support/agentDriver.js';
import { fakeCore, type FakeCore } from '../../../test/support/fakeCore.js';
import { byTurn, startOpenAiTestServer, type OpenAiTestServer } from '../../../test/support/openaiTestServer.js';

const KEY = 'sk-unit-titles';
let server: OpenAiTestServer;
let f: FakeCore;

beforeAll(async () => {
  server = await startOpenAiTestServer({ apiKey: KEY });
});
afterAll(async () => server.close());
afterEach(async () => f?.dispose());

const titles = async () => (await f.core.chats.list({})).chats.map((c) => c.title);

describe('chat titles and order', () => {
  it('numbers new chats "Chat N" and never gives a deleted chat’s number again', async () => {
    f = fakeCore();
    await f.core.profiles.create({ name: 'p' });
    await f.core.chats.create({ profile: 'p' });
    const second = await f.core.chats.create({ profile: 'p' });
    expect(second.title).toBe('Chat 2');
    await f.core.chats.delete({ chatId: second.id });
    expect((await f.core.chats.create({ profile: 'p' })).title).toBe('Chat 3');
    expect(await titles()).toEqual(expect.arrayContaining(['Chat 1', 'Chat 3']));
  });

  it("numbers chats per profile, as the list groups them: each profile's first chat is Chat 1", async () => {
    f = fakeCore();
    await f.core.profiles.create({ name: 'p' });
    await f.core.profiles.create({ name: 'q' });
    expect((await f.core.chats.create({ profile: 'p' })).title).toBe('Chat 1');
    expect((await f.core.chats.create({ profile: 'p' })).title).toBe('Chat 2');
    expect((await f.core.chats.create({ profile: 'q' })).title).toBe('Chat 1');
    expect((await f.core.chats.create({ profile: 'p' })).title).toBe('Chat 3');
  });

  it('titles a chat from its first message unless the user named it, and lists the chat written in last first', async () => {
    f = fakeCore();
    server.setResponder(byTurn({ text: 'Sure.' }, { text: 'Again.' }));
    const a = await f.chat({ agent: { baseUrl: server.baseUrl, model: 'm', approval: 'auto' } });
    await f.core.agent.setKey({ profile: a.profile, apiKey: KEY });
    const named = await f.core.chats.create({ profile: a.profile, title: 'My notes' });
    f.clock.advance(1000);

    await runTurn(f.core, a.id, '  Fix the failing build\nDetails follow');
    await runTurn(f.core, named.id, 'Summarise the notes');
    const list = (await f.core.chats.list({ profile: a.profile })).chats;
    expect(list.find((c) => c.id === a.id)?.title).toBe('Fix the failing build');
    expect(list.find((c) => c.id === named.id)?.title).toBe('My notes');
    // A second message does not rename it, and moves it to the top.
    f.clock.advance(1000);
    await runTurn(f.core, a.id, 'And the tests');
    const after = (await f.core.chats.list({ profile: a.profile })).chats;
    expect(after.find((c) => c.id === a.id)?.title).toBe('Fix the failing build');
    const byActivity = [...after].sort((x, y) => y.lastActiveAt - x.lastActiveAt).map((c) => c.id);
    expect(byActivity[0]).toBe(a.id);
    expect(after.find((c) => c.id === a.id)!.lastActiveAt).toBeGreaterThan(after.find((c) => c.id === a.id)!.createdAt);
    // One chat's own view (a rename answers with it) says the same as the list.
    const renamed = await f.core.chats.rename({ chatId: a.id, title: 'Build fix' });
    expect(renamed.lastActiveAt).toBe(after.find((c) => c.id === a.id)!.lastActiveAt);
  });
});
