/**
 * Review mode's file cap, measured by hand on a real folder: the time from "attach in Review
 * mode" to the refusal for a plain folder and a git repository of just over 1,000,000 files.
 *   npx tsx bench/reviewCap.ts <empty dir, ideally on tmpfs> [--files N]
 * e.g. mount -t tmpfs -o size=4g,nr_inodes=3000000 tmpfs /tmp/cap && npx tsx bench/reviewCap.ts /tmp/cap
 * The git repository's files are in its index (what the cap reads first), not checked out.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { REVIEW_LIMITS } from '../shared/review.js';
import { ReviewCopy } from '../electron/main/review/reviewCopy.js';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { files: { type: 'string' } } });
const root = positionals[0];
if (!root || !fs.existsSync(root) || fs.readdirSync(root).length > 0) throw new Error('Usage: npx tsx bench/reviewCap.ts <an existing empty folder> [--files N]');
const files = Number(values.files ?? REVIEW_LIMITS.maxCopyFiles + 1);
const PER_DIR = 1000;

async function timeRefusal(label: string, hostPath: string): Promise<void> {
  const t0 = performance.now();
  let outcome: string;
  try {
    const copy = await ReviewCopy.create({
      dir: path.join(root as string, `copy-${label}`), chatId: 'bench', hostPath, branch: 'berth/bench', contents: { ignored: false, include: [] },
      owner: null, now: Date.now(), progress: () => undefined,
    });
    outcome = `copy ${copy.meta.fileCount} files (not refused!)`;
  } catch (error) {
    outcome = `refused: ${error instanceof Error ? error.message : String(error)}`;
  }
  console.log(`${label}: ${(performance.now() - t0).toFixed(0)} ms to ${outcome}`);
}

const plain = path.join(root, 'plain');
let t = performance.now();
for (let i = 0; i < files; i++) {
  const dir = path.join(plain, `d${Math.floor(i / PER_DIR)}`);
  if (i % PER_DIR === 0) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `f${i % PER_DIR}`), '');
}
console.log(`made a plain folder of ${files} files in ${((performance.now() - t) / 1000).toFixed(1)} s`);
await timeRefusal('plain folder', plain);

const repo = path.join(root, 'repo');
fs.mkdirSync(repo);
t = performance.now();
const git = (args: string[], input?: string) => {
  const r = spawnSync('git', ['-c', 'user.name=B', '-c', 'user.email=b@b', ...args], { cwd: repo, input, maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`git ${args[0]} failed: ${r.stderr.toString()}`);
};
git(['init', '-q', '-b', 'main']);
const EMPTY_BLOB = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';
git(['hash-object', '-w', '--stdin'], '');
const lines: string[] = [];
for (let i = 0; i < files; i++) lines.push(`100644 ${EMPTY_BLOB}\td${Math.floor(i / PER_DIR)}/f${i % PER_DIR}\n`);
git(['update-index', '--index-info'], lines.join(''));
console.log(`made a git index of ${files} files in ${((performance.now() - t) / 1000).toFixed(1)} s`);
await timeRefusal('git repository', repo);
