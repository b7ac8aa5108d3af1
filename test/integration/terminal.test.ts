/** Terminals: interactive shells with a TTY in the chat's own container. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { HIGH_WATER_CHARS } from '../../electron/main/terminal/flowControl.js';
import { Harness } from '../support/harness.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
let core: BerthCore;
let profile: string;
const output = new Map<string, string>();
const exits = new Map<string, string>();

beforeAll(async () => {
  ({ core, profile } = await h.coreWithProfile());
  core.onEvent((event, payload) => {
    if (event === 'terminal.data') {
      const p = payload as { terminalId: string; data: string };
      output.set(p.terminalId, (output.get(p.terminalId) ?? '') + p.data);
    }
    if (event === 'terminal.exit') {
      const p = payload as { terminalId: string; reason: string };
      exits.set(p.terminalId, p.reason);
    }
  });
});
afterAll(() => h.cleanup());

const screen = (id: string) => output.get(id) ?? '';

describe('terminals', () => {
  it("opens a shell in the chat's container, in its folder, as the sandbox user, and resizes", async () => {
    const chat = await core.chats.create({ profile });
    await core.workspace.attach({ chatId: chat.id, path: h.workspace('term-ws', { 'seen.txt': 's' }), mode: 'readwrite' });
    const term = await core.terminal.open({ chatId: chat.id, cols: 100, rows: 30 });
    expect(term.state).toBe('running');
    await core.terminal.input({ terminalId: term.terminalId, data: 'pwd; ls; id -u; stty size\n' });
    await waitFor(async () => /\n30 100\r?\n/.test(screen(term.terminalId)), 'the terminal output');
    expect(screen(term.terminalId)).toContain('/workspace');
    expect(screen(term.terminalId)).toContain('seen.txt');
    await core.terminal.resize({ terminalId: term.terminalId, cols: 120, rows: 40 });
    await core.terminal.input({ terminalId: term.terminalId, data: 'stty size\n' });
    await waitFor(async () => /\n40 120\r?\n/.test(screen(term.terminalId)), 'the new size');
    const replay = await core.terminal.replay({ terminalId: term.terminalId });
    expect(replay.data).toContain('seen.txt');
    expect((await core.terminal.list({ chatId: chat.id })).terminals.map((t) => t.terminalId)).toEqual([term.terminalId]);
  });

  it('says so when the sandbox stops under it, and a new terminal starts it again', async () => {
    const chat = await core.chats.create({ profile });
    const term = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    await core.sandbox.stop({ chatId: chat.id });
    await waitFor(async () => exits.get(term.terminalId), 'the exit event');
    expect(exits.get(term.terminalId)).toBe('The sandbox was stopped.');
    await expect(core.terminal.input({ terminalId: term.terminalId, data: 'ls\n' })).rejects.toMatchObject({ code: 'container_vanished' });
    const again = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    await core.terminal.input({ terminalId: again.terminalId, data: 'echo back-$((40+2))\n' });
    await waitFor(async () => screen(again.terminalId).includes('back-42'), 'the restarted terminal');
  });

  it("Restart: the new terminal takes the ended one's name (Terminal 1 stays Terminal 1); a plain new one gets the next number", async () => {
    const chat = await core.chats.create({ profile });
    const other = await core.chats.create({ profile });
    const first = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    const second = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    expect([first.title, second.title]).toEqual(['Terminal 1', 'Terminal 2']);
    await core.terminal.input({ terminalId: first.terminalId, data: 'exit\n' });
    await waitFor(async () => exits.has(first.terminalId), 'the first shell to exit');
    const restarted = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24, replaces: first.terminalId });
    expect(restarted.title).toBe('Terminal 1');
    expect((await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 })).title).toBe('Terminal 3');
    // Another chat's terminal lends nothing: its own numbering.
    expect((await core.terminal.open({ chatId: other.id, cols: 80, rows: 24, replaces: second.terminalId })).title).toBe('Terminal 1');
  });

  it('starts open terminals again, in place, when the folders change: the same terminal sees the new folder', async () => {
    const chat = await core.chats.create({ profile });
    const term = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    const attached = await core.workspace.attach({ chatId: chat.id, path: h.workspace('arrived', { 'new.txt': 'n' }), mode: 'readwrite' });
    expect(attached.notice).toMatch(/recreated/);
    await waitFor(async () => screen(term.terminalId).includes('folders changed'), 'the restart note');
    await core.terminal.input({ terminalId: term.terminalId, data: 'ls /workspace\n' });
    await waitFor(async () => screen(term.terminalId).includes('new.txt'), 'the folder in the same terminal');
    expect(exits.get(term.terminalId)).toBeUndefined();
  });

  it('pauses a flood until the connected screen acknowledges it, and resumes; a screen that leaves holds nothing back', async () => {
    const screenClient = core.connectClient();
    const chat = await core.chats.create({ profile });
    const term = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    await core.terminal.input({ terminalId: term.terminalId, data: 'yes flood | head -c 8000000; echo FLOOD-$((1+1))-DONE\n' });
    await waitFor(async () => screen(term.terminalId).length > HIGH_WATER_CHARS, 'the first part of the flood', 90_000);
    await new Promise((r) => setTimeout(r, 500));
    const whilePaused = screen(term.terminalId).length;
    // Paused at the high mark (plus what was already in flight), far short of the 8 MB.
    expect(whilePaused).toBeLessThan(HIGH_WATER_CHARS + 1_000_000);
    expect(screen(term.terminalId)).not.toContain('FLOOD-2-DONE');
    // Acknowledge as a screen would, until the end arrives.
    await waitFor(async () => {
      await screenClient.call('terminal.ack', { terminalId: term.terminalId, chars: screen(term.terminalId).length });
      return screen(term.terminalId).includes('FLOOD-2-DONE');
    }, 'the rest of the flood', 120_000);

    // A second flood with the screen gone: nothing waits for acknowledgements.
    screenClient.dispose();
    await core.terminal.input({ terminalId: term.terminalId, data: 'yes again | head -c 2000000; echo AGAIN-$((2+2))-DONE\n' });
    await waitFor(async () => screen(term.terminalId).includes('AGAIN-4-DONE'), 'the unwatched flood to finish', 90_000);
    // 10 MB through a TTY: about a minute when other engineers' tests load this 2-core machine.
  }, 240_000);

  it('delivers a flood byte for byte and in order, live and in the replay', async () => {
    const chat = await core.chats.create({ profile });
    const term = await core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    await core.terminal.input({ terminalId: term.terminalId, data: 'seq 1 60000; echo SEQ-$((3*4))-END\n' });
    await waitFor(async () => screen(term.terminalId).includes('SEQ-12-END'), 'the end of the flood', 30_000);
    const expected = Array.from({ length: 60000 }, (_, i) => `${i + 1}\r\n`).join('');
    expect(screen(term.terminalId)).toContain(`${expected}SEQ-12-END`);
    // The replay keeps the tail of exactly what was sent: it ends as the live output does.
    const replay = (await core.terminal.replay({ terminalId: term.terminalId })).data;
    expect(screen(term.terminalId).endsWith(replay)).toBe(true);
  });

  it('closes terminals after a while with no screen connected, so the sandbox can idle out', async () => {
    const { ManualClock } = await import('../support/manualClock.js');
    const clock = new ManualClock();
    const quiet = h.core({ clock });
    const p = (await h.profile(quiet)).name;
    const chat = await quiet.chats.create({ profile: p });
    const exited: string[] = [];
    quiet.onEvent((event, payload) => {
      if (event === 'terminal.exit') exited.push((payload as { reason: string }).reason);
    });
    const screenClient = quiet.connectClient();
    await quiet.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    screenClient.dispose();
    clock.advance(14 * 60_000);
    expect(exited).toEqual([]);
    clock.advance(2 * 60_000);
    await waitFor(async () => exited.length === 1, 'the unwatched terminal to close');
    expect(exited[0]).toMatch(/no window open/);
  });
});
