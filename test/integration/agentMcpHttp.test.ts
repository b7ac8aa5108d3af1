/**
 * HTTP (Streamable HTTP) MCP servers, against the real engine: the connection is opened from
 * inside the chat's sandbox, so the profile's network decides. A small server in a test container
 * (mcp.test) on a pretend internet of the test's: reached through the egress proxy under an
 * allowlist naming it (and refused, in the proxy's words, under one that does not); under 'open'
 * a server in the sandbox itself at 127.0.0.1 (its own loopback, not this computer's, which
 * listens on the same port); refused with a sentence under 'none'.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { history, runTurn, toolCalls } from '../support/agentDriver.js';
import { Harness } from '../support/harness.js';
import { MCP_HTTP_SERVER_PY, startMcpHttpServer, type McpHttpServer } from '../support/mcpHttpServer.js';
import { byTurn, startOpenAiTestServer, type OpenAiTestServer, type RecordedRequest } from '../support/openaiTestServer.js';
import { NET_IMAGE, startPretendInternet, type PretendInternet } from '../support/pretendInternet.js';
import { waitFor } from '../support/waitFor.js';

const KEY = 'sk-test-0123456789abcdef';
const h = new Harness();
let inet: PretendInternet;
let mcp: McpHttpServer;
let provider: OpenAiTestServer;
let core: BerthCore;

beforeAll(async () => {
  inet = await startPretendInternet();
  mcp = await startMcpHttpServer(inet.network);
  provider = await startOpenAiTestServer({ apiKey: KEY });
  core = h.core({ egress: { outsideNetwork: inet.network } });
}, 180_000);

afterAll(async () => {
  // Off the profiles' networks first, so they can be removed.
  await mcp?.stop();
  await h.cleanup();
  await inet?.stop();
  await provider?.close();
}, 180_000);

async function chatWith(egress: 'none' | 'open' | 'allowlist', egressAllow: string[] = [], url = 'http://mcp.test/mcp'): Promise<{ chatId: string; profile: string }> {
  const p = await h.profile(core, {
    image: NET_IMAGE, egress, egressAllow,
    agent: { baseUrl: provider.baseUrl, model: 'test-model', approval: 'auto', mcpServers: [{ name: 'web', url }] },
  });
  await core.agent.setKey({ profile: p.name, apiKey: KEY });
  return { chatId: (await core.chats.create({ profile: p.name, title: `mcp over http, ${egress}` })).id, profile: p.name };
}

/** One turn in which the model calls the server's echo tool; what the tool answered, and the tools it was offered. */
async function callEcho(chatId: string, text: string): Promise<{ result: string; offered: string[] }> {
  provider.requests.length = 0;
  provider.setResponder(byTurn({ toolCalls: [{ name: 'mcp__web__echo', arguments: { text } }] }, { text: 'done' }));
  const end = await runTurn(core, chatId, 'use the web tool', undefined, 120_000);
  expect(end.error).toBeNull();
  const offered = ((provider.requests[0] as RecordedRequest).body.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);
  const last = (provider.requests.at(-1) as RecordedRequest).body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
  return { result: last.at(-1) as string, offered };
}

describe('HTTP MCP servers, reached through the sandbox’s network', () => {
  it('under an allowlist naming the server: lists and calls its tool through the egress proxy (in the Network log)', async () => {
    const { chatId } = await chatWith('allowlist', ['mcp.test']);
    const { result, offered } = await callEcho(chatId, 'via proxy');
    expect(offered).toContain('mcp__web__echo');
    expect(result).toMatch(/^echo:via proxy host=mcp\.test from=198\.18\./);
    // The proxy carried it: the chat's Network log has the allowed requests to mcp.test.
    await waitFor(async () => (await core.network.log({ chatId })).requests.some((r) => r.host === 'mcp.test' && r.allowed && r.method === 'POST'), 'the proxy to log the MCP request');
    expect(toolCalls(await history(core, chatId)).map((c) => [c.name, c.status])).toEqual([['mcp__web__echo', 'done']]);
  });

  it('under an allowlist without it: the call fails with the proxy’s refusal, and the tool is never offered', async () => {
    const { chatId } = await chatWith('allowlist', ['allowed.test']);
    const { result, offered } = await callEcho(chatId, 'blocked');
    expect(offered).not.toContain('mcp__web__echo');
    expect(result).toMatch(/^Error: The MCP server web could not start: Berth's egress proxy refused mcp\.test:80: it is not on the allowlist/);
  });

  it("under 'open': lists and calls its tool over a connection from inside the sandbox, where 127.0.0.1 is the sandbox, never this computer", async () => {
    // This computer listens on a port of its 127.0.0.1 (no MCP server: a connection from main
    // would reach it and fail); the sandbox's own server listens on the same port of its own.
    const decoy = http.createServer((_req, res) => res.end('this computer\n'));
    await new Promise<void>((resolve) => decoy.listen(0, '127.0.0.1', resolve));
    const port = (decoy.address() as AddressInfo).port;
    try {
      const { chatId } = await chatWith('open', [], `http://127.0.0.1:${port}/mcp`);
      const script = Buffer.from(MCP_HTTP_SERVER_PY).toString('base64');
      await core.sandbox.exec({ chatId, command: `echo ${script} | base64 -d > /tmp/mcp.py && (setsid python3 /tmp/mcp.py ${port} >/dev/null 2>&1 &)` });
      await waitFor(async () => (await core.sandbox.exec({ chatId, command: `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${port}), 1)" && echo up` })).output.includes('up'), 'the sandbox’s MCP server to listen');
      const { result, offered } = await callEcho(chatId, 'direct');
      expect(offered).toContain('mcp__web__echo');
      expect(result).toBe(`echo:direct host=127.0.0.1:${port} from=127.0.0.1`);
    } finally {
      decoy.close();
    }
  });

  it("under 'none': refused with a sentence saying why and what to change, before any connection", async () => {
    const { chatId } = await chatWith('none');
    const { result, offered } = await callEcho(chatId, 'nothing');
    expect(offered).not.toContain('mcp__web__echo');
    expect(result).toBe(
      'Error: The MCP server web could not start: it is reached over HTTP, but this profile\'s network is "none": nothing leaves its sandboxes, so Berth cannot reach mcp.test. Set the profile\'s Network to "allowlist" with mcp.test on the list (or "open"), or run the server in the sandbox with a command.',
    );
  });
});
