/**
 * A pooled chat's first folder arrives in the container it keeps (review/slotFolders.ts): its
 * idle terminals start again there, and a terminal where something runs, or where the user has
 * half typed a line, is kept and told where the folder is. Nothing typed is lost either way.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Harness } from '../support/harness.js';
import { watchTerminals } from '../support/terminalScreens.js';
import { waitFor } from '../support/waitFor.js';
import { pooledChat } from '../support/warmPool.js';

const h = new Harness();
afterAll(() => h.cleanup(), 120_000);

describe('terminals when a pooled chat’s first folder arrives', () => {
  it('starts an idle shell again in the folder and keeps a shell with a half-typed line, which the user then finishes', async () => {
    const core = h.core();
    const profile = (await h.profile(core, { warmPool: 1 })).name;
    const { chat, containerId } = await pooledChat(core, profile);
    const screens = watchTerminals(core);
    const idle = await core.terminal.open({ chatId: chat.id, cols: 120, rows: 24 });
    const typing = await core.terminal.open({ chatId: chat.id, cols: 120, rows: 24 });
    for (const t of [idle, typing]) {
      await core.terminal.input({ terminalId: t.terminalId, data: 'echo "ready-$((40+2))"\r' });
      await waitFor(async () => screens.screen(t.terminalId).includes('ready-42'), 'the shell answering');
    }
    // The user has started a command and not pressed Enter yet.
    await core.terminal.input({ terminalId: typing.terminalId, data: 'echo "half-$((6*7))' });
    await waitFor(async () => screens.screen(typing.terminalId).includes('half-$((6*7))'), 'the typed line echoed');

    await core.workspace.attach({ chatId: chat.id, path: h.workspace('notes', { 'todo.txt': 'one\n' }) });
    expect((await core.sandbox.status({ chatId: chat.id })).containerId).toBe(containerId);

    await waitFor(async () => screens.screen(idle.terminalId).includes('this terminal started again there'), 'the idle terminal starting again');
    await core.terminal.input({ terminalId: idle.terminalId, data: 'cat todo.txt\r' });
    await waitFor(async () => screens.screen(idle.terminalId).includes('one'), 'the folder in the restarted shell');

    await waitFor(async () => screens.screen(typing.terminalId).includes('were kept'), 'the typing terminal told, not restarted');
    expect(screens.screen(typing.terminalId)).not.toContain('started again');
    await core.terminal.input({ terminalId: typing.terminalId, data: '"\r' });
    await waitFor(async () => screens.screen(typing.terminalId).includes('half-42'), 'the half-typed line finished and run');
    expect(screens.exits.size).toBe(0);
    screens.dispose();
  });
});
