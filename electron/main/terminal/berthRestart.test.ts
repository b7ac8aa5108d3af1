/**
 * Berth quits (or dies) with a chat's terminals open and starts again on the same data folder:
 * their shells are gone, and the terminal the user gets in that chat says, once, that what it
 * showed before ended with Berth's restart. Real cores (real SQLite) one after the other on the
 * in-memory engine.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fakeCore, type FakeCore } from '../../../test/support/fakeCore.js';
import { TERMINAL_MESSAGES } from '../messages.js';

let f: FakeCore | undefined;
afterEach(async () => f?.dispose());

const LINE = TERMINAL_MESSAGES.berthRestarted;

/** What the core sent to the terminal as it came (live, not the replay). */
function output(f: FakeCore, terminalId: string): string {
  return f.of('terminal.data').filter((d) => d.terminalId === terminalId).map((d) => d.data).join('');
}

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

async function typed(f: FakeCore, terminalId: string, word: string): Promise<void> {
  await f.core.terminal.input({ terminalId, data: `echo ${word}\r` });
  await expect.poll(() => output(f, terminalId)).toContain(`${word}\r\n`);
}

describe('a terminal after Berth restarted', () => {
  it('says once, in the terminal the user gets again, that its earlier output ended with the restart', async () => {
    f = fakeCore();
    const chat = await f.chat();
    const quiet = await f.chat();
    const before = await f.core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    await typed(f, before.terminalId, 'earlier');
    // A chat whose only terminal the user closed had nothing cut short by the restart.
    const closed = await f.core.terminal.open({ chatId: quiet.id, cols: 80, rows: 24 });
    await f.core.terminal.close({ terminalId: closed.terminalId });
    f = await f.restart();

    expect((await f.core.terminal.list({ chatId: chat.id })).terminals).toEqual([]);
    const after = await f.core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    await typed(f, after.terminalId, 'now');
    // Before anything the new shell printed, and once: in the live output and in each reconnect's replay.
    const replay = (await f.core.terminal.replay({ terminalId: after.terminalId })).data;
    expect(replay.indexOf(LINE)).toBeGreaterThanOrEqual(0);
    expect(replay.indexOf(LINE)).toBeLessThan(replay.indexOf('now\r\n'));
    expect(count(replay, LINE)).toBe(1);
    expect(count((await f.core.terminal.replay({ terminalId: after.terminalId })).data, LINE)).toBe(1);
    expect(count(output(f, after.terminalId), LINE)).toBe(1);
    // A second terminal of the same run is not told again.
    const another = await f.core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    await typed(f, another.terminalId, 'two');
    expect(output(f, another.terminalId)).not.toContain(LINE);
    // The chat that had no terminal open is not told.
    const fresh = await f.core.terminal.open({ chatId: quiet.id, cols: 80, rows: 24 });
    await typed(f, fresh.terminalId, 'q');
    expect(output(f, fresh.terminalId)).not.toContain(LINE);
  });

  it('keeps the line for a chat the user did not open between two restarts, and not once its terminal was closed', async () => {
    f = fakeCore();
    const chat = await f.chat();
    await f.core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    // A run in which the user never came back to the chat.
    f = await (await f.restart()).restart();
    const told = await f.core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    await typed(f, told.terminalId, 'three');
    expect(output(f, told.terminalId)).toContain(LINE);
    await f.core.terminal.close({ terminalId: told.terminalId });

    f = await f.restart();
    const again = await f.core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    await typed(f, again.terminalId, 'four');
    expect(output(f, again.terminalId)).not.toContain(LINE);
  });
});
