/**
 * Profiles sharing a provider: one URL and one key serve every profile that shares them, and a
 * new key reaches them all. On the in-memory engine with a real local OpenAI-compatible server.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runTurn } from '../../../test/support/agentDriver.js';
import { fakeCore, type FakeCore } from '../../../test/support/fakeCore.js';
import { startOpenAiTestServer, type OpenAiTestServer } from '../../../test/support/openaiTestServer.js';

let server: OpenAiTestServer;
let f: FakeCore;

beforeAll(async () => {
  server = await startOpenAiTestServer({ apiKey: 'sk-first' });
});
afterAll(async () => server.close());
afterEach(async () => f?.dispose());

const keysSent = () => server.requests.map((r) => String(r.headers.authorization));

describe('profiles sharing a provider', () => {
  it('sends the shared profile’s URL and key for both, and a new key reaches both', async () => {
    f = fakeCore();
    server.setResponder(() => ({ text: 'ok' }));
    const first = await f.chat({ agent: { baseUrl: server.baseUrl, model: 'test-model', approval: 'auto' } });
    await f.core.agent.setKey({ profile: first.profile, apiKey: 'sk-first' });
    const second = await f.chat({ agent: { baseUrl: null, model: null, approval: 'auto', providerFrom: first.profile } });
    server.requests.length = 0;
    expect((await runTurn(f.core, first.id, 'one')).error).toBeNull();
    expect((await runTurn(f.core, second.id, 'two')).error).toBeNull();
    expect(keysSent()).toEqual(['Bearer sk-first', 'Bearer sk-first']);

    // The key is set once, where the provider is: the sharing profile follows.
    await expect(f.core.agent.setKey({ profile: second.profile, apiKey: 'sk-elsewhere' })).rejects.toThrow(/uses the provider of/);
    await f.core.agent.setKey({ profile: first.profile, apiKey: 'sk-second' });
    server.requests.length = 0;
    const end = await runTurn(f.core, second.id, 'three');
    expect(keysSent()).toEqual(['Bearer sk-second']);
    expect(end.error?.message).toMatch(/key/i); // the server still wants the first key
  });

  it('keeps the agent settings a save leaves out (the profile form sends only the fields it shows)', async () => {
    f = fakeCore();
    const mcpServers = [{ name: 'tools', command: ['python3', 'server.py'] }];
    const chat = await f.chat({ agent: { baseUrl: server.baseUrl, model: 'test-model', approval: 'auto', contextWindow: 8192, mcpServers } });
    await f.core.profiles.update({ name: chat.profile, settings: { agent: { baseUrl: server.baseUrl, model: 'other', approval: 'ask' } } });
    const saved = (await f.core.profiles.list({})).profiles.find((p) => p.name === chat.profile)!.settings.agent;
    expect(saved).toMatchObject({ model: 'other', approval: 'ask', contextWindow: 8192, mcpServers });
  });

  it('refuses a chain, itself and a missing profile, and deleting a profile others share', async () => {
    f = fakeCore();
    const first = await f.chat({ agent: { baseUrl: server.baseUrl, model: 'test-model', approval: 'auto' } });
    const second = await f.chat({ agent: { baseUrl: null, model: null, approval: 'auto', providerFrom: first.profile } });
    await expect(f.chat({ agent: { baseUrl: null, model: null, approval: 'auto', providerFrom: second.profile } })).rejects.toThrow(/itself uses the provider/);
    await expect(f.chat({ agent: { baseUrl: null, model: null, approval: 'auto', providerFrom: 'nobody' } })).rejects.toThrow(/no profile "nobody"/);
    await expect(
      f.core.profiles.update({ name: first.profile, settings: { agent: { baseUrl: server.baseUrl, model: 'm', approval: 'auto', providerFrom: first.profile } } }),
    ).rejects.toThrow(/its own provider/);
    await expect(f.core.profiles.delete({ name: first.profile })).rejects.toThrow(new RegExp(`"${second.profile}" uses the provider`));
  });
});
