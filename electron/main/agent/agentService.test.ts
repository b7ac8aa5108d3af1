/**
 * The agent's turn loop on the in-memory engine and a real local OpenAI-compatible server:
 * tool calls run in the chat's sandbox, approvals gate them, provider errors reach the user.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { history, runTurn, toolCalls } from '../../../test/support/agentDriver.js';
import { fakeCore, type FakeCore } from '../../../test/support/fakeCore.js';
import { byTurn, startOpenAiTestServer, type OpenAiTestServer } from '../../../test/support/openaiTestServer.js';

const KEY = 'sk-unit-test-key';
let server: OpenAiTestServer;
let f: FakeCore;

beforeAll(async () => {
  server = await startOpenAiTestServer({ apiKey: KEY });
});
afterAll(async () => server.close());
afterEach(async () => f?.dispose());

async function agentChat(approval: 'auto' | 'ask', key = KEY) {
  const chat = await f.chat({ agent: { baseUrl: server.baseUrl, model: 'test-model', approval } });
  await f.core.agent.setKey({ profile: chat.profile, apiKey: key });
  return chat;
}

describe('AgentService on the fake engine', () => {
  it('runs a terminal tool call in the chat’s sandbox and answers with its result', async () => {
    f = fakeCore();
    const chat = await agentChat('auto');
    server.setResponder(byTurn({ toolCalls: [{ name: 'terminal', arguments: { command: 'echo from-the-sandbox' } }] }, { text: ['Done', '.'] }));
    expect((await runTurn(f.core, chat.id, 'run it')).error).toBeNull();
    const messages = await history(f.core, chat.id);
    expect(toolCalls(messages).map((c) => [c.name, c.status])).toEqual([['terminal', 'done']]);
    expect(JSON.stringify(toolCalls(messages)[0])).toContain('from-the-sandbox');
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Done.' });
    expect(f.engine.calls.filter((c) => c === 'createContainer')).toHaveLength(1);
  });

  it('runs nothing when the user denies the command', async () => {
    f = fakeCore();
    const chat = await agentChat('ask');
    server.setResponder(byTurn({ toolCalls: [{ name: 'terminal', arguments: { command: 'echo never' } }] }, { text: 'Understood.' }));
    const end = await runTurn(f.core, chat.id, 'try', (a) => void f.core.agent.approve({ chatId: chat.id, approvalId: a.approvalId, decision: 'deny' }));
    expect(end.error).toBeNull();
    expect(toolCalls(await history(f.core, chat.id)).map((c) => c.status)).toEqual(['denied']);
    expect(f.engine.containers.size).toBe(0);
  });

  it('says clearly when the provider refuses the key, and keeps the user’s message', async () => {
    f = fakeCore();
    const chat = await agentChat('auto', 'sk-wrong-key');
    const end = await runTurn(f.core, chat.id, 'hello');
    expect(end.error?.message).toMatch(/key/i);
    expect((await history(f.core, chat.id)).map((m) => [m.role, m.content])).toContainEqual(['user', 'hello']);
  });

  it('times a command from when it was allowed, not from when it began to wait, and says whose command a subagent’s is', async () => {
    f = fakeCore();
    const chat = await agentChat('ask');
    // The subagent's own conversation (its first message is the task) gets its own script.
    server.setResponder((req) => {
      const turn = req.body.messages.filter((m) => m.role === 'assistant').length;
      const sub = req.body.messages.some((m) => m.role === 'user' && m.content === 'run the tests');
      if (sub) return turn === 0 ? { toolCalls: [{ name: 'terminal', arguments: { command: 'echo tested' } }] } : { text: 'Tests ran.' };
      return turn === 0 ? { toolCalls: [{ name: 'delegate_task', arguments: { task: 'run the tests' } }] } : { text: 'Done.' };
    });
    const asked: Array<{ taskId: string | null }> = [];
    const end = await runTurn(f.core, chat.id, 'test it', (a) => {
      asked.push(a);
      // The user looks away for a minute before allowing it.
      f.clock.advance(60_000);
      void f.core.agent.approve({ chatId: chat.id, approvalId: a.approvalId, decision: 'once' });
    });
    expect(end.error).toBeNull();
    expect(asked).toHaveLength(1);
    expect(asked[0]?.taskId).not.toBeNull();
    const run = toolCalls(await history(f.core, chat.id)).find((c) => c.name === 'terminal');
    expect(run?.status).toBe('done');
    expect(run?.durationMs).toBeLessThan(60_000);
  });
});
