/**
 * What the agent is told, against the real engine, driven by the scripted model: the
 * repository's AGENTS.md files (read in the sandbox as its user, nested ones for their own
 * subtree, off per chat), and a conversation pushed past a small context window, which goes on
 * with a summary of its older turns and never parts a tool call from its result.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../electron/main/agent/provider/openaiClient.js';
import { SUMMARY_HEADING } from '../../electron/main/agent/conversation.js';
import { agentSuite, history, runTurn } from '../support/agentDriver.js';
import { byTurn, type RecordedRequest, type Step } from '../support/openaiTestServer.js';
import { NO_OTHER_PROCESS, splitPortsEpilogue, withPortsEpilogue } from '../../electron/main/agent/common/portsEpilogue.js';
import { waitFor } from '../support/waitFor.js';

const KEY = 'sk-test-0123456789abcdef';
const suite = agentSuite(KEY);
const { h } = suite;

const system = (req: RecordedRequest) => String(req.body.messages[0]?.content);
const toolResults = (req: RecordedRequest) => req.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
beforeEach(() => {
  suite.server.requests.length = 0;
});

async function chat(files: Record<string, string>, agent: Record<string, unknown> = {}) {
  const p = await h.profile(suite.core, { image: 'berth-test:bookworm', agent: { baseUrl: suite.server.baseUrl, model: 'test-model', approval: 'auto', ...agent } });
  await suite.core.agent.setKey({ profile: p.name, apiKey: KEY });
  const c = await suite.core.chats.create({ profile: p.name, title: 'context' });
  const folder = h.workspace('project', files);
  await suite.core.workspace.attach({ chatId: c.id, path: folder, mode: 'readwrite' });
  return { chatId: c.id, folder };
}

describe('AGENTS.md', () => {
  it('gives the root file as instructions, a nested one with its own subtree’s files only, and never follows a link out of the sandbox', async () => {
    const secret = path.join(h.workspace('host-only', { 'secret.md': 'HOST-SECRET-991' }), 'secret.md');
    const { chatId, folder } = await chat({
      'AGENTS.md': '# Rules\nROOT-RULE-42: run the tests before you answer.\n',
      'pkg/AGENTS.md': 'PKG-RULE-7: this package uses tabs.\n',
      'pkg/a.txt': 'alpha\n',
      'other/b.txt': 'beta\n',
    });
    // A link to a file on this computer: read on the host it would leak; in the sandbox it leads nowhere.
    fs.mkdirSync(path.join(folder, 'linked'));
    fs.symlinkSync(secret, path.join(folder, 'linked', 'AGENTS.md'));
    suite.server.setResponder(byTurn(
      { toolCalls: [{ name: 'read_file', arguments: { path: 'other/b.txt' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'pkg/a.txt' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'pkg/a.txt' } }] },
      { text: 'done' },
    ));
    expect((await runTurn(suite.core, chatId, 'go', undefined, 120_000)).error).toBeNull();

    const first = suite.server.requests[0] as RecordedRequest;
    expect(system(first)).toContain('ROOT-RULE-42: run the tests before you answer.');
    expect(system(first)).toContain('/workspace/pkg/AGENTS.md');
    expect(system(first)).not.toContain('PKG-RULE-7');
    const [other, pkg, again] = toolResults(suite.server.requests.at(-1) as RecordedRequest);
    expect(other).not.toContain('PKG-RULE-7');
    expect(pkg).toContain('alpha');
    expect(pkg).toContain('PKG-RULE-7: this package uses tabs.');
    expect(again).not.toContain('PKG-RULE-7');
    for (const req of suite.server.requests) expect(JSON.stringify(req.body.messages)).not.toContain('HOST-SECRET-991');

    const notice = (await history(suite.core, chatId)).find((m) => m.notice?.kind === 'instructions');
    expect(notice?.content).toBe(`Using AGENTS.md from ${folder}, /workspace/pkg/AGENTS.md`);
    expect(notice?.notice).toEqual({ kind: 'instructions', folders: [folder], nested: ['/workspace/pkg/AGENTS.md'] });
  });

  it('turned off for a chat, is not sent', async () => {
    const { chatId } = await chat({ 'AGENTS.md': 'ROOT-RULE-42\n', 'pkg/AGENTS.md': 'PKG-RULE-7\n', 'pkg/a.txt': 'alpha\n' });
    expect(await suite.core.agent.setOptions({ chatId, instructions: false })).toEqual({ instructions: false, model: null });
    suite.server.setResponder(byTurn({ toolCalls: [{ name: 'read_file', arguments: { path: 'pkg/a.txt' } }] }, { text: 'done' }));
    expect((await runTurn(suite.core, chatId, 'go', undefined, 120_000)).error).toBeNull();
    for (const req of suite.server.requests) {
      expect(JSON.stringify(req.body.messages)).not.toContain('RULE');
      expect(system(req)).not.toContain('AGENTS.md');
    }
    expect((await history(suite.core, chatId)).some((m) => m.notice !== undefined)).toBe(false);
    expect((await suite.core.agent.history({ chatId })).options?.instructions).toBe(false);
  });
});

describe('a conversation past its context window', () => {
  it('goes on with a summary of its older turns plus the latest ones, every tool call with its result', async () => {
    const { chatId } = await chat({}, { contextWindow: 4096 });
    // A summary request has no tools; otherwise a user message gets a command, its result an answer.
    suite.server.setResponder((req): Step => {
      if (!req.body.tools) return { text: `SUMMARY-TEXT of ${req.body.messages.length} messages` };
      const last = req.body.messages.at(-1) as ChatMessage;
      if (last.role === 'tool') return { text: 'That printed a long line.' };
      const n = String(last.content).match(/turn (\d+)/)?.[1] ?? '0';
      return { toolCalls: [{ name: 'terminal', arguments: { command: `echo turn-${n}; head -c 3000 /dev/zero | tr '\\0' x` } }] };
    });
    for (let i = 1; i <= 6; i++) expect((await runTurn(suite.core, chatId, `turn ${i}: print a long line`, undefined, 120_000)).error).toBeNull();

    const summaries = suite.server.requests.filter((r) => !r.body.tools);
    expect(summaries.length).toBeGreaterThan(0);
    expect(String(summaries[0]?.body.messages[1]?.content)).toContain('turn 1: print a long line');
    const last = suite.server.requests.at(-1) as RecordedRequest;
    expect(system(last)).toContain(SUMMARY_HEADING);
    expect(system(last)).toContain('SUMMARY-TEXT');
    const sent = JSON.stringify(last.body.messages);
    expect(sent).not.toContain('turn 1: print a long line');
    expect(sent).toContain('turn 6: print a long line');
    expect(sent).toContain('turn-6');
    for (const req of suite.server.requests.filter((r) => r.body.tools)) {
      const calls = req.body.messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.id);
      const answered = req.body.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
      expect(answered).toEqual(calls);
    }
    const messages = await history(suite.core, chatId);
    const notice = messages.find((m) => m.notice?.kind === 'summary');
    expect(notice?.content).toBe('Earlier turns summarised');
    expect(notice?.notice).toMatchObject({ kind: 'summary', summary: expect.stringContaining('SUMMARY-TEXT') });
    // Usage as the provider reported it, per answer.
    expect(messages.filter((m) => m.role === 'assistant' && m.notice === undefined).every((m) => (m.usage?.input ?? 0) > 0)).toBe(true);
  });
});

describe('a new port after a command', () => {
  it('is told to the model, read through the chat’s own shell', async () => {
    const { chatId } = await chat({});
    await suite.core.agent.setOptions({ chatId, instructions: false });
    // The command waits until the server listens (port 8765 is 223D in the kernel's table).
    const listen = `(nohup python3 -c "import socket,time; s=socket.socket(); s.bind(('0.0.0.0', 8765)); s.listen(); time.sleep(60)" >/dev/null 2>&1 &); until grep -q ':223D 00000000:0000 0A' /proc/net/tcp; do sleep 0.05; done`;
    suite.server.setResponder(byTurn({ toolCalls: [{ name: 'terminal', arguments: { command: listen } }] }, { text: 'done' }));
    expect((await runTurn(suite.core, chatId, 'serve', undefined, 120_000)).error).toBeNull();
    const [result] = toolResults(suite.server.requests.at(-1) as RecordedRequest);
    expect(result).toMatch(/\[The sandbox now listens on ports? [0-9, ]*8765/);
  });

  it('is told at a later command when the server binds after its own command ended', async () => {
    const { chatId } = await chat({});
    await suite.core.agent.setOptions({ chatId, instructions: false });
    // A server that binds only when told to: its own command ends with nothing listening yet.
    const late = `(nohup python3 -c "import os,socket,time
while not os.path.exists('/tmp/bind-now'): time.sleep(0.05)
s=socket.socket(); s.bind(('0.0.0.0', 8766)); s.listen(); time.sleep(60)" >/dev/null 2>&1 &)`;
    const bind = `touch /tmp/bind-now; until grep -q ':223E 00000000:0000 0A' /proc/net/tcp; do sleep 0.05; done`;
    suite.server.setResponder(byTurn({ toolCalls: [{ name: 'terminal', arguments: { command: late } }] }, { toolCalls: [{ name: 'terminal', arguments: { command: bind } }] }, { text: 'done' }));
    expect((await runTurn(suite.core, chatId, 'serve', undefined, 120_000)).error).toBeNull();
    const [started, bound] = toolResults(suite.server.requests.at(-1) as RecordedRequest);
    expect(started).not.toContain('8766');
    expect(bound).toMatch(/\[The sandbox now listens on ports? [0-9, ]*8766/);
  });
});

describe.each(['berth-test:busybox', 'berth-test:bookworm'])('the ports reading after a command on %s', (image) => {
  it('reads no table when no process was left that could listen, and reads them while one lives', async () => {
    const p = await h.profile(suite.core, { image });
    const { id: chatId } = await suite.core.chats.create({ profile: p.name, title: 'ports reading' });
    const M = '__berth_ports_test';
    const reading = async (command: string) => splitPortsEpilogue((await suite.core.sandbox.exec({ chatId, command: withPortsEpilogue(command, M) })).output, M);
    expect(await reading('echo plain')).toEqual({ output: 'plain\n', listing: `${NO_OTHER_PROCESS}\n` });
    // A process the command left running: the kernel's tables, header line first.
    const withSleeper = await reading('sleep 300 >/dev/null 2>&1 &');
    expect(withSleeper.listing).toMatch(/^\s*sl\s+local_address/);
    await suite.core.sandbox.exec({ chatId, command: 'pkill sleep || killall sleep' });
    await waitFor(async () => (await reading('true')).listing === `${NO_OTHER_PROCESS}\n`, 'the sleeper to be gone');
  });
});
