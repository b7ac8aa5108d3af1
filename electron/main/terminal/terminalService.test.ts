/** Terminals' logic on the in-memory engine: output, holds on the sandbox, endings and their reasons. */
import { afterEach, describe, expect, it } from 'vitest';
import { fakeCore, type FakeCore } from '../../../test/support/fakeCore.js';

let f: FakeCore;
afterEach(async () => f?.dispose());

const IDLE_ONE_MINUTE = { retention: { idleStopMinutes: 1, onQuit: 'stop' } };

function running(f: FakeCore): boolean[] {
  return [...f.engine.containers.values()].map((c) => c.running);
}

describe('TerminalService on the fake engine', () => {
  it('runs what is typed in the chat’s own container and streams the output', async () => {
    f = fakeCore();
    const chat = await f.chat();
    const term = await f.core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    expect(term.state).toBe('running');
    await f.core.terminal.input({ terminalId: term.terminalId, data: 'echo hello\r' });
    await expect.poll(() => f.of('terminal.data').map((d) => d.data).join('')).toContain('hello\r\n');
    expect((await f.core.terminal.replay({ terminalId: term.terminalId })).data).toContain('hello');
  });

  it('sizes a terminal shown in two windows to the smaller of them, and grows back when that window goes', async () => {
    f = fakeCore();
    const chat = await f.chat();
    const wide = f.core.connectClient();
    const narrow = f.core.connectClient();
    const term = (await wide.call('terminal.open', { chatId: chat.id, cols: 200, rows: 50 })) as { terminalId: string };
    const size = async () => (await f.core.terminal.list({ chatId: chat.id })).terminals.map((t) => [t.cols, t.rows]);
    await narrow.call('terminal.resize', { terminalId: term.terminalId, cols: 80, rows: 60 });
    expect(await size()).toEqual([[80, 50]]);
    // The wide window moving its edge does not make the shell wider than the narrow one shows.
    await wide.call('terminal.resize', { terminalId: term.terminalId, cols: 180, rows: 50 });
    expect(await size()).toEqual([[80, 50]]);
    narrow.dispose();
    await expect.poll(size).toEqual([[180, 50]]);
    wide.dispose();
  });

  it('keeps the sandbox from idling while a terminal is open, and lets it idle once the terminal ends', async () => {
    f = fakeCore();
    const chat = await f.chat(IDLE_ONE_MINUTE);
    const term = await f.core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    await f.core.sandbox.exec({ chatId: chat.id, command: 'true' });
    f.clock.advance(30 * 60_000);
    expect(running(f)).toEqual([true]);
    await f.core.terminal.close({ terminalId: term.terminalId });
    f.clock.advance(60_000);
    await expect.poll(() => running(f)).toEqual([false]);
    expect(f.of('terminal.exit').map((e) => e.reason)).toEqual(['The terminal was closed.']);
  });

  it('a shell that exits by itself releases its hold too (no forgotten lease)', async () => {
    f = fakeCore();
    const chat = await f.chat(IDLE_ONE_MINUTE);
    const term = await f.core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    await f.core.terminal.input({ terminalId: term.terminalId, data: 'exit\r' });
    await expect.poll(() => f.of('terminal.exit').map((e) => e.reason)).toEqual(['The shell exited.']);
    f.clock.advance(60_000);
    await expect.poll(() => running(f)).toEqual([false]);
  });

  it('starts a chat’s terminals again, in place and saying why, when its folders change: the same terminal sees the new folder', async () => {
    f = fakeCore();
    const chat = await f.chat();
    const term = await f.core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    await f.core.workspace.attach({ chatId: chat.id, path: f.folder('site'), mode: 'readwrite' });
    const output = () => f!.of('terminal.data').filter((d) => d.terminalId === term.terminalId).map((d) => d.data).join('');
    await expect.poll(output).toContain('this terminal started again');
    await expect.poll(async () => (await f!.core.terminal.list({ chatId: chat.id })).terminals.map((t) => [t.terminalId, t.title, t.state])).toEqual([
      [term.terminalId, term.title, 'running'],
    ]);
    await expect.poll(async () => f!.core.terminal.input({ terminalId: term.terminalId, data: 'pwd\r' }).then(() => true, () => false)).toBe(true);
    await expect.poll(output).toContain('/workspace\r\n');
    expect(f.of('terminal.exit')).toEqual([]);
    expect(f.engine.containers.size).toBe(1);
  });

  it('gives a half-typed line back to the shell that starts again in the recreated sandbox', async () => {
    f = fakeCore();
    const chat = await f.chat();
    const term = await f.core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    const output = () => f!.of('terminal.data').filter((d) => d.terminalId === term.terminalId).map((d) => d.data).join('');
    await f.core.terminal.input({ terminalId: term.terminalId, data: 'pw' });
    await f.core.workspace.attach({ chatId: chat.id, path: f.folder('site'), mode: 'readwrite' });
    await expect.poll(output).toContain('this terminal started again');
    // Enter, typed once the new shell runs, runs the whole line: the keys typed before were given to it.
    await expect.poll(async () => f!.core.terminal.input({ terminalId: term.terminalId, data: 'd\r' }).then(() => true, () => false)).toBe(true);
    await expect.poll(output).toContain('/workspace\r\n');
  });

  it('a new terminal takes the place of the chat’s ended ones', async () => {
    f = fakeCore();
    const chat = await f.chat();
    const first = await f.core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    await f.core.terminal.input({ terminalId: first.terminalId, data: 'exit\r' });
    await expect.poll(() => f!.of('terminal.exit').length).toBe(1);
    const second = await f.core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    expect((await f.core.terminal.list({ chatId: chat.id })).terminals.map((t) => t.terminalId)).toEqual([second.terminalId]);
  });
});
