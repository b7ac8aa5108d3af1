/**
 * Berth benchmark: the core against the Docker CLI on the same image, in one run.
 *
 *   (a) cold chat-ready: chats.create + first sandbox.exec(':')  vs  docker run --rm IMAGE sh -c :
 *       and the same with a warm sandbox waiting (the profile's warmPool: 1), against the same CLI
 *   (b) warm round trip: sandbox.exec(':') on a running chat     vs  docker exec CONTAINER sh -c :
 *
 * Usage: npm run bench -- [--image IMG] [--runs N] [--cold-runs N] [--warm-runs N] [--json] [--trace]
 * See bench/README.md.
 */
import { wasInterrupted, watchInterrupt } from './interrupt.js';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { SandboxProgressEvent } from '../shared/contract.js';
import { createCore, type BerthCore } from '../electron/main/core.js';
import { containersWithLabel, docker, removeInstanceContainers } from '../test/support/docker.js';
import { commandLine, exitIfStillAlive, positiveInt, requireLocalImage } from './cli.js';
import { ms, summarize, table, type Summary } from './stats.js';
import { tracingEngine, type EngineCall, type TracingEngine } from './traceEngine.js';

const now = () => performance.now();

// ---------- options ----------

const USAGE = 'Usage: npm run bench -- [--image IMG] [--runs N] [--cold-runs N] [--warm-runs N] [--json] [--trace]';

interface Options {
  image: string;
  coldRuns: number;
  warmRuns: number;
  json: boolean;
  trace: boolean;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      image: { type: 'string' },
      runs: { type: 'string' },
      'cold-runs': { type: 'string' },
      'warm-runs': { type: 'string' },
      json: { type: 'boolean', default: false },
      trace: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const runs = values.runs === undefined ? undefined : positiveInt('runs', values.runs, 1, USAGE);
  return {
    image: values.image?.trim() || 'berth-test:busybox',
    coldRuns: positiveInt('cold-runs', values['cold-runs'], runs ?? 15, USAGE),
    warmRuns: positiveInt('warm-runs', values['warm-runs'], runs ?? 50, USAGE),
    json: values.json ?? false,
    trace: values.trace ?? false,
  };
}

// ---------- Docker CLI (test/support/docker.ts) ----------

async function berthContainers(label: string): Promise<string[]> {
  return containersWithLabel(label).catch(() => []);
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = now();
  const value = await fn();
  return [now() - t0, value];
}

// ---------- measurements ----------

type Phase = SandboxProgressEvent['phase'];

interface ColdSample {
  berthMs: number;
  cliMs: number;
  cliNetMs: number;
  /** Offsets from the start of the berth iteration, in ms. */
  chatCreatedMs: number;
  phases: Partial<Record<Phase, number>>;
  engineCalls: EngineCall[] | null;
}

interface Metric {
  name: string;
  berth: Summary;
  cli: Summary;
  ratio: number;
  target: number;
  pass: boolean;
  cliCommand: string;
}

function checkInterrupted(): void {
  if (wasInterrupted()) throw new Error('Interrupted.');
}

function assertOk(result: { exitCode: number; output: string }, what: string): void {
  if (result.exitCode !== 0) throw new Error(`${what} exited ${result.exitCode}: ${result.output.slice(0, 500)}`);
}

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2));
  const command = commandLine('bench', 'bench/run.ts', (script) => `tsx ${script}`);
  const runId = randomBytes(4).toString('hex');
  const profile = `bench-${runId}`;

  const serverVersion = await docker('version', '--format', '{{.Server.Version}}');
  await requireLocalImage(opts.image);

  console.log(`command: ${command}`);
  console.log(`image:   ${opts.image}`);
  console.log(`runs:    cold ${opts.coldRuns}, warm ${opts.warmRuns} (core and CLI alternate)`);
  console.log(`engine:  Docker ${serverVersion}; node ${process.version}; ${os.cpus().length} CPUs; ${os.platform()} ${os.release()}`);
  console.log(`profile: ${profile} (network isolated)${opts.trace ? '; engine calls traced' : ''}`);
  const busy = await berthContainers('berth.app');
  if (busy.length) console.log(`note:    ${busy.length} berth.app container(s) from other processes exist now; concurrent engine load makes timings noisier`);
  console.log('');

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-'));
  const tracer: TracingEngine | null = opts.trace ? tracingEngine(now) : null;
  let core: BerthCore | null = null;
  let profileCreated = false;
  const marks = new Map<string, Partial<Record<Phase, number>>>();
  const cleanupErrors: string[] = [];
  let instanceId = '';

  try {
    core = createCore({ dataDir, reapIntervalMs: 0, ...(tracer ? { engine: tracer.engine } : {}) });
    instanceId = core.instanceId;
    const c = core;
    c.onEvent((event, payload) => {
      if (event !== 'sandbox.progress') return;
      const p = payload as SandboxProgressEvent;
      const m = marks.get(p.chatId) ?? {};
      m[p.phase] ??= now();
      marks.set(p.chatId, m);
    });
    await c.ready;

    const profileNetwork = (await c.profiles.create({ name: profile, image: opts.image, egress: 'open' })).networkName as string;
    profileCreated = true;

    // Warm-up, untimed: the profile network, the image's layers in the page cache, both paths once.
    {
      const chat = await c.chats.create({ profile, title: 'bench warm-up' });
      assertOk(await c.sandbox.exec({ chatId: chat.id, command: ':' }), 'warm-up exec');
      await c.chats.delete({ chatId: chat.id });
      marks.delete(chat.id);
      await docker('run', '--rm', opts.image, 'sh', '-c', ':');
    }

    // (a) cold chat-ready
    const cold: ColdSample[] = [];
    process.stdout.write('cold  ');
    for (let i = 0; i < opts.coldRuns; i++) {
      checkInterrupted();
      const runBerth = async () => {
        const calls = tracer?.begin() ?? null;
        const t0 = now();
        const chat = await c.chats.create({ profile, title: `bench cold ${i}` });
        const tChat = now();
        const result = await c.sandbox.exec({ chatId: chat.id, command: ':' });
        const t1 = now();
        tracer?.end();
        assertOk(result, 'cold exec');
        const m = marks.get(chat.id) ?? {};
        marks.delete(chat.id);
        const phases: Partial<Record<Phase, number>> = {};
        for (const [k, v] of Object.entries(m) as [Phase, number][]) phases[k] = v - t0;
        await c.chats.delete({ chatId: chat.id }); // untimed
        return { berthMs: t1 - t0, chatCreatedMs: tChat - t0, phases, engineCalls: calls?.map((e) => ({ ...e, startMs: e.startMs - t0 })) ?? null };
      };
      const runCli = async () => (await timed(() => docker('run', '--rm', opts.image, 'sh', '-c', ':')))[0];
      // Alternate which side goes first, so drift and caching affect both alike.
      let b: Awaited<ReturnType<typeof runBerth>>;
      let cliMs: number;
      if (i % 2 === 0) {
        b = await runBerth();
        cliMs = await runCli();
      } else {
        cliMs = await runCli();
        b = await runBerth();
      }
      // Context, not a target: the CLI on the same user-defined network a Berth chat joins.
      const cliNetMs = (await timed(() => docker('run', '--rm', '--network', profileNetwork, opts.image, 'sh', '-c', ':')))[0];
      cold.push({ ...b, cliMs, cliNetMs });
      process.stdout.write('.');
    }
    process.stdout.write('\n');

    // (a') chat-ready with a warm sandbox waiting: the same steps, on a profile with a pool of one.
    const pooledProfile = `${profile}-warm`;
    await c.profiles.create({ name: pooledProfile, image: opts.image, egress: 'open', warmPool: 1 });
    const warmWaiting = async () => {
      const deadline = now() + 120_000;
      while (c.warmReady(pooledProfile) < 1) {
        if (now() > deadline) throw new Error('No warm sandbox became ready within 2 minutes.');
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const pooled: { berthMs: number; cliMs: number }[] = [];
    process.stdout.write('pool  ');
    for (let i = 0; i < opts.coldRuns; i++) {
      checkInterrupted();
      await warmWaiting(); // untimed: the pool refills between chats
      const runBerth = async () => {
        const t0 = now();
        const chat = await c.chats.create({ profile: pooledProfile, title: `bench pooled ${i}` });
        assertOk(await c.sandbox.exec({ chatId: chat.id, command: ':' }), 'pooled exec');
        const t = now() - t0;
        marks.delete(chat.id);
        await c.chats.delete({ chatId: chat.id }); // untimed
        return t;
      };
      const runCli = async () => (await timed(() => docker('run', '--rm', opts.image, 'sh', '-c', ':')))[0];
      if (i % 2 === 0) {
        const berthMs = await runBerth();
        pooled.push({ berthMs, cliMs: await runCli() });
      } else {
        const cliMs = await runCli();
        pooled.push({ berthMs: await runBerth(), cliMs });
      }
      process.stdout.write('.');
    }
    process.stdout.write('\n');
    await c.profiles.delete({ name: pooledProfile });

    // (b) warm round trip, on one running chat and its container
    const chat = await c.chats.create({ profile, title: 'bench warm' });
    assertOk(await c.sandbox.exec({ chatId: chat.id, command: ':' }), 'warm first exec');
    const status = await c.sandbox.status({ chatId: chat.id });
    if (status.state !== 'running' || !status.containerId) throw new Error(`The warm chat's sandbox is ${status.state}, not running.`);
    const containerId = status.containerId;
    for (let i = 0; i < 3; i++) {
      await c.sandbox.exec({ chatId: chat.id, command: ':' });
      await docker('exec', containerId, 'sh', '-c', ':');
    }
    const warmBerth: number[] = [];
    const warmCli: number[] = [];
    process.stdout.write('warm  ');
    for (let i = 0; i < opts.warmRuns; i++) {
      checkInterrupted();
      const runBerth = async () => {
        const [t, result] = await timed(() => c.sandbox.exec({ chatId: chat.id, command: ':' }));
        assertOk(result, 'warm exec');
        warmBerth.push(t);
      };
      const runCli = async () => warmCli.push((await timed(() => docker('exec', containerId, 'sh', '-c', ':')))[0]);
      if (i % 2 === 0) {
        await runBerth();
        await runCli();
      } else {
        await runCli();
        await runBerth();
      }
      if (i % 5 === 4) process.stdout.write('.');
    }
    process.stdout.write('\n\n');

    // ---------- report ----------
    const metric = (name: string, berth: number[], cli: number[], target: number, cliCommand: string): Metric => {
      const b = summarize(berth);
      const d = summarize(cli);
      const ratio = b.median / d.median;
      return { name, berth: b, cli: d, ratio, target, pass: ratio <= target, cliCommand };
    };
    const metrics = [
      metric('cold chat-ready', cold.map((s) => s.berthMs), cold.map((s) => s.cliMs), 0.8, `docker run --rm ${opts.image} sh -c :`),
      metric('chat-ready, warm sandbox waiting', pooled.map((s) => s.berthMs), pooled.map((s) => s.cliMs), 0.1, `docker run --rm ${opts.image} sh -c :`),
      metric('warm exec round trip', warmBerth, warmCli, 0.05, `docker exec <container> sh -c :`),
    ];
    console.log(
      table(
        ['metric', 'berth median (p95)', 'docker CLI median (p95)', 'ratio', 'target', 'result'],
        metrics.map((m) => [
          m.name,
          `${ms(m.berth.median)} (${ms(m.berth.p95)})`,
          `${ms(m.cli.median)} (${ms(m.cli.p95)})`,
          `${m.ratio.toFixed(3)}x`,
          `<= ${m.target}x`,
          m.pass ? 'PASS' : 'MISS',
        ]),
      ),
    );
    console.log(`CLI side: ${metrics.map((m) => m.cliCommand).join(' | ')}`);
    const onNetwork = summarize(cold.map((s) => s.cliNetMs));
    console.log(
      `context: docker run --rm --network ${profileNetwork} ${opts.image} sh -c : took ${ms(onNetwork.median)} (p95 ${ms(onNetwork.p95)}); ` +
        `berth cold / that = ${((metrics[0]?.berth.median ?? Number.NaN) / onNetwork.median).toFixed(3)}x ` +
        "(a user-defined network's per-container set-up, which Docker's default bridge skips, is in Berth's cold time)",
    );

    // Where cold time goes: medians of each step, from the core's progress events.
    const steps: [string, (s: ColdSample) => number][] = [
      ['chats.create', (s) => s.chatCreatedMs],
      ['exec -> "creating" (lookups, network, image, home)', (s) => (s.phases.creating ?? Number.NaN) - s.chatCreatedMs],
      ['"creating" -> "starting" (create + attach)', (s) => (s.phases.starting ?? Number.NaN) - (s.phases.creating ?? Number.NaN)],
      ['"starting" -> "ready" (start + shell prelude)', (s) => (s.phases.ready ?? Number.NaN) - (s.phases.starting ?? Number.NaN)],
      ['"ready" -> exec returns (first command)', (s) => s.berthMs - (s.phases.ready ?? Number.NaN)],
    ];
    const coldMedian = metrics[0]?.berth.median ?? Number.NaN;
    const split = steps.map(([label, f]) => ({ step: label, ...summarize(cold.map(f).filter(Number.isFinite)) }));
    console.log('\ncold chat-ready split (berth, medians):');
    console.log(
      table(
        ['step', 'median', 'p95', 'share'],
        split.map((s) => [s.step, ms(s.median), ms(s.p95), `${((100 * s.median) / coldMedian).toFixed(0)}%`]),
      ),
    );

    let engineSplit: { method: string; calls: number; medianTotalMs: number }[] | null = null;
    if (tracer) {
      const methods = new Set(cold.flatMap((s) => s.engineCalls ?? []).map((e) => e.method));
      engineSplit = [...methods].map((method) => {
        const totals = cold.map((s) => (s.engineCalls ?? []).filter((e) => e.method === method).reduce((a, e) => a + e.durationMs, 0));
        const calls = (cold[0]?.engineCalls ?? []).filter((e) => e.method === method).length;
        return { method, calls, medianTotalMs: summarize(totals).median };
      });
      engineSplit.sort((a, b) => b.medianTotalMs - a.medianTotalMs);
      console.log('\nengine calls per cold chat-ready (median total per method; calls are sequential):');
      console.log(table(['engine method', 'calls', 'median total'], engineSplit.map((e) => [e.method, String(e.calls), ms(e.medianTotalMs)])));
    }

    if (opts.json) {
      const dir = fileURLToPath(new URL('./results/', import.meta.url));
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, 'latest.json');
      const out = {
        date: new Date().toISOString(),
        command,
        image: opts.image,
        runs: { cold: opts.coldRuns, warm: opts.warmRuns },
        environment: { docker: serverVersion, node: process.version, cpus: os.cpus().length, platform: `${os.platform()} ${os.release()}` },
        metrics,
        coldSplit: split,
        engineSplit,
        samples: {
          cold: cold.map((s) => ({ berthMs: s.berthMs, cliMs: s.cliMs, chatCreatedMs: s.chatCreatedMs, phases: s.phases })),
          warm: { berthMs: warmBerth, cliMs: warmCli },
        },
      };
      fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
      console.log(`\nwrote ${path.relative(process.cwd(), file)}`);
    }
  } finally {
    if (core) {
      if (profileCreated) {
        await core.profiles.delete({ name: profile }).catch((e: unknown) => cleanupErrors.push(`profiles.delete: ${String(e)}`));
      }
      await core.dispose().catch((e: unknown) => cleanupErrors.push(`dispose: ${String(e)}`));
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (instanceId) {
      // Belt and braces: nothing of this run may stay behind, even if profiles.delete failed.
      const left = await removeInstanceContainers(instanceId, { volumes: true }).catch((e: unknown) => {
        cleanupErrors.push(`removing leftover containers failed: ${String(e)}`);
        return [];
      });
      if (left.length) cleanupErrors.push(`removed ${left.length} leftover container(s) by hand`);
      const nets = (await docker('network', 'ls', '-q', '--filter', `label=berth.profile=${profile}`).catch(() => '')).split('\n').filter(Boolean);
      if (nets.length) {
        await docker('network', 'rm', ...nets).catch(() => undefined);
        cleanupErrors.push(`removed ${nets.length} leftover network(s) by hand`);
      }
    }
    for (const e of cleanupErrors) console.error(`cleanup: ${e}`);
    const mine = instanceId ? await berthContainers(`berth.instance=${instanceId}`) : [];
    const others = (await berthContainers('berth.app')).length - mine.length;
    console.log(
      `\ncleanup: profile deleted, core disposed, temp dataDir removed; this run's containers left: ${mine.length}` +
        (others > 0 ? ` (${others} other berth.app container(s) on the engine belong to other processes)` : '; no berth.app containers on the engine'),
    );
  }
}

watchInterrupt();

main().then(
  () => undefined,
  (error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
).finally(() => {
  exitIfStillAlive(() => 'bench: a handle kept the process alive after cleanup; exiting.');
});
