/**
 * Undo this turn, Discard and Restore change a Review-mode chat's copy in place: the sandbox and
 * its terminals keep running (a shell's variables, a server started in it), the copy shows the
 * restored content inside the sandbox at once, and the sandbox user can edit what Berth wrote back.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { history, runTurn } from '../support/agentDriver.js';
import { BOOKWORM } from '../support/docker.js';
import { Harness, SANDBOX_GID, SANDBOX_UID, chownTree } from '../support/harness.js';
import { useAgentBench } from '../support/agentBench.js';
import { byTurn } from '../support/openaiTestServer.js';
import { waitFor } from '../support/waitFor.js';

const h = new Harness();
const bench = useAgentBench(h);
const screen = (id: string) => bench.screens.screen(id);

let marks = 0;
/** Types `command` into the terminal and returns what it printed, up to a marker it echoes last. */
async function typed(terminalId: string, command: string): Promise<string> {
  const done = `DONE${++marks}`;
  const from = screen(terminalId).length;
  await bench.core.terminal.input({ terminalId, data: `${command}; echo ${done}-$((1+1))\n` });
  await waitFor(async () => screen(terminalId).slice(from).includes(`${done}-2`) || undefined, `"${command}" in the terminal`, 60_000);
  return screen(terminalId).slice(from);
}

describe('Undo, Discard and Restore keep the sandbox and its terminals', () => {
  it('the same shell keeps its variable and its server, sees the restored file and can write it', async () => {
    const chat = await bench.core.chats.create({ profile: await bench.agentProfile() });
    const attached = await bench.core.workspace.attach({ chatId: chat.id, path: h.workspace('site', { 'a.txt': 'original\n' }) });
    expect(attached.attachment.mode).toBe('review');
    const hostPath = attached.attachment.hostPath;
    const term = await bench.core.terminal.open({ chatId: chat.id, cols: 200, rows: 24 });
    await typed(term.terminalId, 'KEEP=yes');
    const started = await typed(term.terminalId, 'sleep 600 & echo "server=$!"');
    const pid = /server=(\d+)/.exec(started)?.[1];
    expect(pid).toBeDefined();
    const { containerId } = await bench.core.sandbox.status({ chatId: chat.id });

    /** After each action: the same shell, its variable, its server, the restored content, writable by the sandbox user. */
    async function kept(content: string): Promise<void> {
      // Split words ("ali""ve") are what the shell prints, never the echo of what was typed.
      const seen = await typed(term.terminalId, `echo "kee""p=$KEEP"; kill -0 ${pid} && echo "ali""ve"; echo "[$(cat /workspace/a.txt)]"; echo more >> /workspace/a.txt && echo "wro""te"`);
      expect(seen).toContain('keep=yes');
      expect(seen).toMatch(/^alive\r?$/m);
      expect(seen).toContain(`[${content}]`);
      expect(seen).toMatch(/^wrote\r?$/m);
      expect(bench.screens.exits.get(term.terminalId)).toBeUndefined();
      expect((await bench.core.sandbox.status({ chatId: chat.id })).containerId).toBe(containerId);
    }

    // Discard: the copy matches the folder again.
    await typed(term.terminalId, 'echo edited > /workspace/a.txt');
    expect(await typed(term.terminalId, 'cat /workspace/a.txt')).toMatch(/^edited\r?$/m);
    expect((await bench.core.review.discard({ chatId: chat.id, hostPath })).discarded).toBe(1);
    await kept('original');

    // Restore a checkpoint.
    await typed(term.terminalId, 'echo at-checkpoint > /workspace/a.txt');
    await bench.core.review.checkpoint({ chatId: chat.id, label: 'mine' });
    await typed(term.terminalId, 'echo after-checkpoint > /workspace/a.txt');
    const { checkpoints } = await bench.core.review.checkpoints({ chatId: chat.id });
    const mine = checkpoints.find((c) => c.label === 'mine');
    expect((await bench.core.review.restore({ chatId: chat.id, checkpointId: mine?.id as string })).restored).toEqual(['a.txt']);
    await kept('at-checkpoint');

    // Undo this turn: the agent rewrote the file.
    await typed(term.terminalId, 'echo before-turn > /workspace/a.txt');
    bench.server.setResponder(byTurn({ toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'by the agent\n' } }] }, { text: 'done' }));
    expect((await runTurn(bench.core, chat.id, 'Rewrite a.txt')).error).toBeNull();
    expect(await typed(term.terminalId, 'cat /workspace/a.txt')).toContain('by the agent');
    const turn = (await history(bench.core, chat.id)).find((m) => m.role === 'user');
    expect((await bench.core.review.undoTurn({ chatId: chat.id, messageId: turn?.id as string })).restored).toEqual(['a.txt']);
    await kept('before-turn');
  }, 240_000);

  it('a git copy in a pooled chat’s slot: Discard keeps the shell, and git there sees the copy clean again', async () => {
    const repo = h.workspace('repo', { 'a.txt': 'committed\n' });
    execFileSync('sh', ['-c', 'git init -q -b main && git add -A && git -c user.name=U -c user.email=u@example.com commit -qm first'], {
      cwd: repo,
      env: { PATH: process.env.PATH, HOME: h.root, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.directory', GIT_CONFIG_VALUE_0: '*' },
    });
    chownTree(repo, SANDBOX_UID, SANDBOX_GID);
    const profile = await bench.agentProfile({ image: BOOKWORM, warmPool: 1 });
    await bench.warm(profile);
    const chat = await bench.core.chats.create({ profile });
    const pooled = (await bench.core.sandbox.status({ chatId: chat.id })).containerId;
    expect(pooled, 'the chat took the warm sandbox').toBeTruthy();
    const attached = await bench.core.workspace.attach({ chatId: chat.id, path: repo });
    expect(attached.notice).toBeNull();
    const term = await bench.core.terminal.open({ chatId: chat.id, cols: 200, rows: 24 });
    await typed(term.terminalId, 'KEEP=yes; cd /workspace && echo edited > a.txt');
    await bench.core.review.discard({ chatId: chat.id, hostPath: attached.attachment.hostPath });
    const seen = await typed(term.terminalId, 'echo "kee""p=$KEEP"; echo "[$(cat a.txt)]"; echo "st""atus=[$(git status --porcelain)]"; echo more >> a.txt && echo "wro""te"');
    expect(seen).toContain('keep=yes');
    expect(seen).toContain('[committed]');
    expect(seen).toContain('status=[]');
    expect(seen).toMatch(/^wrote\r?$/m);
    expect(bench.screens.exits.get(term.terminalId)).toBeUndefined();
    expect((await bench.core.sandbox.status({ chatId: chat.id })).containerId).toBe(pooled);
  }, 240_000);
});
