/**
 * Ports bench: one python3 http.server (HTTP/1.1, so both paths keep connections alive) reached
 * through Berth's forward (relays over the Engine API, README: Ports) against the same server in
 * a container published the plain CLI's way (`docker run -p 127.0.0.1::8000`), in one run: a
 * static 16 MiB file (throughput, median of --runs downloads) and --small sequential small
 * requests (median latency), on one keep-alive connection each path, as a browser does.
 * Targets: throughput ≥ 0.5× and median small-request latency ≤ 2× the published port.
 *
 * Beside both, the same client through a plain Engine API forward (portsFloor.ts): the floor
 * that any forward keeping to the Engine API shares with Berth's.
 *
 * Also --fresh Upgrade requests (a WebSocket's handshake), each on a new connection through
 * the forward: what a connection's start costs (no target).
 *
 *   npm run bench:ports -- [--runs N] [--small N] [--fresh N]
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { createCore } from '../electron/main/core.js';
import { docker, removeInstanceContainers } from '../test/support/docker.js';
import { NET_IMAGE } from '../test/support/pretendInternet.js';
import { waitFor } from '../test/support/waitFor.js';
import { cpuSince, sampleCpu, type CpuSample } from './portsCpu.js';
import { plainEngineForward, type PlainForward } from './portsFloor.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, small: { type: 'string', default: '1000' }, fresh: { type: 'string', default: '50' } } });
const runs = Math.max(1, Number(values.runs));
const small = Math.max(1, Number(values.small));
const fresh = Math.max(1, Number(values.fresh));
const BIG = 16 * 1024 * 1024;
const SITE = `mkdir -p /tmp/site && cd /tmp/site && head -c ${BIG} /dev/urandom > big.bin && echo ok > small.txt`;
// http.server over HTTP/1.1 with Nagle off, as dev servers run (Node's servers set TCP_NODELAY):
// with it on, each answer's header and body writes wait out the client's delayed ACK (about 40 ms on both paths).
const SERVE = `cd /tmp/site && exec python3 -c "import http.server as h; R = h.SimpleHTTPRequestHandler; R.protocol_version = 'HTTP/1.1'; R.disable_nagle_algorithm = True; h.ThreadingHTTPServer(('', 8000), R).serve_forever()"`;

/**
 * The client runs in a worker thread, as a browser is a process of its own: in the bench's main
 * thread it would take turns with Berth's forward (the same event loop) and halve both.
 */
const CLIENT = String.raw`
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const { origin, headers, runs, small, big } = workerData;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// Each phase starts when the main thread has read the CPU counters (it answers).
const mark = (phase) => new Promise((resolve) => (parentPort.once('message', resolve), parentPort.postMessage({ mark: phase })));
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const get = (file) => new Promise((resolve, reject) => {
  http.get(origin + '/' + file, { agent, headers }, (res) => {
    let n = 0;
    res.on('data', (c) => (n += c.length));
    res.on('end', () => (res.statusCode === 200 ? resolve(n) : reject(new Error(origin + '/' + file + ': ' + res.statusCode))));
    res.on('error', reject);
  }).on('error', reject);
});
(async () => {
  await get('small.txt');
  await mark('big');
  const rates = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const n = await get('big.bin');
    if (n !== big) throw new Error(origin + ': got ' + n + ' bytes of ' + big);
    rates.push(n / 1024 / 1024 / ((performance.now() - t) / 1000));
  }
  await mark('small');
  const times = [];
  for (let i = 0; i < small; i++) {
    const t = performance.now();
    await get('small.txt');
    times.push(performance.now() - t);
  }
  agent.destroy();
  await mark('fresh');
  // New connections: an Upgrade request (a WebSocket's handshake) takes a fresh connection
  // through the forward each time, never a kept one; the time to the answer's head.
  const fresh = [];
  for (let i = 0; i < workerData.fresh; i++) {
    const t = performance.now();
    await new Promise((resolve, reject) => {
      const req = http.get(origin + '/small.txt', { agent: false, headers: { ...headers, connection: 'Upgrade', upgrade: 'websocket' } });
      const done = (res, socket) => ((socket ?? res.socket).destroy(), resolve());
      req.on('response', (res) => done(res));
      req.on('upgrade', (res, socket) => done(res, socket));
      req.on('error', reject);
    });
    fresh.push(performance.now() - t);
  }
  await mark('end');
  parentPort.postMessage({ mbPerSecond: median(rates), medianMs: median(times), freshMs: median(fresh) });
})().catch((e) => { throw e; });
`;

interface Measured {
  mbPerSecond: number;
  medianMs: number;
  freshMs: number;
  /** CPU ms per MiB downloaded, per small request, per new connection. */
  cpu: { big: CpuSample; small: CpuSample; fresh: CpuSample };
}

function measure(origin: string, headers: Record<string, string>, sample: () => CpuSample): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CLIENT, { eval: true, workerData: { origin, headers, runs, small, big: BIG, fresh } });
    const at: Record<string, CpuSample> = {};
    worker.on('message', (m: { mark?: string } & Omit<Measured, 'cpu'>) => {
      if (m.mark) {
        at[m.mark] = sample();
        worker.postMessage('go');
        return;
      }
      const per = (from: string, to: string, n: number): CpuSample => {
        const d = cpuSince(at[from] as CpuSample, at[to] as CpuSample);
        return { berth: d.berth / n, engine: d.engine / n, containers: d.containers / n };
      };
      resolve({ ...m, cpu: { big: per('big', 'small', (runs * BIG) / 1024 / 1024), small: per('small', 'fresh', small), fresh: per('fresh', 'end', fresh) } });
    });
    worker.once('error', reject);
  });
}

async function reachable(origin: string): Promise<boolean> {
  return new Promise((resolve) => {
    http.get(`${origin}/small.txt`, { agent: false }, (res) => (res.resume(), resolve(res.statusCode === 200))).on('error', () => resolve(false));
  });
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-ports-'));
  const core = createCore({ dataDir, reapIntervalMs: 0 });
  const instance = core.instanceId;
  let published: string | null = null;
  let floor: PlainForward | null = null;
  try {
    const profile = (await core.profiles.create({ name: `bench-ports-${process.pid}`, image: NET_IMAGE, egress: 'none' })).name;
    const chat = await core.chats.create({ profile });
    await core.sandbox.exec({ chatId: chat.id, command: `${SITE} && (nohup sh -c ${JSON.stringify(SERVE)} >/dev/null 2>&1 &)` });
    await waitFor(async () => (await core.ports.list({ chatId: chat.id })).ports.some((p) => p.port === 8000), 'the sandbox server');
    const forward = await core.ports.open({ chatId: chat.id, port: 8000 });
    const first = await new Promise<string>((resolve, reject) =>
      http.get(forward.url, { agent: false }, (res) => (res.resume(), resolve(String(res.headers['set-cookie']?.[0] ?? '').split(';')[0] as string))).on('error', reject),
    );

    published = await docker('run', '-d', '--rm', '--label', `berth.app=bench-ports-${instance}`, '-p', '127.0.0.1::8000', NET_IMAGE, 'sh', '-c', `${SITE} && ${SERVE}`);
    const hostPort = (await docker('port', published, '8000/tcp')).split('\n')[0]?.split(':').pop();
    const plain = `http://127.0.0.1:${hostPort}`;
    await waitFor(() => reachable(plain), 'the published server');

    const sandboxId = (await docker('ps', '-q', '--no-trunc', '--filter', `label=berth.instance=${instance}`)).split('\n').filter(Boolean);
    const publishedId = (await docker('inspect', '-f', '{{.Id}}', published)).trim();
    const viaBerth = () => sampleCpu(sandboxId, []);
    const viaCli = () => sampleCpu([publishedId], [hostPort as string]);
    // Alternate, so load on the shared machine falls on both paths alike.
    floor = await plainEngineForward(publishedId);
    const viaFloor = `http://127.0.0.1:${floor.port}`;
    const berth = await measure(`http://127.0.0.1:${forward.hostPort}`, { cookie: first }, viaBerth);
    const cli = await measure(plain, {}, viaCli);
    const bare = await measure(viaFloor, {}, viaCli);
    const berth2 = await measure(`http://127.0.0.1:${forward.hostPort}`, { cookie: first }, viaBerth);
    const cli2 = await measure(plain, {}, viaCli);
    const bare2 = await measure(viaFloor, {}, viaCli);
    const both = (x: CpuSample, y: CpuSample): CpuSample => ({ berth: (x.berth + y.berth) / 2, engine: (x.engine + y.engine) / 2, containers: (x.containers + y.containers) / 2 });
    const mean = (x: Measured, y: Measured) => ({
      mbPerSecond: (x.mbPerSecond + y.mbPerSecond) / 2,
      medianMs: (x.medianMs + y.medianMs) / 2,
      freshMs: (x.freshMs + y.freshMs) / 2,
      cpu: { big: both(x.cpu.big, y.cpu.big), small: both(x.cpu.small, y.cpu.small), fresh: both(x.cpu.fresh, y.cpu.fresh) },
    });
    const b = mean(berth, berth2);
    const c = mean(cli, cli2);
    const f = mean(bare, bare2);
    const throughput = b.mbPerSecond / c.mbPerSecond;
    const latency = b.medianMs / c.medianMs;
    console.log(`load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    console.log(`16 MiB file:   Berth forward ${b.mbPerSecond.toFixed(1)} MB/s, published port ${c.mbPerSecond.toFixed(1)} MB/s`);
    console.log(`small request: Berth forward ${b.medianMs.toFixed(2)} ms, published port ${c.medianMs.toFixed(2)} ms (median of ${small}, twice)`);
    console.log(`new connection: Berth forward ${b.freshMs.toFixed(2)} ms, published port ${c.freshMs.toFixed(2)} ms (median of ${fresh} upgrade requests, twice)`);
    const cpu = (x: CpuSample) => `Berth ${x.berth.toFixed(2)} + engine ${x.engine.toFixed(2)} + containers ${x.containers.toFixed(2)} = ${(x.berth + x.engine + x.containers).toFixed(2)} ms`;
    for (const [what, key] of [['per MiB        ', 'big'], ['per request    ', 'small'], ['per connection ', 'fresh']] as const) {
      console.log(`CPU ${what}forward: ${cpu(b.cpu[key])}; published: ${cpu(c.cpu[key])}`);
    }
    console.log(
      `plain Engine API forward (one exec and the smallest relay per connection, nothing of Berth's): ${f.mbPerSecond.toFixed(1)} MB/s (${(f.mbPerSecond / c.mbPerSecond).toFixed(2)}× the published port), ` +
        `small request ${f.medianMs.toFixed(2)} ms (${(f.medianMs / c.medianMs).toFixed(2)}×): the floor of any forward through the engine`,
    );
    console.log(`throughput ratio ${throughput.toFixed(2)} (target ≥ 0.5) ${throughput >= 0.5 ? 'PASS' : 'FAIL'}`);
    console.log(`latency ratio    ${latency.toFixed(2)} (target ≤ 2) ${latency <= 2 ? 'PASS' : 'FAIL'}`);
  } finally {
    await floor?.close();
    if (published) await docker('rm', '-f', published).catch(() => undefined);
    await core.dispose();
    await removeInstanceContainers(instance);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
