/**
 * A folder attached to a chat that already ran something: the agent's next command and the
 * chat's terminals start in the folder, as they would have had it been there from the start.
 */
import { describe, expect, it } from 'vitest';
import { history, runTurn, toolCalls } from '../support/agentDriver.js';
import { BUSYBOX } from '../support/docker.js';
import { Harness } from '../support/harness.js';
import { useAgentBench } from '../support/agentBench.js';
import { byTurn } from '../support/openaiTestServer.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
const bench = useAgentBench(h);
const screen = (id: string) => bench.screens.screen(id);


describe('a folder attached after the chat ran something', () => {
  for (const mode of ['review', 'readwrite'] as const) {
    it(`the agent's next command runs in the folder (${mode})`, async () => {
      const chat = await bench.core.chats.create({ profile: await bench.agentProfile() });
      bench.server.setResponder(byTurn(
        { toolCalls: [{ name: 'terminal', arguments: { command: 'echo "where=$(pwd)"' } }] },
        { text: 'ok' },
        { toolCalls: [{ name: 'terminal', arguments: { command: 'echo "where=$(pwd)"; ls' } }] },
        { text: 'ok' },
      ));
      expect((await runTurn(bench.core, chat.id, 'Where are you?')).error).toBeNull();
      expect(toolCalls(await history(bench.core, chat.id))[0]?.output).toContain('where=/home/');

      await bench.core.workspace.attach({ chatId: chat.id, path: h.workspace('project', { 'seen.txt': 's' }), mode });
      expect((await runTurn(bench.core, chat.id, 'And now?')).error).toBeNull();
      const second = toolCalls(await history(bench.core, chat.id))[1]?.output ?? '';
      expect(second).toContain('where=/workspace');
      expect(second).toContain('seen.txt');
    }, 120_000);
  }

  for (const [mode, warmPool] of [['review', 0], ['readwrite', 0], ['review', 1], ['readwrite', 1]] as const) {
    it(`a terminal open before the folder starts again in it, saying why (busybox, ${mode}, pool ${warmPool})`, async () => {
      const p = await h.profile(bench.core, { image: BUSYBOX, warmPool });
      if (warmPool) await bench.warm(p.name);
      const chat = await bench.core.chats.create({ profile: p.name });
      const term = await bench.core.terminal.open({ chatId: chat.id, cols: 100, rows: 24 });
      await bench.core.terminal.input({ terminalId: term.terminalId, data: 'echo "before=$(pwd)"\n' });
      await waitFor(async () => screen(term.terminalId).includes('before=/home/') || undefined, 'the first pwd');
      await bench.core.workspace.attach({ chatId: chat.id, path: h.workspace('project', { 'seen.txt': 's' }), mode });
      await waitFor(async () => screen(term.terminalId).includes('folders changed') || undefined, 'the restart note', 60_000);
      const from = screen(term.terminalId).length;
      await bench.core.terminal.input({ terminalId: term.terminalId, data: 'echo "after=$(pwd)"; ls\n' });
      await waitFor(async () => screen(term.terminalId).slice(from).includes('seen.txt') || undefined, 'the listing', 60_000);
      expect(screen(term.terminalId).slice(from)).toContain('after=/workspace');
    }, 120_000);
  }

  it('a pooled chat: a terminal running something is kept when the first folder arrives, and told where it is', async () => {
    const p = await h.profile(bench.core, { image: BUSYBOX, warmPool: 1 });
    await bench.warm(p.name);
    const chat = await bench.core.chats.create({ profile: p.name });
    const term = await bench.core.terminal.open({ chatId: chat.id, cols: 200, rows: 24 });
    await bench.core.terminal.input({ terminalId: term.terminalId, data: 'KEPT=yes; sleep 600\n' });
    await waitFor(async () => (await bench.core.terminal.busy({ chatId: chat.id })).terminals.length > 0 || undefined, 'the sleep to run');
    await bench.core.workspace.attach({ chatId: chat.id, path: h.workspace('project', { 'seen.txt': 's' }) });
    await waitFor(async () => screen(term.terminalId).includes('cd /workspace]') || undefined, 'the note in the kept shell', 60_000);
    expect(screen(term.terminalId)).toContain('This shell and what runs in it were kept');
    await bench.core.terminal.input({ terminalId: term.terminalId, data: '\x03echo "kept=$KEPT"\n' });
    await waitFor(async () => screen(term.terminalId).includes('kept=yes') || undefined, 'the shell it had');
  }, 120_000);
});
