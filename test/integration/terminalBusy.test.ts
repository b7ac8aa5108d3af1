/**
 * What runs in a chat's terminals, read inside the real container (busybox and Debian shells),
 * and terminals that start again in place when the sandbox is recreated for a folder change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { BOOKWORM, BUSYBOX } from '../support/docker.js';
import { Harness } from '../support/harness.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
let core: BerthCore;
const output = new Map<string, string>();
const exits: string[] = [];

beforeAll(() => {
  core = h.core();
  core.onEvent((event, payload) => {
    if (event === 'terminal.data') {
      const p = payload as { terminalId: string; data: string };
      output.set(p.terminalId, (output.get(p.terminalId) ?? '') + p.data);
    }
    if (event === 'terminal.exit') exits.push((payload as { terminalId: string }).terminalId);
  });
});
afterAll(() => h.cleanup());

describe.each([BUSYBOX, BOOKWORM])('terminals on %s', (image) => {
  it('lists what the user runs in each terminal, not the shells; a folder change restarts them in place', async () => {
    const profile = (await h.profile(core, { image })).name;
    const chat = await core.chats.create({ profile });
    const one = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    const two = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    await waitFor(async () => output.get(two.terminalId)?.includes('$ ') || undefined, 'the second prompt', 30_000);
    expect((await core.terminal.busy({ chatId: chat.id })).terminals).toEqual([]);

    await core.terminal.input({ terminalId: one.terminalId, data: 'sleep 300\n' });
    const busy = await waitFor(async () => {
      const { terminals } = await core.terminal.busy({ chatId: chat.id });
      return terminals.length > 0 ? terminals : undefined;
    }, 'sleep in the list', 30_000);
    expect(busy).toEqual([{ terminalId: one.terminalId, title: 'Terminal 1', processes: ['sleep 300'] }]);

    // The attach stops the sleep: confirmed, as the page's dialog does.
    const folder = h.workspace('busy-ws', { 'here.txt': 'x' });
    const { token } = await core.workspace.attachPreview({ chatId: chat.id, action: 'attach', mode: 'readwrite', path: folder });
    await core.workspace.attach({ chatId: chat.id, path: folder, mode: 'readwrite', confirm: token ?? undefined });
    await waitFor(async () => output.get(one.terminalId)?.includes('this terminal started again') || undefined, 'the restart note', 60_000);
    await core.terminal.input({ terminalId: one.terminalId, data: 'ls /workspace\n' });
    await waitFor(async () => output.get(one.terminalId)?.includes('here.txt') || undefined, 'the new folder in the same terminal', 30_000);
    const { terminals } = await core.terminal.list({ chatId: chat.id });
    expect(terminals.map((t) => [t.terminalId, t.title, t.state])).toEqual([
      [one.terminalId, 'Terminal 1', 'running'],
      [two.terminalId, 'Terminal 2', 'running'],
    ]);
    expect(exits).toEqual([]);
    expect((await core.terminal.busy({ chatId: chat.id })).terminals).toEqual([]);
  });
});
