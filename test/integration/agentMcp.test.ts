/**
 * MCP servers in the chat's sandbox, against the real engine: a small stdio server speaking the
 * real protocol (a python3 script in berth-test:bookworm, put in the attached folder) offers a
 * tool; the agent calls it through an approval; the server runs as the sandbox user and cannot
 * see this computer's files; a server that never answers fails the call within its timeout.
 */
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/contract.js';
import { agentSuite, history, runTurn, toolCalls } from '../support/agentDriver.js';
import { SANDBOX_UID } from '../support/harness.js';
import { SERVER_PY } from '../support/mcpServer.js';
import { byTurn, type RecordedRequest } from '../support/openaiTestServer.js';

const KEY = 'sk-test-0123456789abcdef';
const suite = agentSuite(KEY);
const { h } = suite;

describe('MCP servers in the sandbox', () => {
  it('offers a server’s tools, asks before a call, runs it as the sandbox user without this computer’s files, and fails a hung server’s call at its timeout', async () => {
    const secret = `${h.workspace('host-only', { 'secret.txt': 'HOST-SECRET-5521' })}/secret.txt`;
    const p = await h.profile(suite.core, {
      image: 'berth-test:bookworm',
      agent: {
        baseUrl: suite.server.baseUrl, model: 'test-model', approval: 'ask',
        mcpServers: [
          { name: 'files', command: ['python3', '/workspace/tools/suite.server.py'] },
          { name: 'stuck', command: ['python3', '/workspace/tools/suite.server.py', 'hang'], approval: 'auto', timeoutSeconds: 2 },
        ],
      },
    });
    await suite.core.agent.setKey({ profile: p.name, apiKey: KEY });
    const chat = await suite.core.chats.create({ profile: p.name, title: 'mcp' });
    const folder = h.workspace('project', { 'tools/suite.server.py': SERVER_PY, 'notes.txt': 'NOTES-IN-THE-FOLDER' });
    await suite.core.workspace.attach({ chatId: chat.id, path: folder, mode: 'readwrite' });

    suite.server.setResponder(byTurn(
      { toolCalls: [{ name: 'mcp__files__read_path', arguments: { path: '/workspace/notes.txt' } }] },
      { toolCalls: [{ name: 'mcp__files__read_path', arguments: { path: secret } }] },
      { toolCalls: [{ name: 'mcp__stuck__read_path', arguments: { path: '/workspace/notes.txt' } }] },
      { text: 'done' },
    ));
    const asked: ApprovalRequest[] = [];
    const end = await runTurn(suite.core, chat.id, 'read the notes', (a) => {
      asked.push(a);
      void suite.core.agent.approve({ chatId: chat.id, approvalId: a.approvalId, decision: 'once' });
    }, 120_000);
    expect(end.error).toBeNull();

    const offered = ((suite.server.requests[0] as RecordedRequest).body.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);
    expect(offered).toEqual(expect.arrayContaining(['mcp__files__read_path', 'mcp__stuck__read_path']));
    // The two calls to the server whose approval follows the profile's ("ask"); not the "auto" one.
    expect(asked.map((a) => a.command)).toEqual([`files: read_path {"path":"/workspace/notes.txt"}`, `files: read_path {"path":"${secret}"}`]);
    const results = (suite.server.requests.at(-1) as RecordedRequest).body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(results[0]).toBe(`uid=${SANDBOX_UID} NOTES-IN-THE-FOLDER`);
    expect(results[1]).toBe(`Error: uid=${SANDBOX_UID} cannot read ${secret}: FileNotFoundError`);
    expect(results[2]).toBe('Error: The MCP server stuck did not answer read_path within 2 s; Berth stopped it (it starts again at the next call).');
    const cards = toolCalls(await history(suite.core, chat.id));
    expect(cards.map((c) => [c.name, c.status])).toEqual([['mcp__files__read_path', 'done'], ['mcp__files__read_path', 'failed'], ['mcp__stuck__read_path', 'failed']]);
  });
});
