/**
 * App benchmarks: the main process's memory with 100 live chats (500 for the switch figure:
 * --chats 500), and in real Chromium against the browser host: terminal throughput (vs its peer
 * wetty and `docker exec -t`), chat switch time at 100 chats, and the Changes panel's first
 * paint with 1,000 changed files.
 *   npm run bench:app -- [--image IMG] [--chats N] [--switch-chats N] [--blob-mib N] [--wetty-webgl] [--changed-files N] [--skip-memory] [--skip-browser] [--skip-switch] [--skip-throughput] [--skip-changes] [--trace DIR]
 * See bench/README.md.
 */
import { wasInterrupted, watchInterrupt } from './interrupt.js';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { containersWithLabel, docker } from '../test/support/docker.js';
import type { BrowserBenchResult, RunCpu } from './browser.js';
import type { ChangesBenchResult } from './changesPanel.js';
import { commandLine, exitIfStillAlive, positiveInt, quoteArg, requireLocalImage } from './cli.js';
import { measureMemory, type MemoryResult } from './memory.js';
import { ms, summarize, table } from './stats.js';

const USAGE =
  'Usage: npm run bench:app -- [--image IMG] [--chats N] [--switch-chats N] [--blob-mib N] [--wetty-webgl] [--changed-files N] [--skip-memory] [--skip-browser] [--skip-switch] [--skip-throughput] [--skip-changes] [--trace DIR]';

const TARGET_RSS_MB = 250;
/** Berth's terminal against `docker exec -t … cat > /dev/null` (any terminal reads through a TTY). */
const TARGET_THROUGHPUT_RATIO = 0.5;
/** Berth's terminal against its peer, wetty, on the same container, size, font and Chromium. */
const TARGET_WETTY_RATIO = 1.5;
/** One frame at 60 Hz, at SWITCH_CHATS open chats. */
const TARGET_SWITCH_P95_MS = 16;
const SWITCH_CHATS = 100;
const SWITCHES = 40;
const THROUGHPUT_RUNS = 3;
const TARGET_CHANGES_PAINT_MS = 1000;
const CHANGES_RUNS = 5;

async function berthAppContainers(): Promise<number> {
  return (await containersWithLabel('berth.app').catch(() => [])).length;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      image: { type: 'string', default: 'berth-test:busybox' },
      chats: { type: 'string' },
      'blob-mib': { type: 'string' },
      'switch-chats': { type: 'string' },
      'wetty-webgl': { type: 'boolean', default: false },
      'skip-switch': { type: 'boolean', default: false },
      'skip-throughput': { type: 'boolean', default: false },
      trace: { type: 'string' },
      'skip-memory': { type: 'boolean', default: false },
      'skip-browser': { type: 'boolean', default: false },
      'changed-files': { type: 'string' },
      'skip-changes': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const image = values.image as string;
  const chats = positiveInt('chats', values.chats, 100, USAGE);
  const blobMib = positiveInt('blob-mib', values['blob-mib'], 16, USAGE);
  const skipMemory = values['skip-memory'] === true;
  const skipBrowser = values['skip-browser'] === true;
  const switchChats = positiveInt('switch-chats', values['switch-chats'], SWITCH_CHATS, USAGE);
  const skipSwitch = values['skip-switch'] === true;
  const skipThroughput = values['skip-throughput'] === true;
  const wettyWebgl = values['wetty-webgl'] === true;
  const changedFiles = positiveInt('changed-files', values['changed-files'], 1000, USAGE);
  const skipChanges = values['skip-changes'] === true;

  const serverVersion = await docker('version', '--format', '{{.Server.Version}}');
  await requireLocalImage(image);
  const envNotes = ['DOCKER_HOST', 'BERTH_CHROMIUM'].filter((k) => process.env[k] !== undefined).map((k) => `${k}=${process.env[k]}`);
  console.log(`command: ${commandLine('bench:app', 'bench/app.ts', (script) => ['node', ...process.execArgv, script].map(quoteArg).join(' '))}`);
  console.log(`image:   ${image}`);
  console.log(`engine:  Docker ${serverVersion}; node ${process.version}; ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? '?'}); ${Math.round(os.totalmem() / 2 ** 30)} GiB; ${os.platform()} ${os.release()}`);
  console.log(`env:     ${envNotes.length ? envNotes.join(' ') : '(no DOCKER_HOST, no BERTH_CHROMIUM)'}`);
  console.log(
    `runs:    ${skipMemory ? 'memory skipped' : `memory with ${chats} chats`}; ` +
      (skipBrowser ? 'browser skipped' : `browser: ${skipThroughput ? 'throughput skipped' : `throughput ${blobMib} MiB x ${THROUGHPUT_RUNS} per side (+1 warm-up; Berth, wetty${wettyWebgl ? ' (WebGL)' : ''}, docker exec, docker exec -t)`}, ${skipSwitch ? 'chat switch skipped' : `${SWITCHES} chat switches over ${switchChats} chats (+1 warm-up round)`}`) +
      `; ${skipChanges ? 'changes panel skipped' : `changes panel with ${changedFiles} changed files, ${CHANGES_RUNS} cold + ${CHANGES_RUNS} warm opens (+1 warm-up each)`}`,
  );
  // Other processes share the CPUs: every figure here is a ratio within this run, and the load says how quiet it was.
  const load = () => os.loadavg().map((x) => x.toFixed(1)).join(', ');
  console.log(`load:    ${load()} (1, 5, 15 min) at start`);
  const busy = await berthAppContainers();
  if (busy) console.log(`note:    ${busy} berth.app container(s) from other processes exist now; concurrent engine load makes timings noisier`);
  console.log('');

  let mem: MemoryResult | null = null;
  if (!skipMemory) {
    console.log(`memory: starting ${chats} live chats (container, shell and terminal each)…`);
    mem = await measureMemory(image, chats, (line) => console.log(line));
  }

  let web: BrowserBenchResult | null = null;
  if (!skipBrowser && !wasInterrupted()) {
    // Loaded only now: Playwright in this process before the memory measurement would count in its RSS.
    const { ensureRendererBuilt, measureBrowser } = await import('./browser.js');
    await ensureRendererBuilt((line) => console.log(line));
    web = await measureBrowser({
      image,
      blobMib,
      throughputRuns: THROUGHPUT_RUNS,
      chats: skipSwitch ? 0 : switchChats,
      throughput: !skipThroughput,
      traceDir: typeof values.trace === 'string' ? path.resolve(values.trace) : null,
      switches: SWITCHES,
      wettyWebgl,
      log: (line) => console.log(line),
      interrupted: () => wasInterrupted(),
    });
  }

  let changesPanel: ChangesBenchResult | null = null;
  if (!skipChanges && !wasInterrupted()) {
    const { ensureRendererBuilt } = await import('./browser.js');
    const { measureChangesPanel } = await import('./changesPanel.js');
    await ensureRendererBuilt((line) => console.log(line));
    changesPanel = await measureChangesPanel({ image, files: changedFiles, runs: CHANGES_RUNS, log: (line) => console.log(line), interrupted: () => wasInterrupted() });
  }

  const rows: string[][] = [];
  if (mem) {
    rows.push([
      `main process RSS, ${mem.chats} live chats`,
      `${mem.rssMb.toFixed(0)} MB (heap ${mem.heapUsedMb.toFixed(0)} MB; at start ${mem.baselineRssMb.toFixed(0)} MB)`,
      `< ${TARGET_RSS_MB} MB`,
      mem.rssMb < TARGET_RSS_MB ? 'PASS' : 'MISS',
    ]);
  }
  const tp = web?.throughput ?? null;
  if (tp) {
    rows.push([
      `terminal throughput, ${(tp.blobBytes / 2 ** 20).toFixed(1)} MiB cat (Berth / wetty ${tp.wetty.version})`,
      `${tp.wettyRatio.toFixed(2)}× (Berth ${tp.berthMiBps.toFixed(1)} MiB/s, wetty ${tp.wettyMiBps.toFixed(1)} MiB/s; medians)`,
      `≥ ${TARGET_WETTY_RATIO}×`,
      tp.wettyRatio >= TARGET_WETTY_RATIO ? 'PASS' : 'MISS',
    ]);
    rows.push([
      `terminal throughput, ${(tp.blobBytes / 2 ** 20).toFixed(1)} MiB cat (Berth / docker exec -t … cat > /dev/null)`,
      `${tp.ratio.toFixed(2)}× (Berth ${tp.berthMiBps.toFixed(1)} MiB/s, docker exec -t ${tp.cliTtyMiBps.toFixed(1)} MiB/s; medians)`,
      `≥ ${TARGET_THROUGHPUT_RATIO}×`,
      tp.ratio >= TARGET_THROUGHPUT_RATIO ? 'PASS' : 'MISS',
    ]);
  }
  const sw = web?.switching ?? null;
  if (sw) {
    rows.push([
      `chat switch, click to the chat's terminal painted (${sw.summary.n} switches, ${sw.chats} chats)`,
      `p95 ${ms(sw.summary.p95)} (median ${ms(sw.summary.median)}, max ${ms(sw.summary.max)}; frames p95 ${sw.frames.p95.toFixed(0)})`,
      `p95 ≤ ${TARGET_SWITCH_P95_MS} ms`,
      sw.summary.p95 <= TARGET_SWITCH_P95_MS ? 'PASS' : 'MISS',
    ]);
  }
  const cp = changesPanel?.cold ?? null;
  if (changesPanel && cp) {
    rows.push([
      `Changes panel first paint, ${changesPanel.files} changed files (click to list + diff on screen, after a reload)`,
      `median ${ms(cp.median)} (p95 ${ms(cp.p95)}; warm re-open median ${changesPanel.warm ? ms(changesPanel.warm.median) : 'n/a'})`,
      `< ${TARGET_CHANGES_PAINT_MS} ms`,
      cp.median < TARGET_CHANGES_PAINT_MS ? 'PASS' : 'MISS',
    ]);
  }
  if (rows.length) console.log(`\n${table(['metric', 'value', 'target', 'result'], rows)}`);
  if (changesPanel) {
    const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
    console.log(`\nchanges panel: ${changesPanel.chromium}; cold runs (ms) ${fmt(changesPanel.coldSamples)}; warm runs (ms) ${fmt(changesPanel.warmSamples)}`);
    for (const note of changesPanel.cleanupNotes) console.error(`cleanup: ${note}`);
  }

  if (mem) {
    const deleted = mem.deleteSeconds === null ? 'deleting their profile failed' : `their profile deleted with them in ${mem.deleteSeconds.toFixed(0)} s`;
    console.log(`\nmemory: ${mem.chats} chats set up in ${mem.setupSeconds.toFixed(0)} s; ${deleted}`);
  }
  if (web) {
    console.log(`\nbrowser: ${web.chromium}; profile ${web.profile}`);
    if (tp) {
      const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
      const s = tp.split;
      console.log(`throughput: ${tp.blobBytes} bytes in 100-character lines; the terminal is ${tp.ttySize.replace(' ', ' rows × ')} columns`);
      console.log(
        table(
          ['throughput', 'runs (ms)', 'median', 'MiB/s'],
          [
            ['Berth: Enter to END-42 on screen', fmt(tp.berthMs), ms(s.shownMs), tp.berthMiBps.toFixed(1)],
            [`wetty ${tp.wetty.version} (${tp.wetty.renderer}): Enter to END-42 on screen`, fmt(tp.wettyMs), ms(summarize(tp.wettyMs).median), tp.wettyMiBps.toFixed(1)],
            ['CLI: docker exec C cat /tmp/blob > /dev/null', fmt(tp.cliMs), ms(summarize(tp.cliMs).median), tp.cliMiBps.toFixed(1)],
            ['CLI through a TTY: docker exec -t C cat /tmp/blob > /dev/null', fmt(tp.cliTtyMs), ms(summarize(tp.cliTtyMs).median), tp.cliTtyMiBps.toFixed(1)],
          ],
        ),
      );
      console.log(
        `Berth split (medians, from Enter): first output frame at ${ms(s.firstDataMs)}, last at ${ms(s.lastDataMs)}, END-42 on screen at ${ms(s.shownMs)}; ` +
          `${s.frames.toFixed(0)} terminal.data frames (${(s.frameChars / Math.max(1, s.frames) / 1024).toFixed(1)} KiB each on average), ${s.acks.toFixed(0)} terminal.ack calls`,
      );
      const mib = tp.blobBytes / 2 ** 20;
      const perMib = (runs: RunCpu[], k: keyof RunCpu) => `${(summarize(runs.map((c) => c[k])).median / mib).toFixed(1)}`;
      const runsOf = (runs: RunCpu[]) => runs.map((c) => `${c.renderer.toFixed(0)}+${c.gpu.toFixed(0)}`).join(', ');
      console.log(
        `Chromium CPU per run, renderer+GPU ms (Enter to END-42): Berth ${runsOf(tp.cpu.berth)}; wetty ${runsOf(tp.cpu.wetty)}. ` +
          `Medians per MiB: Berth renderer ${perMib(tp.cpu.berth, 'renderer')} ms, GPU ${perMib(tp.cpu.berth, 'gpu')} ms; wetty renderer ${perMib(tp.cpu.wetty, 'renderer')} ms, GPU ${perMib(tp.cpu.wetty, 'gpu')} ms`,
      );
      // Any terminal reads through a TTY; this says how much of the gap is the TTY itself.
      console.log(
        `ceiling: Docker's own TTY path reaches ${(tp.cliTtyMiBps / tp.cliMiBps).toFixed(2)}× of the plain CLI here; Berth reaches ${(tp.berthMiBps / tp.cliTtyMiBps).toFixed(2)}× of that TTY path`,
      );
    }
    if (sw) {
      const s = sw.summary;
      console.log(
        `chat switch: median ${ms(s.median)}, p95 ${ms(s.p95)}, min ${ms(s.min)}, max ${ms(s.max)} (in-page clock: click to the end of the first frame that draws the chat's terminal with its marker); ` +
          `frames after the click: median ${sw.frames.median.toFixed(0)}, p95 ${sw.frames.p95.toFixed(0)}, max ${sw.frames.max.toFixed(0)} (1: the next frame); page JS heap after the switches ${sw.pageHeapMb === null ? 'n/a' : `${sw.pageHeapMb.toFixed(0)} MB`}`,
      );
      console.log(
        `chat switch floor (interleaved): a click on the chat already open to the end of the next frame: median ${ms(sw.floor.median)}, p95 ${ms(sw.floor.p95)}, max ${ms(sw.floor.max)}; ` +
          `the switch above minus this is what the switch itself costs (median ${ms(sw.summary.median - sw.floor.median)}, p95 ${ms(sw.summary.p95 - sw.floor.p95)})`,
      );
    }
    for (const note of web.cleanupNotes) console.error(`cleanup: ${note}`);
  }

  console.log(`\nload: ${load()} (1, 5, 15 min) at the end`);
  const left = await berthAppContainers();
  console.log(`\ncleanup: ${left === 0 ? 'no berth.app containers on the engine' : `${left} berth.app container(s) on the engine (${busy} existed before this run)`}`);
  if (wasInterrupted()) console.log('interrupted: results above are partial');
}

watchInterrupt();

main()
  .catch((error: unknown) => {
    console.error(`bench:app failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  })
  .finally(() => {
    exitIfStillAlive(() => `bench:app: something kept the process alive after cleanup (${process.getActiveResourcesInfo().join(', ')}); exiting.`);
  });
