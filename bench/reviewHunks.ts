/**
 * Apply by hunk against git's own apply: 100 chosen hunks across 50 files of a Review copy applied
 * to the user's folder with review.applyLines, against `git apply` of the same hunks as one patch
 * on the same folder (the user's repository itself, so both write the same directory: on ext4
 * without a journal, as this machine's root, a create's cost grows with the inodes freed in its
 * directory's block group in the last seconds, and two folders can land in different groups;
 * bench/fileSystem.ts). Each Berth run is undone (review.undoApply) before the next; each git
 * run is reset with `git checkout -- .` and the files given back to the sandbox user. The first
 * run is shown apart: later ones find the base's folders and the new base's changes kept
 * (review/diffMemo), as a second apply on the same base (after an undo) does. CPU: Berth's
 * process and the git processes it ran (/proc/self/stat), against git apply's own (bash's
 * time), averaged over the runs.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BerthCore } from '../electron/main/core.js';
import { parseFilePatch, wholeHunk } from '../shared/diffHunks.js';
import { fileSystemOf } from './fileSystem.js';
import { ms, summarize } from './stats.js';

const FILES = 50;
const TARGET_RATIO = 2;
const CLOCK_TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** CPU time (ms) of this process's children that ended and were waited for (/proc/self/stat cutime + cstime). */
function childrenCpuMs(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * CLOCK_TICK_MS;
}

/** CPU time (ms) of one `git apply`, from bash's `time` (getrusage of the child, to the millisecond). */
function gitApplyCpuMs(cwd: string, patchFile: string): number {
  const out = execFileSync('bash', ['-c', 'TIMEFORMAT="%3U %3S"; { time git -c safe.directory=* apply "$1" ; } 2>&1', 'bash', patchFile], {
    cwd, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: os.tmpdir(), GIT_CONFIG_NOSYSTEM: '1' },
  });
  const [user, sys] = out.trim().split('\n').at(-1)!.split(' ').map(Number);
  return ((user ?? 0) + (sys ?? 0)) * 1000;
}

function git(cwd: string, args: string[], input?: string): string {
  return execFileSync('git', ['-c', 'safe.directory=*', '-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], {
    cwd, encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024, env: { PATH: process.env.PATH, HOME: os.tmpdir(), GIT_CONFIG_NOSYSTEM: '1' },
  });
}

const body = (i: number, edit: boolean) =>
  `${Array.from({ length: 40 }, (_, l) => (edit && (l === 3 || l === 30) ? `file ${i} line ${l} changed by the chat` : `file ${i} line ${l}`)).join('\n')}\n`;

export async function benchHunks(core: BerthCore, profile: string, root: string, runs: number): Promise<void> {
  const repo = path.join(root, 'hunks-repo');
  fs.mkdirSync(repo, { recursive: true });
  for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(repo, `f${i}.txt`), body(i, false));
  git(repo, ['init', '-q', '-b', 'main']);
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'hunks']);
  // The sandbox user (1000) writes the copy, which starts as the folder's owner has it.
  const giveBack = () => execFileSync('chown', ['-R', '1000:1000', repo]);
  giveBack();
  const reset = () => {
    git(repo, ['checkout', '--', '.']);
    giveBack();
  };

  const chat = await core.chats.create({ profile });
  const { attachment } = await core.workspace.attach({ chatId: chat.id, path: repo, mode: 'review' });
  const script = Array.from({ length: FILES }, (_, i) => `printf '%s' '${Buffer.from(body(i, true)).toString('base64')}' | base64 -d > /workspace/f${i}.txt`).join(' && ');
  const r = await core.sandbox.exec({ chatId: chat.id, command: script });
  if (r.exitCode !== 0) throw new Error(`the chat could not write its copy: ${r.output}`);

  const { copies } = await core.review.changes({ chatId: chat.id, hostPath: attachment.hostPath, diffs: false });
  const copy = copies[0]!;
  const files = [];
  let patch = '';
  let hunks = 0;
  for (const f of copy.files) {
    const d = await core.review.diff({ chatId: chat.id, hostPath: attachment.hostPath, path: f.path });
    const p = parseFilePatch(d.diff ?? '');
    hunks += p.hunks.length;
    const all = p.hunks.map(wholeHunk);
    files.push({ path: f.path, removed: all.flatMap((x) => x.removed), added: all.flatMap((x) => x.added) });
    patch += d.diff ?? '';
  }
  if (files.length !== FILES || hunks !== 2 * FILES) throw new Error(`expected ${2 * FILES} hunks in ${FILES} files, got ${hunks} in ${files.length}`);
  const patchFile = path.join(root, 'hunks.patch');
  fs.writeFileSync(patchFile, patch);

  const berth: number[] = [];
  const peerTimes: number[] = [];
  let berthCpu = 0;
  for (let run = 0; run < runs; run++) {
    const g0 = performance.now();
    git(repo, ['apply', patchFile]);
    peerTimes.push(performance.now() - g0);
    reset();

    const [b0, cpu0, kids0] = [performance.now(), process.cpuUsage(), childrenCpuMs()];
    const out = await core.review.applyLines({ chatId: chat.id, hostPath: attachment.hostPath, version: copy.version, files });
    berth.push(performance.now() - b0);
    const cpu = process.cpuUsage(cpu0);
    berthCpu += (cpu.user + cpu.system) / 1000 + childrenCpuMs() - kids0;
    if (!out.ok) throw new Error(`applyLines refused: ${out.message}`);
    const undone = await core.review.undoApply({ chatId: chat.id, hostPath: attachment.hostPath });
    if (!undone.ok) throw new Error(`undo refused: ${undone.message}`);
  }
  let peerCpu = 0;
  for (let run = 0; run < runs; run++) {
    peerCpu += gitApplyCpuMs(repo, patchFile);
    reset();
  }
  const b = summarize(berth);
  const g = summarize(peerTimes);
  const ratio = b.median / g.median;
  console.log('');
  console.log(`Apply by hunk: ${hunks} hunks across ${FILES} files (${runs} runs, medians); the folder is on ${fileSystemOf(repo)}`);
  console.log('| metric | Berth review.applyLines | git apply (one patch) | ratio | target |');
  console.log('|---|---|---|---|---|');
  console.log(`| apply ${hunks} chosen hunks | ${ms(b.median)} | ${ms(g.median)} | ${ratio.toFixed(2)}× | ≤ ${TARGET_RATIO}×${ratio <= TARGET_RATIO ? '' : ' (missed)'} |`);
  console.log(`| first run | ${ms(berth[0]!)} | ${ms(peerTimes[0]!)} | | |`);
  // CPU does not wait on the machine's other work: Berth's process (its share of the run) and the git it ran, per apply and per hunk.
  const perHunk = (total: number) => `${(total / runs).toFixed(1)} ms (${((total / runs / hunks) * 1000).toFixed(0)} µs per hunk)`;
  console.log(`| CPU per apply (mean) | ${perHunk(berthCpu)} | ${perHunk(peerCpu)} | ${(berthCpu / peerCpu).toFixed(2)}× | |`);
  await core.chats.delete({ chatId: chat.id });
}
