/**
 * What Berth adds to an agent's tool call, beside `docker exec` of the same command in the same
 * run, on the real engine with the scripted model (real HTTP and SSE on 127.0.0.1):
 *
 *   tool call: from the model's answer (the scripted server hands out a step with a terminal
 *              call) to the next request carrying the tool's result, against `docker exec` of
 *              the same command in the same container (CLI: a process, the engine API round trip).
 *              Target: Berth's time ≤ 0.2 × docker exec's.
 *   compaction: Berth's CPU time to decide and build a summary request for a 200-turn
 *              conversation (the model's time excluded: it answers at once, in process).
 *   search:    the agent's search tool over a 50,000-file folder, against the same search run
 *              directly in the container (rg where the image has it; else the grep it falls back to).
 *
 * Usage: npx tsx bench/agent.ts [--runs N] [--image berth-test:bookworm]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { AgentMessage } from '../shared/contract.js';
import { createCore } from '../electron/main/core.js';
import { TurnContext } from '../electron/main/agent/turnContext.js';
import type { StoredAgentMessage } from '../electron/main/store/agentRepositories.js';
import type { Store } from '../electron/main/store/repositories.js';
import type { SandboxTools } from '../electron/main/agent/sandboxTools.js';
import { runTurn } from '../test/support/agentDriver.js';
import { docker, removeInstanceContainers } from '../test/support/docker.js';
import { startOpenAiTestServer, type Step } from '../test/support/openaiTestServer.js';
import { positiveInt, requireLocalImage } from './cli.js';
import { ms, summarize } from './stats.js';

const USAGE = 'Usage: npx tsx bench/agent.ts [--runs N] [--image berth-test:bookworm]';
const { values } = parseArgs({ args: process.argv.slice(2), options: { runs: { type: 'string' }, image: { type: 'string' } }, strict: true });
const runs = positiveInt('runs', values.runs, 30, USAGE);
const image = values.image ?? 'berth-test:bookworm';
await requireLocalImage(image);

const COMMAND = 'echo bench';
const KEY = 'sk-bench-agent';

async function compactionCpu(): Promise<{ cpuMs: number; messages: number }> {
  const stored: StoredAgentMessage[] = [];
  for (let t = 0; t < 200; t++) {
    const base = { chatId: 'c', taskId: null, parentCallId: null, toolCalls: [], done: true, createdAt: t } satisfies Partial<AgentMessage>;
    stored.push({ message: { ...base, id: `u${t}`, role: 'user', content: `turn ${t}: run the tests and fix what fails` }, results: {} });
    const call = { id: `c${t}`, name: 'terminal', arguments: '{"command":"npm test"}', status: 'done' as const, command: 'npm test', cwd: '/workspace', exitCode: 1, durationMs: 5, output: 'x', subtaskId: null };
    stored.push({ message: { ...base, id: `a${t}`, role: 'assistant', content: 'Running the tests.', toolCalls: [call] }, results: { [call.id]: `exit code 1\n${'FAIL src/a.test.ts › case\n'.repeat(80)}` } });
    stored.push({ message: { ...base, id: `b${t}`, role: 'assistant', content: 'One test fails; fixed it.' }, results: {} });
  }
  const store = { agentMessages: { forChat: () => stored, save: () => undefined } } as unknown as Store;
  const context = new TurnContext({
    store, tools: {} as SandboxTools, clock: { now: () => 0 } as never, save: () => undefined,
    complete: async () => ({ content: 'summary', toolCalls: [], finishReason: 'stop' }),
    listModels: async () => [],
  });
  const run = { chatId: 'c', baseUrl: 'http://127.0.0.1:1/v1', model: 'm', apiKey: null, caller: { chatId: 'c', taskId: undefined }, profileWindow: 32_768 };
  const samples: number[] = [];
  for (let i = 0; i < 20; i++) {
    const before = process.cpuUsage();
    await context.messages(run, [{ containerPath: '/workspace', readOnly: false }], null, []);
    const used = process.cpuUsage(before);
    samples.push((used.user + used.system) / 1000);
  }
  return { cpuMs: summarize(samples).median, messages: stored.length };
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-agent-'));
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-agent-ws-'));
  const core = createCore({ dataDir, reapIntervalMs: 0 });
  const instance = core.instanceId;
  const arrivals: number[] = [];
  const handed: number[] = [];
  let next: Step = { text: 'done' };
  const server = await startOpenAiTestServer({
    apiKey: KEY,
    responder: () => {
      const step = next;
      next = { text: 'done' };
      return step;
    },
    // Berth's part starts when the answer's first byte goes out and ends when the request with
    // the result has arrived: the scripted server's own parsing and building are not counted.
    marks: { received: () => arrivals.push(performance.now()), answering: () => handed.push(performance.now()) },
  });
  try {
    // 50,000 small files in 500 folders, owned by the sandbox user.
    for (let d = 0; d < 500; d++) {
      const dir = path.join(folder, `d${d}`);
      fs.mkdirSync(dir);
      for (let f = 0; f < 100; f++) fs.writeFileSync(path.join(dir, `f${f}.txt`), `line one\nvalue ${d * 100 + f}\n${f === 7 && d === 250 ? 'NEEDLE-42\n' : ''}`);
    }
    await docker('run', '--rm', '-v', `${folder}:/w`, image, 'chown', '-R', '1000:1000', '/w');
    const profile = (await core.profiles.create({ name: `bench-agent-${process.pid}`, image, egress: 'none', agent: { baseUrl: server.baseUrl, model: 'test-model', approval: 'auto' } })).name;
    await core.agent.setKey({ profile, apiKey: KEY });
    const chat = await core.chats.create({ profile });
    await core.workspace.attach({ chatId: chat.id, path: folder, mode: 'readwrite' });
    await core.agent.setOptions({ chatId: chat.id, instructions: false });
    await core.sandbox.exec({ chatId: chat.id, command: 'true' });
    const id = (await core.sandbox.status({ chatId: chat.id })).containerId as string;

    // One tool call: from handing out the model's answer (the turn's first request) to the
    // arrival of the request carrying its result (the second).
    const wrapped = async (name: string, args: object): Promise<number> => {
      next = { toolCalls: [{ name, arguments: args }] };
      arrivals.length = 0;
      handed.length = 0;
      await runTurn(core, chat.id, 'go', undefined, 120_000);
      return (arrivals[1] as number) - (handed[0] as number);
    };
    const cliTime = async (args: string[]) => {
      const started = performance.now();
      await docker('exec', '-u', '1000:1000', id, ...args);
      return performance.now() - started;
    };
    const berth: number[] = [];
    const cli: number[] = [];
    await wrapped('terminal', { command: COMMAND });
    let cpuMs = 0;
    for (let i = 0; i < runs; i++) {
      const cpu = process.cpuUsage();
      berth.push(await wrapped('terminal', { command: COMMAND }));
      const used = process.cpuUsage(cpu);
      cpuMs += (used.user + used.system) / 1000;
      cli.push(await cliTime(['sh', '-c', COMMAND]));
    }
    const b = summarize(berth).median;
    const c = summarize(cli).median;
    console.log(`load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    console.log(`tool call (${COMMAND}): Berth ${ms(b)} (answer received to result sent), docker exec ${ms(c)} (median of ${runs})`);
    console.log(`ratio ${(b / c).toFixed(3)} (target ≤ 0.2) ${b / c <= 0.2 ? 'PASS' : 'FAIL'}`);
    // Not bound by this machine's load: the CPU this process spent per call (Berth, and the
    // scripted model server's share of the turn, which runs in it too).
    console.log(`CPU per tool call in this process: ${ms(cpuMs / runs)} (Berth and the scripted model server; the whole turn)`);

    const compaction = await compactionCpu();
    console.log(`compaction: ${ms(compaction.cpuMs)} CPU to plan and build the summary request of a ${compaction.messages}-message (200-turn) conversation (median of 20; model time excluded)`);

    const hasRg = (await docker('exec', id, 'sh', '-c', 'command -v rg || true')).trim() !== '';
    const direct = hasRg ? ['rg', '-n', 'NEEDLE-42', '/workspace'] : ['grep', '-rnE', 'NEEDLE-42', '/workspace'];
    const searchBerth: number[] = [];
    const searchCli: number[] = [];
    for (let i = 0; i < 5; i++) {
      searchBerth.push(await wrapped('search', { pattern: 'NEEDLE-42' }));
      searchCli.push(await cliTime(direct));
    }
    console.log(`search of 50,000 files: Berth's search tool ${ms(summarize(searchBerth).median)}, ${direct.slice(0, 2).join(' ')} by docker exec ${ms(summarize(searchCli).median)} (median of 5${hasRg ? '' : '; the image has no rg, so both use grep'})`);
  } finally {
    await core.dispose();
    await removeInstanceContainers(instance);
    await server.close();
    await docker('run', '--rm', '-v', `${folder}:/w`, image, 'rm', '-rf', '/w/*').catch(() => undefined);
    fs.rmSync(folder, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
