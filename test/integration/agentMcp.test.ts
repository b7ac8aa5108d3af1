/**
 * MCP servers in the chat's sandbox, against the real engine: a small stdio server speaking the
 * real protocol (a python3 script in berth-test:bookworm, put in the attached folder) offers a
 * tool; the agent calls it through an approval; the server runs as the sandbox user and cannot
 * see this computer's files; a server that never answers fails the call within its timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/contract.js';
import type { BerthCore } from '../../electron/main/core.js';
import { history, runTurn, toolCalls } from '../support/agentDriver.js';
import { Harness, SANDBOX_UID } from '../support/harness.js';
import { byTurn, startOpenAiTestServer, type OpenAiTestServer, type RecordedRequest } from '../support/openaiTestServer.js';

const KEY = 'sk-test-0123456789abcdef';
const h = new Harness();
let server: OpenAiTestServer;
let core: BerthCore;

/**
 * A minimal MCP server: newline-delimited JSON-RPC on stdin/stdout, one tool, read_path. The
 * image's python3 is Debian's python3-minimal, which has no json module: a few lines stand in.
 */
const SERVER_PY = String.raw`
import ast, os, re, sys
mode = sys.argv[1] if len(sys.argv) > 1 else 'ok'
def dumps(v):
    if v is None: return 'null'
    if v is True: return 'true'
    if v is False: return 'false'
    if isinstance(v, int): return str(v)
    if isinstance(v, str): return '"' + v.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n') + '"'
    if isinstance(v, list): return '[' + ','.join(dumps(x) for x in v) + ']'
    return '{' + ','.join(dumps(k) + ':' + dumps(x) for k, x in v.items()) + '}'
def loads(line):
    return ast.literal_eval(re.sub(r'\btrue\b', 'True', re.sub(r'\bfalse\b', 'False', re.sub(r'\bnull\b', 'None', line))))
def send(m):
    sys.stdout.write(dumps(m) + '\n')
    sys.stdout.flush()
for line in sys.stdin:
    m = loads(line)
    mid, method = m.get('id'), m.get('method')
    if method == 'initialize':
        send({'jsonrpc': '2.0', 'id': mid, 'result': {'protocolVersion': m['params']['protocolVersion'], 'capabilities': {'tools': {}}, 'serverInfo': {'name': 'files', 'version': '1'}}})
    elif method == 'tools/list':
        send({'jsonrpc': '2.0', 'id': mid, 'result': {'tools': [{'name': 'read_path', 'description': 'Reads a file by its path.', 'inputSchema': {'type': 'object', 'properties': {'path': {'type': 'string'}}, 'required': ['path']}}]}})
    elif method == 'tools/call':
        if mode == 'hang':
            continue
        path = m['params']['arguments']['path']
        try:
            text, err = open(path).read(), False
        except Exception as e:
            text, err = 'cannot read %s: %s' % (path, type(e).__name__), True
        send({'jsonrpc': '2.0', 'id': mid, 'result': {'content': [{'type': 'text', 'text': 'uid=%d %s' % (os.getuid(), text)}], 'isError': err}})
    elif mid is not None:
        send({'jsonrpc': '2.0', 'id': mid, 'error': {'code': -32601, 'message': 'no such method'}})
`;

beforeAll(async () => {
  server = await startOpenAiTestServer({ apiKey: KEY });
  core = h.core();
});
afterAll(async () => {
  await h.cleanup();
  await server.close();
});

describe('MCP servers in the sandbox', () => {
  it('offers a server’s tools, asks before a call, runs it as the sandbox user without this computer’s files, and fails a hung server’s call at its timeout', async () => {
    const secret = `${h.workspace('host-only', { 'secret.txt': 'HOST-SECRET-5521' })}/secret.txt`;
    const p = await h.profile(core, {
      image: 'berth-test:bookworm',
      agent: {
        baseUrl: server.baseUrl, model: 'test-model', approval: 'ask',
        mcpServers: [
          { name: 'files', command: ['python3', '/workspace/tools/server.py'] },
          { name: 'stuck', command: ['python3', '/workspace/tools/server.py', 'hang'], approval: 'auto', timeoutSeconds: 2 },
        ],
      },
    });
    await core.agent.setKey({ profile: p.name, apiKey: KEY });
    const chat = await core.chats.create({ profile: p.name, title: 'mcp' });
    const folder = h.workspace('project', { 'tools/server.py': SERVER_PY, 'notes.txt': 'NOTES-IN-THE-FOLDER' });
    await core.workspace.attach({ chatId: chat.id, path: folder, mode: 'readwrite' });

    server.setResponder(byTurn(
      { toolCalls: [{ name: 'mcp__files__read_path', arguments: { path: '/workspace/notes.txt' } }] },
      { toolCalls: [{ name: 'mcp__files__read_path', arguments: { path: secret } }] },
      { toolCalls: [{ name: 'mcp__stuck__read_path', arguments: { path: '/workspace/notes.txt' } }] },
      { text: 'done' },
    ));
    const asked: ApprovalRequest[] = [];
    const end = await runTurn(core, chat.id, 'read the notes', (a) => {
      asked.push(a);
      void core.agent.approve({ chatId: chat.id, approvalId: a.approvalId, decision: 'once' });
    }, 120_000);
    expect(end.error).toBeNull();

    const offered = ((server.requests[0] as RecordedRequest).body.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);
    expect(offered).toEqual(expect.arrayContaining(['mcp__files__read_path', 'mcp__stuck__read_path']));
    // The two calls to the server whose approval follows the profile's ("ask"); not the "auto" one.
    expect(asked.map((a) => a.command)).toEqual([`files: read_path {"path":"/workspace/notes.txt"}`, `files: read_path {"path":"${secret}"}`]);
    const results = (server.requests.at(-1) as RecordedRequest).body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(results[0]).toBe(`uid=${SANDBOX_UID} NOTES-IN-THE-FOLDER`);
    expect(results[1]).toBe(`Error: uid=${SANDBOX_UID} cannot read ${secret}: FileNotFoundError`);
    expect(results[2]).toBe('Error: The MCP server stuck did not answer read_path within 2 s; Berth stopped it (it starts again at the next call).');
    const cards = toolCalls(await history(core, chat.id));
    expect(cards.map((c) => [c.name, c.status])).toEqual([['mcp__files__read_path', 'done'], ['mcp__files__read_path', 'failed'], ['mcp__stuck__read_path', 'failed']]);
  });
});
