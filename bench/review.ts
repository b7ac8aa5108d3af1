/**
 * Review-mode chat-ready against `git worktree add`, on the same generated repository, in one run.
 *
 *   Berth: chats.create + workspace.attach (Review mode: the chat's copy on berth/<chat>) + the
 *          first sandbox.exec(':') in the chat's container
 *   peer:  git worktree add <dir> -b <branch>   (the usual way to give an agent its own checkout)
 *
 * Then, in the same chat, what a look at the copy costs while the chat runs (each read through
 * review/linkSafe into the copy's shadow, then git): a checkpoint with nothing changed, one after
 * the chat changed 10 files, and a Restore of the first (written back into the copy link-safe).
 *
 * The repository (default 50,000 files, 200 MB) is generated under the system temp folder and
 * removed at the end. Then forking a chat at a turn (bench/reviewFork.ts) against `git worktree add`,
 * and apply by hunk (bench/reviewHunks.ts): 100 chosen hunks across 50 files
 * against `git apply` of the same hunks as one patch.
 * Usage: npm run bench:review -- [--files N] [--mb N] [--runs N] [--image IMG] [--hunks-only] [--fork-only]
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createCore } from '../electron/main/core.js';
import { removeInstanceContainers, docker } from '../test/support/docker.js';
import { commandLine, exitIfStillAlive, positiveInt, requireLocalImage } from './cli.js';
import { benchFork } from './reviewFork.js';
import { benchHunks } from './reviewHunks.js';
import { ms, summarize } from './stats.js';

const USAGE = 'Usage: npm run bench:review -- [--files N] [--mb N] [--runs N] [--image IMG] [--hunks-only] [--fork-only]';
const TARGET_RATIO = 2;

function options() {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { files: { type: 'string' }, mb: { type: 'string' }, runs: { type: 'string' }, image: { type: 'string' }, 'hunks-only': { type: 'boolean' }, 'fork-only': { type: 'boolean' } },
    strict: true,
  });
  return {
    files: positiveInt('files', values.files, 50_000, USAGE),
    mb: positiveInt('mb', values.mb, 200, USAGE),
    runs: positiveInt('runs', values.runs, 3, USAGE),
    image: values.image ?? 'berth-test:busybox',
    hunksOnly: values['hunks-only'] ?? false,
    forkOnly: values['fork-only'] ?? false,
  };
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'safe.directory=*', '-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], {
    cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { PATH: process.env.PATH, HOME: os.tmpdir(), GIT_CONFIG_NOSYSTEM: '1' },
  });
}

/** A repository of `files` text files totalling about `mb` MB, 100 to a folder, committed once. */
function generateRepo(root: string, files: number, mb: number): string {
  const repo = path.join(root, 'repo');
  const size = Math.max(1, Math.floor((mb * 1024 * 1024) / files));
  for (let i = 0; i < files; i++) {
    const dir = path.join(repo, `pkg${Math.floor(i / 100)}`);
    if (i % 100 === 0) fs.mkdirSync(dir, { recursive: true });
    // Text that compresses like source code does not: random hex, so the bytes are real work.
    fs.writeFileSync(path.join(dir, `f${i}.txt`), randomBytes(Math.ceil(size / 2)).toString('hex').slice(0, size));
  }
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'generated');
  return repo;
}

async function main(): Promise<void> {
  const opts = options();
  await requireLocalImage(opts.image);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-review-'));
  const dataDir = path.join(root, 'data');
  const core = createCore({ dataDir, reapIntervalMs: 0 });
  const profile = `bench-review-${randomBytes(3).toString('hex')}`;
  let network: string | null = null;
  try {
    if (opts.hunksOnly) {
      network = (await core.profiles.create({ name: profile, image: opts.image })).networkName;
      await benchHunks(core, profile, root, Math.max(opts.runs, 5));
      return;
    }
    console.log(`Generating ${opts.files.toLocaleString('en-US')} files / ${opts.mb} MB in ${root} …`);
    const t0 = performance.now();
    const repo = generateRepo(root, opts.files, opts.mb);
    console.log(`  generated and committed in ${ms(performance.now() - t0)}`);
    network = (await core.profiles.create({ name: profile, image: opts.image })).networkName;
    if (opts.forkOnly) {
      await benchFork(core, opts.image, root, repo, opts.runs);
      return;
    }

    const berth: number[] = [];
    const attachOnly: number[] = [];
    const worktree: number[] = [];
    const idle: number[] = [];
    const tenChanged: number[] = [];
    const restore: number[] = [];
    for (let run = 0; run < opts.runs; run++) {
      // Alternate, so neither side always meets a warmer page cache.
      const wt = path.join(root, `wt-${run}`);
      const w0 = performance.now();
      git(repo, 'worktree', 'add', '-q', wt, '-b', `bench-${run}`);
      worktree.push(performance.now() - w0);

      const b0 = performance.now();
      const chat = await core.chats.create({ profile });
      await core.workspace.attach({ chatId: chat.id, path: repo, mode: 'review' });
      attachOnly.push(performance.now() - b0);
      const r = await core.sandbox.exec({ chatId: chat.id, command: 'test -f /workspace/pkg0/f0.txt' });
      berth.push(performance.now() - b0);
      if (r.exitCode !== 0) throw new Error(`the chat does not see its copy: ${r.output}`);
      // The first look reads the copy as attach left it; the ones timed are the chat's later turns.
      const first = await core.review.checkpoint({ chatId: chat.id, label: 'first' });
      const c0 = performance.now();
      await core.review.checkpoint({ chatId: chat.id, label: 'idle' });
      idle.push(performance.now() - c0);
      const edit = await core.sandbox.exec({ chatId: chat.id, command: 'for i in 0 1 2 3 4 5 6 7 8 9; do echo changed >> /workspace/pkg0/f$i.txt; done' });
      if (edit.exitCode !== 0) throw new Error(`the chat could not edit its copy: ${edit.output}`);
      const c1 = performance.now();
      await core.review.checkpoint({ chatId: chat.id, label: 'ten' });
      tenChanged.push(performance.now() - c1);
      const r0 = performance.now();
      await core.review.restore({ chatId: chat.id, checkpointId: first.id });
      restore.push(performance.now() - r0);

      await core.chats.delete({ chatId: chat.id });
      git(repo, 'worktree', 'remove', '--force', wt);
      git(repo, 'branch', '-q', '-D', `bench-${run}`);
    }
    const b = summarize(berth);
    const a = summarize(attachOnly);
    const w = summarize(worktree);
    const ratio = b.median / w.median;
    console.log('');
    console.log(`Review-mode chat-ready on ${opts.files.toLocaleString('en-US')} files / ${opts.mb} MB (${opts.runs} runs, medians)`);
    console.log(`| metric | Berth | git worktree add | ratio | target |`);
    console.log(`|---|---|---|---|---|`);
    console.log(`| chat-ready (create, Review attach, first command) | ${ms(b.median)} | ${ms(w.median)} | ${ratio.toFixed(2)}× | ≤ ${TARGET_RATIO}×${ratio <= TARGET_RATIO ? '' : ' (missed)'} |`);
    console.log(`| Review attach alone (copy made) | ${ms(a.median)} | ${ms(w.median)} | ${(a.median / w.median).toFixed(2)}× | |`);
    console.log(`| checkpoint, nothing changed | ${ms(summarize(idle).median)} | | | |`);
    console.log(`| checkpoint, 10 files changed | ${ms(summarize(tenChanged).median)} | | | |`);
    console.log(`| Restore of the first checkpoint | ${ms(summarize(restore).median)} | | | |`);
    await benchFork(core, opts.image, root, repo, opts.runs);
    await benchHunks(core, profile, root, Math.max(opts.runs, 5));
    console.log('');
    console.log(`Command: ${commandLine('bench:review', 'bench/review.ts', (s) => `npx tsx ${s}`)}`);
  } finally {
    await core.profiles.delete({ name: profile }).catch(() => undefined);
    const instance = core.instanceId;
    await core.dispose();
    await removeInstanceContainers(instance);
    if (network) await docker('network', 'rm', network).catch(() => undefined);
    fs.rmSync(root, { recursive: true, force: true });
  }
  exitIfStillAlive(() => 'bench/review.ts: something still holds the event loop; exiting.');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
