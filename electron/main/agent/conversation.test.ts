import { describe, expect, it } from 'vitest';
import type { AgentMessage, AgentToolCall } from '../../../shared/contract.js';
import type { StoredAgentMessage } from '../store/agentRepositories.js';
import { providerMessages, systemPrompt } from './conversation.js';

const call = (id: string, name = 'terminal'): AgentToolCall => ({
  id, name, arguments: '{"command":"ls"}', status: 'done', command: 'ls', cwd: '/workspace', exitCode: 0, durationMs: 5, output: 'a', subtaskId: null,
});
const msg = (over: Partial<AgentMessage>): AgentMessage => ({
  id: 'm', chatId: 'c', taskId: null, parentCallId: null, role: 'user', content: '', toolCalls: [], done: true, createdAt: 0, ...over,
});

describe('providerMessages', () => {
  it("rebuilds the task's own conversation with a result for every tool call, and skips errors and other tasks", () => {
    const stored: StoredAgentMessage[] = [
      { message: msg({ id: '1', role: 'user', content: 'list files' }), results: {} },
      { message: msg({ id: '2', role: 'assistant', content: '', toolCalls: [call('t1'), call('t2')] }), results: { t1: 'exit code 0\na' } },
      { message: msg({ id: '3', role: 'user', content: 'sub task', taskId: 'sub-1', parentCallId: 't9' }), results: {} },
      { message: msg({ id: '4', role: 'error', content: 'The provider refused the key.' }), results: {} },
      { message: msg({ id: '5', role: 'assistant', content: 'Done.' }), results: {} },
    ];
    const out = providerMessages('SYS', stored, null);
    expect(out.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(out[2]).toMatchObject({ content: null, tool_calls: [{ id: 't1' }, { id: 't2' }] });
    expect(out[3]).toMatchObject({ tool_call_id: 't1', content: 'exit code 0\na' });
    expect(out[4]?.content).toMatch(/stopped/);
    expect(providerMessages('SYS', stored, 'sub-1').map((m) => m.content)).toEqual(['SYS', 'sub task']);
  });

  it('cuts old tool results short and keeps the newest whole', () => {
    const calls = Array.from({ length: 30 }, (_, i) => call(`t${i}`));
    const big = 'x'.repeat(5_000);
    const results = Object.fromEntries(calls.map((c) => [c.id, big]));
    const out = providerMessages('S', [{ message: msg({ role: 'assistant', toolCalls: calls }), results }], null).filter((m) => m.role === 'tool');
    expect(out).toHaveLength(30);
    expect(out.filter((m) => String(m.content).length === 5_000)).toHaveLength(24);
    expect(String(out[0]?.content)).toMatch(/^x{1000}\n\[… cut/);
  });

  it('tells the model where the folders are and which are read-only', () => {
    expect(systemPrompt([{ containerPath: '/workspace/a', readOnly: true }], false)).toContain('/workspace/a (read-only)');
    expect(systemPrompt([], true)).toMatch(/subagent/);
  });
});
