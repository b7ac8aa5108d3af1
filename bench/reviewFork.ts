/**
 * Forking a chat at a turn (chats.fork) whose Review copy holds the whole generated repository,
 * against `git worktree add` of the same repository, in the same run (npm run bench:review).
 *
 *   Berth: chats.fork after the chat's one turn (its tracking repository copied, the turn's tree
 *          checked out into the fork's copy and handed to the sandbox user, the home copied),
 *          then the fork's first sandbox.exec (its own container started with that copy)
 *   peer:  git worktree add <dir> -b <branch>
 *
 * The turn is a scripted model's one answer (test/support/openaiTestServer.ts on 127.0.0.1).
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BerthCore } from '../electron/main/core.js';
import { nextEvent } from '../test/support/events.js';
import { byTurn, startOpenAiTestServer } from '../test/support/openaiTestServer.js';
import { ms, summarize } from './stats.js';

const TARGET_RATIO = 2;
const KEY = 'sk-bench-0123456789abcdef';

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'safe.directory=*', ...args], { cwd, env: { PATH: process.env.PATH, HOME: os.tmpdir(), GIT_CONFIG_NOSYSTEM: '1' } });
}

export async function benchFork(core: BerthCore, image: string, root: string, repo: string, runs: number): Promise<void> {
  const server = await startOpenAiTestServer({ apiKey: KEY, responder: byTurn({ text: 'Done.' }) });
  const profile = (await core.profiles.create({ name: `bench-fork-${Date.now().toString(36)}`, image, agent: { baseUrl: server.baseUrl, model: 'bench', approval: 'auto' } } as Parameters<BerthCore['profiles']['create']>[0])).name;
  try {
    await core.agent.setKey({ profile, apiKey: KEY });
    const chat = await core.chats.create({ profile });
    await core.workspace.attach({ chatId: chat.id, path: repo, mode: 'review' });
    const ended = nextEvent(core, 'agent.state', (s) => s.chatId === chat.id && !s.running, 300_000);
    const { message } = await core.agent.send({ chatId: chat.id, text: 'look around' });
    await ended;
    const forkOnly: number[] = [];
    const forkReady: number[] = [];
    const worktree: number[] = [];
    for (let run = 0; run < runs; run++) {
      const wt = path.join(root, `fork-wt-${run}`);
      const w0 = performance.now();
      git(repo, 'worktree', 'add', '-q', wt, '-b', `bench-fork-${run}`);
      worktree.push(performance.now() - w0);
      const f0 = performance.now();
      const fork = await core.chats.fork({ chatId: chat.id, messageId: message.id });
      forkOnly.push(performance.now() - f0);
      const r = await core.sandbox.exec({ chatId: fork.chatId, command: 'test -f /workspace/pkg0/f0.txt' });
      forkReady.push(performance.now() - f0);
      if (r.exitCode !== 0) throw new Error(`the fork does not see its copy: ${r.output}`);
      await core.chats.delete({ chatId: fork.chatId });
      git(repo, 'worktree', 'remove', '--force', wt);
      git(repo, 'branch', '-q', '-D', `bench-fork-${run}`);
    }
    const w = summarize(worktree).median;
    const f = summarize(forkOnly).median;
    const fr = summarize(forkReady).median;
    console.log('');
    console.log(`Fork a chat at a turn, its copy holding the repository (${runs} runs, medians)`);
    console.log(`| metric | Berth | git worktree add | ratio | target |`);
    console.log(`|---|---|---|---|---|`);
    console.log(`| chats.fork (copy at the turn, home) | ${ms(f)} | ${ms(w)} | ${(f / w).toFixed(2)}× | ≤ ${TARGET_RATIO}×${f / w <= TARGET_RATIO ? '' : ' (missed)'} |`);
    console.log(`| fork-ready (fork + its first command) | ${ms(fr)} | ${ms(w)} | ${(fr / w).toFixed(2)}× | |`);
  } finally {
    await core.profiles.delete({ name: profile }).catch(() => undefined);
    await server.close();
  }
}
