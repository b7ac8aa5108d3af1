/**
 * The chat agent against the real engine, driven by a scripted OpenAI-compatible server over
 * real HTTP and SSE: its tools act in the chat's own container and attached folder, nowhere else.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { history, runTurn, toolCalls } from '../support/agentDriver.js';
import { docker } from '../support/docker.js';
import { nextEvent } from '../support/events.js';
import { Harness, SANDBOX_UID } from '../support/harness.js';
import { byTurn, startOpenAiTestServer, type OpenAiTestServer, type RecordedRequest, type Step } from '../support/openaiTestServer.js';

const KEY = 'sk-test-0123456789abcdef';
const h = new Harness();
let server: OpenAiTestServer;
let core: BerthCore;

async function agentProfile(approval: 'ask' | 'auto' = 'auto', key: string | null = KEY, image = 'berth-test:busybox'): Promise<string> {
  const p = await h.profile(core, { image, agent: { baseUrl: server.baseUrl, model: 'test-model', approval } });
  if (key !== null) await core.agent.setKey({ profile: p.name, apiKey: key });
  return p.name;
}

async function chatWithFolder(profile: string, files: Record<string, string>, name = 'project') {
  const chat = await core.chats.create({ profile, title: name });
  const folder = h.workspace(name, files);
  await core.workspace.attach({ chatId: chat.id, path: folder, mode: 'readwrite' });
  return { chatId: chat.id, folder };
}

const firstUserText = (req: RecordedRequest) => String(req.body.messages.find((m) => m.role === 'user')?.content ?? '');
const assistantTurns = (req: RecordedRequest) => req.body.messages.filter((m) => m.role === 'assistant').length;
const toolResults = (req: RecordedRequest) => req.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));

beforeAll(async () => {
  server = await startOpenAiTestServer({ apiKey: KEY });
  core = h.core();
});
afterAll(async () => {
  await h.cleanup();
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

describe('an agent in a chat', () => {
  it('lists and edits a file in the attached folder, and the change is on the host, owned by the sandbox user', async () => {
    const profile = await agentProfile();
    const { chatId, folder } = await chatWithFolder(profile, { 'notes.txt': 'first line\n' });
    server.setResponder(byTurn(
      { toolCalls: [{ name: 'list_dir', arguments: {} }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'first line\nedited by the agent\n' } }] },
      { text: ['All ', 'done.'] },
    ));

    const end = await runTurn(core, chatId, 'Add a line to notes.txt');
    expect(end.error).toBeNull();
    expect(fs.readFileSync(path.join(folder, 'notes.txt'), 'utf8')).toBe('first line\nedited by the agent\n');
    expect(fs.statSync(path.join(folder, 'notes.txt')).uid).toBe(SANDBOX_UID);
    // What the model was told came from the container: the listing, then the file.
    expect(toolResults(server.requests[1] as RecordedRequest)[0]).toContain('notes.txt');
    expect(toolResults(server.requests[2] as RecordedRequest)[1]).toBe('first line\n');
    // The model is sent Berth's key, and only the key saved for this profile.
    expect(server.requests.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);

    const messages = await history(core, chatId);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'assistant', 'assistant', 'assistant']);
    expect(messages.at(-1)?.content).toBe('All done.');
    const calls = toolCalls(messages);
    expect(calls.map((c) => [c.name, c.status])).toEqual([['list_dir', 'done'], ['read_file', 'done'], ['write_file', 'done']]);
    expect(calls[0]?.command).toBe('list /workspace');
    expect(calls[0]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('keeps its file tools inside the attached folders, even through a symlink', async () => {
    const profile = await agentProfile();
    const { chatId } = await chatWithFolder(profile, { 'a.txt': 'a' });
    server.setResponder(byTurn(
      { toolCalls: [{ name: 'read_file', arguments: { path: '/etc/passwd' } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'ln -s /etc /workspace/etc-link' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'etc-link/passwd' } }] },
      { text: 'ok' },
    ));
    expect((await runTurn(core, chatId, 'read the passwords')).error).toBeNull();
    const results = toolResults(server.requests[3] as RecordedRequest);
    expect(results[0]).toMatch(/^Refused: .*outside the attached folders/);
    expect(results[2]).toMatch(/^Refused: .*leads to \/etc\/passwd/);
    expect(results.join('\n')).not.toContain('root:x:0:0');
  });

  it('does not follow a link above a folder it would create, and ignores a PATH the agent changed', async () => {
    // Debian's coreutils, found through PATH (busybox would run its own applets whatever PATH says).
    const profile = await agentProfile('auto', KEY, 'berth-test:bookworm');
    const { chatId, folder } = await chatWithFolder(profile, {});
    const fake = '#!/bin/sh\ntouch /workspace/HIJACKED\n';
    server.setResponder(byTurn(
      { toolCalls: [{ name: 'terminal', arguments: { command: 'ln -s /home /workspace/out && mkdir -p /workspace/bin' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'out/newdir/f.txt', content: 'escaped' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'bin/dirname', content: fake } }, { name: 'write_file', arguments: { path: 'bin/ls', content: fake } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'chmod +x /workspace/bin/*; export PATH=/workspace/bin:$PATH' } }] },
      { toolCalls: [{ name: 'list_dir', arguments: {} }, { name: 'read_file', arguments: { path: 'bin/ls' } }] },
      { text: 'ok' },
    ));
    expect((await runTurn(core, chatId, 'try to escape')).error).toBeNull();
    expect(toolResults(server.requests[2] as RecordedRequest).at(-1)).toMatch(/^Refused: .*leads to \/home\/newdir\/f.txt/);
    const listed = toolResults(server.requests[5] as RecordedRequest);
    expect(listed[listed.length - 2]).toContain('bin');
    expect(listed[listed.length - 1]).toBe(fake);
    expect(fs.existsSync(path.join(folder, 'HIJACKED'))).toBe(false);
  });

  it('shows the resolved path and the content of a write before the user allows it', async () => {
    const profile = await agentProfile('ask');
    const { chatId, folder } = await chatWithFolder(profile, {});
    server.setResponder(byTurn({ toolCalls: [{ name: 'write_file', arguments: { path: './sub/../package.json', content: '{"scripts":{}}' } }] }, { text: 'ok' }));
    const asked: { command: string; detail: string | null }[] = [];
    const end = await runTurn(core, chatId, 'write', (a) => {
      asked.push({ command: a.command, detail: a.detail });
      void core.agent.approve({ chatId, approvalId: a.approvalId, decision: 'once' });
    });
    expect(end.error).toBeNull();
    expect(asked).toEqual([{ command: 'write /workspace/package.json (14 bytes)', detail: '{"scripts":{}}' }]);
    expect(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')).toBe('{"scripts":{}}');
    expect(fs.readdirSync(folder)).toEqual(['package.json']);
  });

  it('runs a subagent, and a subagent of it, in the same container as the chat', async () => {
    const profile = await agentProfile();
    const { chatId } = await chatWithFolder(profile, {});
    server.setResponder((req) => {
      const who = firstUserText(req);
      const n = assistantTurns(req);
      const step = (steps: Step[]): Step => steps[Math.min(n, steps.length - 1)] as Step;
      if (who === 'level 2') return step([{ toolCalls: [{ name: 'terminal', arguments: { command: 'echo from-level-2 > /tmp/handoff.txt' } }] }, { text: 'wrote it' }]);
      if (who === 'level 1') return step([{ toolCalls: [{ name: 'delegate_task', arguments: { task: 'level 2' } }] }, { text: 'level 2 wrote it' }]);
      return step([
        { toolCalls: [{ name: 'delegate_task', arguments: { task: 'level 1', title: 'hand off' } }] },
        { toolCalls: [{ name: 'terminal', arguments: { command: 'cat /tmp/handoff.txt' } }] },
        { text: 'parent done' },
      ]);
    });
    expect((await runTurn(core, chatId, 'use a subagent')).error).toBeNull();

    const messages = await history(core, chatId);
    const calls = toolCalls(messages);
    const cat = calls.find((c) => c.command === 'cat /tmp/handoff.txt');
    // /tmp is the container's own: the parent reads what the nested subagent wrote there.
    expect(cat?.output?.trim()).toBe('from-level-2');
    const delegate = calls.find((c) => c.name === 'delegate_task' && c.command === 'hand off');
    expect(delegate?.status).toBe('done');
    const nested = messages.filter((m) => m.parentCallId === delegate?.id);
    expect(nested[0]).toMatchObject({ role: 'user', content: 'level 1', taskId: delegate?.subtaskId });
    // Deeper than three, delegate_task is refused even if the model calls it anyway.
    expect(calls.filter((c) => c.name === 'delegate_task').every((c) => c.status === 'done')).toBe(true);
    // One container for the chat and both subagents.
    const ps = await docker('ps', '-q', '--filter', `label=berth.chat=${chatId}`);
    expect(ps.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('refuses a subagent deeper than three, even when the model asks for one it was not offered', async () => {
    const profile = await agentProfile();
    const chat = await core.chats.create({ profile });
    // Every agent delegates once, whatever it was offered, then answers.
    server.setResponder((req) => (assistantTurns(req) === 0 ? { toolCalls: [{ name: 'delegate_task', arguments: { task: `below ${firstUserText(req)}` } }] } : { text: 'done' }));
    expect((await runTurn(core, chat.id, 'top')).error).toBeNull();
    const calls = toolCalls(await history(core, chat.id)).filter((c) => c.name === 'delegate_task');
    expect(calls.map((c) => c.status).sort()).toEqual(['done', 'done', 'done', 'failed']);
    expect(calls.find((c) => c.status === 'failed')?.output).toMatch(/at most 3 deep/);
    // The deepest agent was not offered the tool at all.
    const offered = server.requests.map((r) => (r.body.tools as { function: { name: string } }[]).some((t) => t.function.name === 'delegate_task'));
    expect(offered.filter((x) => !x).length).toBeGreaterThan(0);
  });

  it('two chats in two profiles running the same script never see each other’s files', async () => {
    const [pa, pb] = [await agentProfile(), await agentProfile()];
    const a = await chatWithFolder(pa, { 'only-a.txt': 'a' }, 'alpha');
    const b = await chatWithFolder(pb, { 'only-b.txt': 'b' }, 'beta');
    server.setResponder(byTurn(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'mine.txt', content: 'written here' } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'ls -a /workspace /tmp; cat /workspace/*.txt' } }] },
      { text: 'done' },
    ));
    const [ea, eb] = await Promise.all([runTurn(core, a.chatId, 'go'), runTurn(core, b.chatId, 'go')]);
    expect([ea.error, eb.error]).toEqual([null, null]);
    expect(fs.readdirSync(a.folder).sort()).toEqual(['mine.txt', 'only-a.txt']);
    expect(fs.readdirSync(b.folder).sort()).toEqual(['mine.txt', 'only-b.txt']);
    const seenA = toolCalls(await history(core, a.chatId)).find((c) => c.name === 'terminal')?.output ?? '';
    const seenB = toolCalls(await history(core, b.chatId)).find((c) => c.name === 'terminal')?.output ?? '';
    expect(seenA).toContain('only-a.txt');
    expect(seenA).not.toContain('only-b.txt');
    expect(seenB).toContain('only-b.txt');
    expect(seenB).not.toContain('only-a.txt');
  });

  it('Stop in the middle of a command stops the command in the container', async () => {
    const profile = await agentProfile();
    const { chatId, folder } = await chatWithFolder(profile, {});
    server.setResponder(byTurn(
      { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 47; touch /workspace/late.txt' } }] },
      { text: 'should not be asked' },
    ));
    const running = nextEvent(core, 'agent.message', ({ message: m }) => m.chatId === chatId && m.toolCalls.some((c) => c.status === 'running' && c.command?.startsWith('sleep 47') === true));
    const turn = runTurn(core, chatId, 'wait a while');
    await running;
    await new Promise((r) => setTimeout(r, 300));
    expect(await core.agent.stop({ chatId })).toEqual({ stopped: true });
    const end = await turn;
    expect(end.error).toBeNull();

    const ps = await core.sandbox.exec({ chatId, command: 'ps -o args' });
    expect(ps.output).not.toContain('sleep 47');
    expect(fs.existsSync(path.join(folder, 'late.txt'))).toBe(false);
    const call = toolCalls(await history(core, chatId))[0];
    expect(call?.status).toBe('cancelled');
    expect(server.requests).toHaveLength(1);
  });

  it('Stop while the sandbox is still starting runs nothing', async () => {
    const profile = await agentProfile();
    const { chatId, folder } = await chatWithFolder(profile, {});
    // With AGENTS.md on, the turn's first step (looking for it) would start the sandbox before
    // the model is asked: off, the sandbox starts for the tool call, which is what this stops.
    await core.agent.setOptions({ chatId, instructions: false });
    server.setResponder(byTurn({ toolCalls: [{ name: 'terminal', arguments: { command: 'touch /workspace/too-late.txt' } }] }, { text: 'not asked' }));
    let stopping: Promise<unknown> | null = null;
    const sub = core.onEvent((event, payload) => {
      const p = payload as { chatId?: string; phase?: string };
      if (event === 'sandbox.progress' && p.chatId === chatId && p.phase === 'starting' && !stopping) stopping = core.agent.stop({ chatId });
    });
    try {
      expect((await runTurn(core, chatId, 'touch it')).error).toBeNull();
    } finally {
      sub.dispose();
    }
    expect(stopping).not.toBeNull();
    await stopping;
    expect(toolCalls(await history(core, chatId))[0]?.status).toBe('cancelled');
    expect(fs.existsSync(path.join(folder, 'too-late.txt'))).toBe(false);
  });

  it('retries a 429 and then answers; a bad key ends the turn with a clear error that does not show the key', async () => {
    const profile = await agentProfile();
    const { chatId } = await chatWithFolder(profile, {});
    let calls = 0;
    server.setResponder(() => (++calls === 1 ? { status: 429, error: { message: 'Rate limit reached' }, retryAfter: '0' } : { text: 'after retry' }));
    expect((await runTurn(core, chatId, 'hello')).error).toBeNull();
    expect(server.requests).toHaveLength(2);
    expect((await history(core, chatId)).at(-1)?.content).toBe('after retry');

    const badKey = 'sk-wrong-key-999';
    const other = await agentProfile('auto', badKey);
    const chat = await core.chats.create({ profile: other });
    const end = await runTurn(core, chat.id, 'hello');
    expect(end.error?.code).toBe('provider_auth');
    expect(end.error?.message).toMatch(/refused the API key/);
    const shown = (await history(core, chat.id)).at(-1);
    expect(shown?.role).toBe('error');
    expect(JSON.stringify(shown)).not.toContain(badKey);
  });

  it('says clearly when the model is unknown or nothing answers at the provider URL', async () => {
    const strict = await startOpenAiTestServer({ models: ['only-this-model'] });
    try {
      const p = await h.profile(core, { agent: { baseUrl: strict.baseUrl, model: 'no-such-model', approval: 'auto' } });
      const chat = await core.chats.create({ profile: p.name });
      const end = await runTurn(core, chat.id, 'hello');
      expect(end.error?.code).toBe('provider_model');
      expect(end.error?.message).toContain('no-such-model');
    } finally {
      await strict.close();
    }
    const gone = await h.profile(core, { agent: { baseUrl: strict.baseUrl, model: 'm', approval: 'auto' } });
    const chat = await core.chats.create({ profile: gone.name });
    const end = await runTurn(core, chat.id, 'hello');
    expect(end.error?.code).toBe('provider_unreachable');
    expect(end.error?.message).toContain(new URL(strict.baseUrl).origin);
    expect((await history(core, chat.id)).map((m) => m.role)).toEqual(['user', 'error']);
  });

  it('a denied approval runs nothing; an allowed one runs', async () => {
    const profile = await agentProfile('ask');
    const { chatId, folder } = await chatWithFolder(profile, {});
    server.setResponder(byTurn(
      { toolCalls: [{ name: 'terminal', arguments: { command: 'touch /workspace/denied.txt' } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'touch /workspace/allowed.txt' } }] },
      { text: 'ok' },
    ));
    const asked: string[] = [];
    const end = await runTurn(core, chatId, 'touch two files', (a) => {
      asked.push(a.command);
      void core.agent.approve({ chatId, approvalId: a.approvalId, ...(a.command.includes('denied') ? { decision: 'deny', reason: 'Use /tmp for scratch files' } : { decision: 'once' }) });
    });
    expect(end.error).toBeNull();
    expect(asked).toEqual(['touch /workspace/denied.txt', 'touch /workspace/allowed.txt']);
    expect(fs.existsSync(path.join(folder, 'denied.txt'))).toBe(false);
    expect(fs.existsSync(path.join(folder, 'allowed.txt'))).toBe(true);
    expect(toolCalls(await history(core, chatId)).map((c) => c.status)).toEqual(['denied', 'done']);
    expect(toolResults(server.requests[1] as RecordedRequest)[0]).toMatch(/denied/);
    // The user's reason reaches the agent with the denial, and the card says it.
    expect(toolResults(server.requests[1] as RecordedRequest)[0]).toContain('Use /tmp for scratch files');
    expect(toolCalls(await history(core, chatId))[0]!.output).toContain('Use /tmp for scratch files');
  });

  it('never puts the API key into the container', async () => {
    const profile = await agentProfile();
    const { chatId } = await chatWithFolder(profile, {});
    server.setResponder(byTurn({ toolCalls: [{ name: 'terminal', arguments: { command: 'env; cat /proc/1/environ' } }] }, { text: 'ok' }));
    expect((await runTurn(core, chatId, 'show env')).error).toBeNull();
    const out = toolCalls(await history(core, chatId))[0]?.output ?? '';
    expect(out).toContain('HOME=');
    expect(out).not.toContain(KEY);
    const { containerId } = await core.sandbox.status({ chatId });
    expect(await docker('inspect', containerId as string)).not.toContain(KEY);
  });

  it('keeps the conversation across a restart', async () => {
    const dataDir = h.dataDir();
    const first = h.core({ dataDir });
    const p = await h.profile(first, { agent: { baseUrl: server.baseUrl, model: 'test-model', approval: 'auto' } });
    await first.agent.setKey({ profile: p.name, apiKey: KEY });
    const chat = await first.chats.create({ profile: p.name });
    server.setResponder(byTurn({ text: 'remember me' }));
    expect((await runTurn(first, chat.id, 'hi')).error).toBeNull();
    await first.dispose();

    const second = h.core({ dataDir });
    expect((await second.agent.history({ chatId: chat.id })).messages.map((m) => [m.role, m.content])).toEqual([['user', 'hi'], ['assistant', 'remember me']]);
    // The key survives too, sealed: the next turn is sent with it.
    server.requests.length = 0;
    server.setResponder(() => ({ text: 'still here' }));
    expect((await runTurn(second, chat.id, 'again')).error).toBeNull();
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(server.requests[0]?.body.messages.map((m) => m.content)).toContain('remember me');
  });
});
