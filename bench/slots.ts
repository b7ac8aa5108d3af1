/**
 * A pooled chat's first folder, interleaved in one run on the same image and pools:
 *   (a) Review mode, a plain folder: the copy fills the warm sandbox's slot, no new container
 *   (b) Read-write: the same folder needs a container made with it (the path before slots)
 *   (c) Review mode, a git repository: the copy and its own copy of the history fill the slot
 *   (d) the same repository, its history borrowed through a read-only mount (before: a second
 *       core with no history copied, slotHistoryMaxBytes 0), so a container made with it
 * Each sample: a new chat that took a warm sandbox, then attach + the first command (`ls`).
 * The copy itself is in the numbers only for (a), (c) and (d); the ratios are (a)/(b) and (c)/(d).
 * The repository has the folder's 20 files and --history-mb of history besides (a large file
 * committed, then removed): what (c) copies.
 *
 * Usage: npm run bench:slots -- [--image IMG] [--runs N] [--history-mb N]
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createCore, type BerthCore } from '../electron/main/core.js';
import { removeInstanceContainers } from '../test/support/docker.js';
import { commandLine, exitIfStillAlive, positiveInt, requireLocalImage } from './cli.js';
import { ms, summarize } from './stats.js';

const USAGE = 'Usage: npm run bench:slots -- [--image IMG] [--runs N] [--history-mb N]';
type Case = 'review' | 'readwrite' | 'git' | 'gitMounted';
const CASES: readonly Case[] = ['review', 'readwrite', 'git', 'gitMounted'];
const LABELS: Record<Case, string> = {
  review: 'Review, plain folder (fills the slot)',
  readwrite: 'Read-write (new container)',
  git: 'Review, git repo (history copied)',
  gitMounted: 'Review, git repo (history mounted)',
};

function makeFolder(dir: string): void {
  fs.mkdirSync(dir);
  for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(dir, `f${i}.txt`), `file ${i}\n`);
}

function makeRepo(dir: string, historyMb: number): number {
  makeFolder(dir);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=B', '-c', 'user.email=b@example.com', ...args], { cwd: dir, env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', HOME: dir } });
  git('init', '-q', '-b', 'main');
  if (historyMb > 0) {
    fs.writeFileSync(path.join(dir, 'big.bin'), randomBytes(historyMb * 1024 * 1024));
    git('add', '-A');
    git('commit', '-q', '-m', 'big');
    fs.rmSync(path.join(dir, 'big.bin'));
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'files');
  git('gc', '-q');
  return Number(execFileSync('du', ['-sk', path.join(dir, '.git', 'objects')]).toString().split('\t')[0]) * 1024;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { image: { type: 'string' }, runs: { type: 'string' }, 'history-mb': { type: 'string' } } });
  const image = values.image ?? 'berth-test:busybox';
  const runs = positiveInt('runs', values.runs, 8, USAGE);
  const historyMb = values['history-mb'] === undefined ? 8 : Number(values['history-mb']);
  await requireLocalImage(image);
  console.log(`command: ${commandLine('bench:slots', 'bench/slots.ts', (s) => `tsx ${s}`)}`);
  console.log(`image:   ${image}; runs: ${runs} each, interleaved; ${os.cpus().length} CPUs; load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-slots-'));
  const tag = randomBytes(4).toString('hex');
  const folder = path.join(dataDir, '..', `berth-bench-slots-folder-${tag}`);
  const repo = path.join(dataDir, '..', `berth-bench-slots-repo-${tag}`);
  makeFolder(folder);
  const historyBytes = makeRepo(repo, historyMb);
  console.log(`repo:    20 files, history ${(historyBytes / (1024 * 1024)).toFixed(1)} MiB`);
  execFileSync('chown', ['-R', '1000:1000', folder, repo]);
  const cores: BerthCore[] = [];
  const profile = `bench-slots-${tag}`;
  try {
    const main = createCore({ dataDir: path.join(dataDir, 'a'), reapIntervalMs: 0 });
    // "Before": the same pool, but no history is copied into a slot (a git copy borrows it through a mount).
    const before = createCore({ dataDir: path.join(dataDir, 'b'), reapIntervalMs: 0, slotHistoryMaxBytes: 0 });
    cores.push(main, before);
    for (const c of cores) {
      await c.ready;
      await c.profiles.create({ name: profile, image, egress: 'none', warmPool: 1 });
    }
    const pooledChat = async (c: BerthCore) => {
      const deadline = performance.now() + 120_000;
      while (c.warmReady(profile) < 1) {
        if (performance.now() > deadline) throw new Error('No warm sandbox became ready within 2 minutes.');
        await new Promise((r) => setTimeout(r, 20));
      }
      const chat = await c.chats.create({ profile });
      return { chat, before: (await c.sandbox.status({ chatId: chat.id })).containerId };
    };
    const total = Object.fromEntries(CASES.map((k) => [k, [] as number[]])) as Record<Case, number[]>;
    const first = Object.fromEntries(CASES.map((k) => [k, [] as number[]])) as Record<Case, number[]>;
    const recreated = Object.fromEntries(CASES.map((k) => [k, 0])) as Record<Case, number>;
    for (let i = 0; i < runs; i++) {
      // Rotate the order, so no case always follows the same other.
      for (let j = 0; j < CASES.length; j++) {
        const kind = CASES[(i + j) % CASES.length] as Case;
        const c = kind === 'gitMounted' ? before : main;
        const { chat, before: was } = await pooledChat(c);
        const t0 = performance.now();
        await c.workspace.attach({ chatId: chat.id, path: kind === 'git' || kind === 'gitMounted' ? repo : folder, mode: kind === 'readwrite' ? 'readwrite' : 'review' });
        const t1 = performance.now();
        const out = await c.sandbox.exec({ chatId: chat.id, command: 'ls /workspace | wc -l' });
        const t = performance.now() - t0;
        if (out.output.trim().split('\n').pop() !== '20') throw new Error(`${kind}: the folder was not there: ${out.output}`);
        if ((await c.sandbox.status({ chatId: chat.id })).containerId !== was) recreated[kind]++;
        total[kind].push(t);
        first[kind].push(performance.now() - t1);
        await c.chats.delete({ chatId: chat.id });
      }
    }
    const s = Object.fromEntries(CASES.map((k) => [k, { all: summarize(total[k]), cmd: summarize(first[k]) }])) as Record<Case, { all: ReturnType<typeof summarize>; cmd: ReturnType<typeof summarize> }>;
    console.log('');
    console.log(`pooled chat, attach + first command        median      p95   first command alone (median)   container recreated`);
    for (const k of CASES) {
      console.log(`  ${LABELS[k].padEnd(40)} ${ms(s[k].all.median).padStart(8)} ${ms(s[k].all.p95).padStart(8)}   ${ms(s[k].cmd.median).padStart(8)}                       ${recreated[k]}/${runs}`);
    }
    console.log(`  ratio plain Review / Read-write (median): ${(s.review.all.median / s.readwrite.all.median).toFixed(2)}× in all; first command ${(s.review.cmd.median / s.readwrite.cmd.median).toFixed(3)}×`);
    console.log(`  ratio git copied / git mounted (median):  ${(s.git.all.median / s.gitMounted.all.median).toFixed(2)}× in all; first command ${(s.git.cmd.median / s.gitMounted.cmd.median).toFixed(3)}×`);
    console.log(`load after: ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  } finally {
    for (const core of cores) {
      const instance = core.instanceId;
      await core.profiles.delete({ name: profile }).catch(() => undefined);
      await core.dispose().catch(() => undefined);
      await removeInstanceContainers(instance).catch(() => undefined);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(folder, { recursive: true, force: true });
    fs.rmSync(repo, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}).finally(() => {
  exitIfStillAlive(() => 'bench:slots: a handle kept the process alive after cleanup; exiting.');
});
