/**
 * A pooled chat's first folder, interleaved in one run on the same image and pool:
 *   (a) Review mode (a plain folder): the copy fills the warm sandbox's slot, no new container
 *   (b) Read-write: the same folder needs a container made with it (the path before slots)
 * Each sample: a new chat that took a warm sandbox, then attach + the first command (`ls`).
 * The copy itself is in both numbers only for (a); the ratio is (a) / (b).
 *
 * Usage: npm run bench:slots -- [--image IMG] [--runs N]
 */
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

const USAGE = 'Usage: npm run bench:slots -- [--image IMG] [--runs N]';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { image: { type: 'string' }, runs: { type: 'string' } } });
  const image = values.image ?? 'berth-test:busybox';
  const runs = positiveInt('runs', values.runs, 8, USAGE);
  await requireLocalImage(image);
  console.log(`command: ${commandLine('bench:slots', 'bench/slots.ts', (s) => `tsx ${s}`)}`);
  console.log(`image:   ${image}; runs: ${runs} each, interleaved; ${os.cpus().length} CPUs`);

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-slots-'));
  const folder = path.join(dataDir, '..', `berth-bench-slots-folder-${randomBytes(4).toString('hex')}`);
  fs.mkdirSync(folder);
  for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(folder, `f${i}.txt`), `file ${i}\n`);
  fs.chownSync(folder, 1000, 1000);
  let core: BerthCore | null = null;
  const profile = `bench-slots-${randomBytes(4).toString('hex')}`;
  try {
    core = createCore({ dataDir, reapIntervalMs: 0 });
    const c = core;
    await c.ready;
    await c.profiles.create({ name: profile, image, egress: 'none', warmPool: 1 });
    const pooledChat = async () => {
      const deadline = performance.now() + 120_000;
      while (c.warmReady(profile) < 1) {
        if (performance.now() > deadline) throw new Error('No warm sandbox became ready within 2 minutes.');
        await new Promise((r) => setTimeout(r, 20));
      }
      const chat = await c.chats.create({ profile });
      const before = (await c.sandbox.status({ chatId: chat.id })).containerId;
      return { chat, before };
    };
    const samples: Record<'review' | 'readwrite', number[]> = { review: [], readwrite: [] };
    const firstCommand: Record<'review' | 'readwrite', number[]> = { review: [], readwrite: [] };
    const recreated: Record<'review' | 'readwrite', number> = { review: 0, readwrite: 0 };
    for (let i = 0; i < runs * 2; i++) {
      const mode = i % 2 === 0 ? 'review' : 'readwrite';
      const { chat, before } = await pooledChat();
      const t0 = performance.now();
      await c.workspace.attach({ chatId: chat.id, path: folder, mode });
      const t1 = performance.now();
      const out = await c.sandbox.exec({ chatId: chat.id, command: 'ls /workspace | wc -l' });
      const t = performance.now() - t0;
      if (out.output.trim().split('\n').pop() !== '20') throw new Error(`${mode}: the folder was not there: ${out.output}`);
      if ((await c.sandbox.status({ chatId: chat.id })).containerId !== before) recreated[mode]++;
      samples[mode].push(t);
      firstCommand[mode].push(performance.now() - t1);
      await c.chats.delete({ chatId: chat.id });
    }
    const r = summarize(samples.review);
    const w = summarize(samples.readwrite);
    console.log('');
    const rc = summarize(firstCommand.review);
    const wc = summarize(firstCommand.readwrite);
    console.log(`pooled chat, attach + first command   median     p95   first command alone (median)   container recreated`);
    console.log(`  Review (copy fills the slot)        ${ms(r.median).padStart(8)} ${ms(r.p95).padStart(8)}   ${ms(rc.median).padStart(8)}                       ${recreated.review}/${runs}`);
    console.log(`  Read-write (new container)          ${ms(w.median).padStart(8)} ${ms(w.p95).padStart(8)}   ${ms(wc.median).padStart(8)}                       ${recreated.readwrite}/${runs}`);
    console.log(`  ratio Review / Read-write (median): ${(r.median / w.median).toFixed(2)}× in all; first command ${(rc.median / wc.median).toFixed(3)}×`);
  } finally {
    const instance = core?.instanceId;
    if (core) {
      await core.profiles.delete({ name: profile }).catch(() => undefined);
      await core.dispose().catch(() => undefined);
    }
    if (instance) await removeInstanceContainers(instance).catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}).finally(() => {
  exitIfStillAlive(() => 'bench:slots: a handle kept the process alive after cleanup; exiting.');
});
