/**
 * Load: many chats at once, each running commands in its sandbox and a terminal that prints
 * all the time, for minutes. Not a test: it reports errors (there must be none), the main
 * process's memory at the start and the end, and the command round trip under that load.
 *   npm run bench:load -- [--image IMG] [--chats N] [--minutes N] [--pause-ms N]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createCore } from '../electron/main/core.js';
import { BUSYBOX, docker } from '../test/support/docker.js';
import { commandLine, exitIfStillAlive, positiveInt, requireLocalImage } from './cli.js';
import { ms, percentile } from './stats.js';

const USAGE = 'Usage: npm run bench:load -- [--image IMG] [--chats N] [--minutes N] [--pause-ms N]';

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function rssMb(): number {
  gc();
  return process.memoryUsage().rss / 2 ** 20;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { image: { type: 'string' }, chats: { type: 'string' }, minutes: { type: 'string' }, 'pause-ms': { type: 'string' } },
  });
  const image = values.image ?? BUSYBOX;
  const chats = positiveInt('chats', values.chats, 50, USAGE);
  const minutes = positiveInt('minutes', values.minutes, 5, USAGE);
  const pauseMs = positiveInt('pause-ms', values['pause-ms'], 200, USAGE);
  await requireLocalImage(image);
  console.log(`command: ${commandLine('bench:load', 'bench/load.ts', (s) => `node --expose-gc --import tsx ${s}`)}`);
  console.log(`machine: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-load-'));
  const core = createCore({ dataDir, reapIntervalMs: 0 });
  const profile = `bench-load-${process.pid}`;
  const errors: string[] = [];
  const fail = (what: string) => (error: unknown) => {
    errors.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
  };
  let terminalChars = 0;
  const unexpectedExits: string[] = [];
  let stopping = false;
  const sub = core.onEvent((event, payload) => {
    if (event === 'terminal.data') terminalChars += (payload as { data: string }).data.length;
    if (event === 'terminal.exit' && !stopping) unexpectedExits.push((payload as { reason: string }).reason);
  });
  try {
    await core.ready;
    const startRss = rssMb();
    await core.profiles.create({ name: profile, image, retention: { idleStopMinutes: 0, onQuit: 'stop' } });
    const ids: string[] = [];
    const setupStarted = Date.now();
    for (let i = 0; i < chats; i += 5) {
      await Promise.all(
        Array.from({ length: Math.min(5, chats - i) }, async (_, j) => {
          const chat = await core.chats.create({ profile, title: `load chat ${i + j}` });
          await core.sandbox.exec({ chatId: chat.id, command: 'echo ready' });
          const { terminalId } = await core.terminal.open({ chatId: chat.id, cols: 120, rows: 30 });
          // A terminal with output all the time, as a build or a log tail would have.
          await core.terminal.input({ terminalId, data: 'while :; do date; ls /; sleep 0.2; done\r' });
          ids.push(chat.id);
        }),
      );
    }
    const readyRss = rssMb();
    console.log(`setup:   ${ids.length} chats with a sandbox and a busy terminal in ${((Date.now() - setupStarted) / 1000).toFixed(0)} s`);

    const rtt: number[] = [];
    const until = Date.now() + minutes * 60_000;
    let wrong = 0;
    const rssSeries: number[] = [readyRss];
    const sampler = setInterval(() => rssSeries.push(process.memoryUsage().rss / 2 ** 20), 30_000);
    // The peer under the same load: the plain CLI's `docker exec` into one of these containers.
    const peer: number[] = [];
    const [peerContainer] = (await docker('ps', '-q', '--filter', `label=berth.profile=${profile}`)).split('\n');
    const peerLoop = (async () => {
      while (Date.now() < until && peerContainer) {
        const t0 = performance.now();
        await docker('exec', peerContainer, 'sh', '-c', ':').then(() => peer.push(performance.now() - t0), fail('docker exec (peer)'));
        await new Promise((r) => setTimeout(r, 1000));
      }
    })();
    await Promise.all(
      ids.map(async (chatId, n) => {
        for (let i = 0; Date.now() < until; i++) {
          const t0 = performance.now();
          try {
            const r = await core.sandbox.exec({ chatId, command: `echo ${n}-${i}; cd /tmp` });
            rtt.push(performance.now() - t0);
            if (r.exitCode !== 0 || r.output.trim() !== `${n}-${i}`) wrong++;
          } catch (error) {
            fail(`exec in chat ${n}`)(error);
          }
          await new Promise((r) => setTimeout(r, pauseMs));
        }
      }),
    );
    clearInterval(sampler);
    await peerLoop;
    const endRss = rssMb();
    stopping = true;
    const sorted = [...rtt].sort((a, b) => a - b);
    console.log(`ran:     ${minutes} min, ${rtt.length} commands (${(rtt.length / (minutes * 60)).toFixed(0)}/s), ${(terminalChars / 2 ** 20).toFixed(1)} MiB of terminal output`);
    console.log(`errors:  ${errors.length} failed commands, ${wrong} wrong outputs, ${unexpectedExits.length} terminals ended unexpectedly`);
    for (const e of [...new Set([...errors, ...unexpectedExits])].slice(0, 10)) console.log(`         ${e}`);
    console.log(`command round trip: p50 ${ms(percentile(sorted, 50))}, p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted[sorted.length - 1] ?? NaN)}`);
    const peerSorted = [...peer].sort((a, b) => a - b);
    console.log(`peer, \`docker exec C sh -c :\` once a second in the same run: p50 ${ms(percentile(peerSorted, 50))}, p99 ${ms(percentile(peerSorted, 99))} (${peer.length} runs)`);
    console.log(`machine load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    console.log(`main process heap used at the end: ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB`);
    console.log(`main process RSS: ${startRss.toFixed(0)} MB before the chats, ${readyRss.toFixed(0)} MB with them at the start, ${endRss.toFixed(0)} MB at the end (every 30 s: ${rssSeries.map((v) => v.toFixed(0)).join(' ')})`);
    if (errors.length || wrong || unexpectedExits.length) process.exitCode = 1;
  } finally {
    sub.dispose();
    stopping = true;
    await core.profiles.delete({ name: profile }).catch(() => undefined);
    await core.dispose();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main()
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  })
  .finally(() => exitIfStillAlive(() => 'bench:load: something still holds the process open; exiting.'));
