/**
 * Mirror-back of a remote copy (sandboxContainers.syncOnce): a 1,000-file folder copy in a volume,
 * one file changed in the container before each round, brought back to a folder here in full
 * (every file written out and compared: the way before) and incrementally (fetchCopy's quick
 * check: only changed files written out and compared). Interleaved rounds on this machine's
 * engine; ratios within the run. Usage: npm run bench:mirror [rounds]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DockerEngine } from '../electron/main/engine/dockerEngine.js';
import { resolveEngineEndpoint } from '../electron/main/policy/engineEndpoint.js';
import { fetchCopy, fillCopy, mirrorCopy } from '../electron/main/workspace/remoteCopy.js';

const FILES = 1_000;
const rounds = Number(process.argv[2] ?? 7);
const name = `berth-bench-mirror-${process.pid}`;
const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8' }).trim();

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-mirror-'));
  const src = path.join(root, 'src');
  const minuteAgo = new Date(Date.now() - 60_000);
  for (let i = 0; i < FILES; i++) {
    const file = path.join(src, `d${i % 20}`, `f${i}.txt`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `file ${i}\n`.repeat(40));
    fs.utimesSync(file, minuteAgo, minuteAgo);
  }
  docker('volume', 'create', '--label', 'berth-bench=mirror', name);
  const id = docker('run', '-d', '--name', name, '--label', 'berth-bench=mirror', '-v', `${name}:/w/site`, 'berth-test:busybox', 'sleep', '3600');
  const engine = new DockerEngine(resolveEngineEndpoint(process.env, process.platform, os.homedir(), fs.existsSync));
  const place = { engine, containerId: id, containerPath: '/w/site' };
  try {
    await fillCopy(place, src, { uid: 0, gid: 0 });
    const full = path.join(root, 'full');
    const quick = path.join(root, 'quick');
    fs.cpSync(src, full, { recursive: true, preserveTimestamps: true });
    fs.cpSync(src, quick, { recursive: true, preserveTimestamps: true });
    const scratch = path.join(root, 'scratch');
    fs.mkdirSync(scratch);
    const times: { full: number[]; quick: number[] } = { full: [], quick: [] };
    for (let r = 0; r < rounds; r++) {
      for (const way of r % 2 === 0 ? (['full', 'quick'] as const) : (['quick', 'full'] as const)) {
        docker('exec', id, 'sh', '-c', `echo round ${r} ${way} >> /w/site/d${r % 20}/f${r}.txt`);
        const target = way === 'full' ? full : quick;
        const t0 = performance.now();
        const fetched = way === 'full' ? await fetchCopy(place, scratch) : await fetchCopy(place, scratch, target);
        mirrorCopy(fetched.dir, target, fetched.unchanged);
        times[way].push(performance.now() - t0);
        fs.rmSync(fetched.dir, { recursive: true, force: true });
        if (!fs.readFileSync(path.join(target, `d${r % 20}`, `f${r}.txt`), 'utf8').includes(`round ${r} ${way}`)) throw new Error(`${way}: the change did not come back`);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    const f = median(times.full);
    const q = median(times.quick);
    console.log(`mirror-back of ${FILES} files, one changed, ${rounds} interleaved rounds (loadavg ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`);
    console.log(`  full (every file written out and compared): median ${f.toFixed(0)} ms  [${times.full.map((t) => t.toFixed(0)).join(', ')}]`);
    console.log(`  incremental (quick check):                  median ${q.toFixed(0)} ms  [${times.quick.map((t) => t.toFixed(0)).join(', ')}]`);
    console.log(`  incremental / full: ${(q / f).toFixed(2)}`);
  } finally {
    docker('rm', '-f', '-v', name);
    docker('volume', 'rm', '-f', name);
    fs.rmSync(root, { recursive: true, force: true });
  }
}

void main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
