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

  it('ends a chat’s terminals, saying why, when its folders change; the next one gets the new folder', async () => {
    f = fakeCore();
    const chat = await f.chat();
    const term = await f.core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    await f.core.workspace.attach({ chatId: chat.id, path: f.folder('site') });
    expect(f.of('terminal.exit').map((e) => e.reason)).toEqual(['The chat’s folders changed. Restart the terminal to use the sandbox with them.']);
    await expect(f.core.terminal.input({ terminalId: term.terminalId, data: 'ls\r' })).rejects.toMatchObject({ code: 'container_vanished' });
    const again = await f.core.terminal.open({ chatId: chat.id, cols: 80, rows: 24 });
    await f.core.terminal.input({ terminalId: again.terminalId, data: 'pwd\r' });
    await expect.poll(() => f.of('terminal.data').map((d) => d.data).join('')).toContain('/workspace\r\n');
    expect(f.engine.containers.size).toBe(1);
  });
});
