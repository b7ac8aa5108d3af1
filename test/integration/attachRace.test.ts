/**
 * Attaching a folder recreates the chat's sandbox with it, and the chat's terminals start again
 * in place. Whatever the user or the agent runs right then (commands, new terminals, even a
 * terminal asked for a moment before the attach) joins that one bring-up: it runs in the new
 * container and sees the folder, and nothing execs into a container being removed (Docker's
 * "OCI runtime exec failed … read init-p").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { Harness } from '../support/harness.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
let core: BerthCore;
let profile: string;
const output = new Map<string, string>();
const exits: Array<{ terminalId: string; reason: string }> = [];

beforeAll(async () => {
  core = h.core();
  profile = (await h.profile(core)).name;
  core.onEvent((event, payload) => {
    if (event === 'terminal.data') {
      const p = payload as { terminalId: string; data: string };
      output.set(p.terminalId, (output.get(p.terminalId) ?? '') + p.data);
    }
    if (event === 'terminal.exit') exits.push(payload as { terminalId: string; reason: string });
  });
});
afterAll(() => h.cleanup());

async function containerIdOf(chatId: string): Promise<string | null> {
  return (await core.sandbox.status({ chatId })).containerId;
}

/** Types `ls` of the folder in a terminal and waits until the file shows in it. */
async function seesFolder(terminalId: string, file: string, folder = '/workspace'): Promise<void> {
  await waitFor(async () => (output.get(terminalId) ?? '').includes('$ ') || undefined, 'a prompt', 60_000);
  await core.terminal.input({ terminalId, data: `ls ${folder}\n` });
  await waitFor(async () => (output.get(terminalId) ?? '').includes(file) || undefined, `${file} in the terminal`, 60_000);
}

describe('commands issued right after an attach', () => {
  it('all run in the recreated sandbox and see the folder: commands, new terminals and the restarted one', async () => {
    const chat = await core.chats.create({ profile });
    const first = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    await waitFor(async () => (output.get(first.terminalId) ?? '').includes('$ ') || undefined, 'the first prompt', 60_000);
    const before = await containerIdOf(chat.id);

    await core.workspace.attach({ chatId: chat.id, path: h.workspace('race-ws', { 'attached.txt': 'x' }), mode: 'readwrite' });
    // Not waiting for the terminal's restart: the user (or the agent) acts at once.
    const [execs, opened] = await Promise.all([
      Promise.all([1, 2, 3].map(() => core.sandbox.exec({ chatId: chat.id, command: 'ls /workspace; hostname' }))),
      Promise.all([1, 2].map(() => core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 }))),
    ]);

    const after = await containerIdOf(chat.id);
    expect(after).not.toBe(before);
    for (const r of execs) {
      expect(r.exitCode).toBe(0);
      expect(r.output).toContain('attached.txt');
    }
    await waitFor(async () => (output.get(first.terminalId) ?? '').includes('this terminal started again') || undefined, 'the restart note', 60_000);
    for (const t of [first, ...opened]) await seesFolder(t.terminalId, 'attached.txt');
    expect(exits).toEqual([]);
    const { terminals } = await core.terminal.list({ chatId: chat.id });
    expect(terminals.map((t) => t.state)).toEqual(['running', 'running', 'running']);
  });

  it('a terminal asked for just before the attach ends up in the new sandbox too, not in the one being removed', async () => {
    exits.length = 0;
    const chat = await core.chats.create({ profile });
    await core.sandbox.exec({ chatId: chat.id, command: 'true' });
    const folder = h.workspace('race-ws2', { 'second.txt': 'x' });
    // The open starts first (its container is the old one), the attach lands while it starts.
    const opening = core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    const attaching = core.workspace.attach({ chatId: chat.id, path: folder, mode: 'readwrite' });
    const [opened] = await Promise.all([opening, attaching]);
    const ran = await core.sandbox.exec({ chatId: chat.id, command: 'ls /workspace' });
    expect(ran.output).toContain('second.txt');
    // Started in the old container it is restarted in place (or it started in the new one): either way it runs and sees the folder.
    await seesFolder(opened.terminalId, 'second.txt');
    expect(exits).toEqual([]);
  });

  it('two attaches in a row while terminals restart: every terminal ends up in the newest sandbox', async () => {
    exits.length = 0;
    const chat = await core.chats.create({ profile });
    const a = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    const b = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    await waitFor(async () => (output.get(b.terminalId) ?? '').includes('$ ') || undefined, 'the prompt', 60_000);
    await core.workspace.attach({ chatId: chat.id, path: h.workspace('one', { 'one.txt': 'x' }), mode: 'readwrite' });
    await core.workspace.attach({ chatId: chat.id, path: h.workspace('two', { 'two.txt': 'x' }), mode: 'readwrite' });
    const ran = await core.sandbox.exec({ chatId: chat.id, command: 'ls /workspace/one /workspace/two' });
    expect(ran.exitCode).toBe(0);
    expect(ran.output).toContain('one.txt');
    expect(ran.output).toContain('two.txt');
    for (const t of [a, b]) await seesFolder(t.terminalId, 'two.txt', '/workspace/two');
    expect(exits).toEqual([]);
  });
});
