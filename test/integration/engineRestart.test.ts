/**
 * The Docker engine stops mid-chat and comes back. Runs on a private dockerd of its own (the
 * shared engine is never stopped): a command and a terminal are running when it stops. The app
 * must stay up, say the engine is down, recover by itself when it returns, and find the chat's
 * own container again, with the chat, its history and its folder as they were.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import type { EngineStatus } from '../../shared/contract.js';
import { history, runTurn } from '../support/agentDriver.js';
import { BUSYBOX } from '../support/docker.js';
import { nextEvent } from '../support/events.js';
import { Harness } from '../support/harness.js';
import { byTurn, startOpenAiTestServer, type OpenAiTestServer } from '../support/openaiTestServer.js';
import { privateEngineUnavailable, startPrivateEngine, type PrivateEngine } from '../support/privateEngine.js';
import { waitFor } from '../support/waitFor.js';

const unavailable = privateEngineUnavailable();
if (unavailable) console.log(`engineRestart.test.ts skipped: ${unavailable}.`);

const h = new Harness();
let engine: PrivateEngine;
let server: OpenAiTestServer;
let core: BerthCore;

beforeAll(async () => {
  if (unavailable) return;
  engine = await startPrivateEngine([BUSYBOX]);
  server = await startOpenAiTestServer({ responder: byTurn({ text: 'Hello from before the outage.' }) });
  core = h.core({ env: { DOCKER_HOST: engine.host } });
}, 180_000);

afterAll(async () => {
  await h.cleanup();
  await server?.close();
  await engine?.destroy();
}, 120_000);

describe.skipIf(unavailable !== null)('the Docker engine stops mid-chat and comes back', () => {
  it('stays up, says the engine is down, recovers by itself, and keeps the chat, its history, folder and container', async () => {
    const statuses: EngineStatus['state'][] = [];
    core.onEvent((event, payload) => {
      if (event === 'engine.status') statuses.push((payload as EngineStatus).state);
    });
    // No network: a private engine without iptables has nothing to give the profile's bridge.
    const profile = await h.profile(core, { egress: 'none', agent: { baseUrl: server.baseUrl, model: 'test-model', approval: 'auto' } });
    const chat = await core.chats.create({ profile: profile.name, title: 'survives the outage' });
    const folder = h.workspace('project', { 'notes.txt': 'kept\n' });
    await core.workspace.attach({ chatId: chat.id, path: folder, mode: 'readwrite' });
    expect((await runTurn(core, chat.id, 'hello')).error).toBeNull();
    const before = { chats: await core.chats.list({}), history: await history(core, chat.id) };

    expect((await core.sandbox.exec({ chatId: chat.id, command: 'echo one > /workspace/from-sandbox.txt' })).exitCode).toBe(0);
    const containerId = await engine.docker('ps', '-q', '--no-trunc', '--filter', `label=berth.chat=${chat.id}`);
    expect(containerId).toMatch(/^[0-9a-f]{64}$/);

    // A terminal with output and a command, both running when the engine goes.
    const { terminalId } = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    const ticking = nextEvent(core, 'terminal.data', (d) => d.terminalId === terminalId && d.data.includes('tick'));
    await core.terminal.input({ terminalId, data: 'while :; do echo tick; sleep 0.2; done\r' });
    await ticking;
    const terminalEnded = nextEvent(core, 'terminal.exit', (e) => e.terminalId === terminalId, 90_000);
    const running = core.sandbox.exec({ chatId: chat.id, command: 'sleep 600' }).then(
      (r) => ({ ok: true as const, r }),
      (e: unknown) => ({ ok: false as const, e: e as { code?: string; message: string } }),
    );
    await waitFor(async () => (await engine.docker('top', containerId)).includes('sleep 600'), 'the command to be running in the container');

    const down = nextEvent(core, 'engine.status', (s) => s.state === 'unreachable', 90_000);
    await engine.stop();

    // The command and the terminal end, each saying so; nothing hangs.
    const ended = await running;
    if (ended.ok) expect(ended.r.exitCode).not.toBe(0);
    else expect(ended.e.message.length).toBeGreaterThan(0);
    expect((await terminalEnded).reason.length).toBeGreaterThan(0);
    // The app is up and says the engine is down, with what to do.
    const refused = await core.sandbox.exec({ chatId: chat.id, command: 'true' }).catch((e: unknown) => e as { code: string; hint?: string });
    expect(refused).toMatchObject({ code: 'engine_unreachable' });
    const status = await down;
    expect(status.message).toBeTruthy();
    expect(status.hint).toBeTruthy();
    expect(await core.chats.list({})).toEqual(before.chats);
    expect(await history(core, chat.id)).toEqual(before.history);

    // Back: the app notices by itself (no call from the test), then the chat's own container runs again.
    const up = nextEvent(core, 'engine.status', (s) => s.state === 'ok', 90_000);
    await engine.start();
    await up;
    const after = await core.sandbox.exec({ chatId: chat.id, command: 'cat /workspace/notes.txt /workspace/from-sandbox.txt' });
    expect(after).toMatchObject({ exitCode: 0 });
    expect(after.output).toBe('kept\none\n');
    expect(await engine.docker('ps', '-aq', '--no-trunc', '--filter', `label=berth.chat=${chat.id}`)).toBe(containerId);
    expect(await core.chats.list({})).toEqual(before.chats);
    expect(await history(core, chat.id)).toEqual(before.history);
    expect(fs.readFileSync(path.join(folder, 'notes.txt'), 'utf8')).toBe('kept\n');
    // A new terminal works again.
    const again = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    const echoed = nextEvent(core, 'terminal.data', (d) => d.terminalId === again.terminalId && d.data.includes('back-again'));
    await core.terminal.input({ terminalId: again.terminalId, data: 'echo back-again\r' });
    await echoed;
    await core.terminal.close({ terminalId: again.terminalId });
    expect(statuses).toEqual(expect.arrayContaining(['unreachable', 'ok']));
    expect(statuses.lastIndexOf('ok')).toBeGreaterThan(statuses.indexOf('unreachable'));
  }, 300_000);
});
