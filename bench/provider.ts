/**
 * One agent turn's provider call against the scripted OpenAI test server (real HTTP and SSE on
 * 127.0.0.1), beside a peer in the same run: plain `fetch` reading the same answer as text, the
 * floor of any client. With --baseline, another build of the client (e.g. the hand-written one
 * before the move to the openai SDK, extracted with `git archive`) runs in the same loop too.
 *
 *   turn: 40 streamed words and a tool call whose arguments come in fragments
 *   long: a 4 MiB answer in 1,024 chunks of 4 KiB (half the answer cap)
 *   cpu:  the turn's frames served from memory (fetch replaced), so only the client's own work
 *         is timed; the peer reads the same body as text
 *
 * Iterations alternate the sides (and which goes first) so drift hits all alike.
 * Usage: npx tsx bench/provider.ts [--runs N] [--long-runs N] [--baseline path/to/openaiClient.ts]
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { CompletionRequest, Completion } from '../electron/main/agent/provider/openaiClient.js';
import { streamChatCompletion } from '../electron/main/agent/provider/openaiClient.js';
import { startOpenAiTestServer, type Step } from '../test/support/openaiTestServer.js';
import { positiveInt } from './cli.js';
import { ms, summarize } from './stats.js';

const USAGE = 'Usage: npx tsx bench/provider.ts [--runs N] [--long-runs N] [--baseline path/to/openaiClient.ts]';
const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { runs: { type: 'string' }, 'long-runs': { type: 'string' }, baseline: { type: 'string' } },
  strict: true,
});
const runs = positiveInt('runs', values.runs, 300, USAGE);
const longRuns = positiveInt('long-runs', values['long-runs'], 15, USAGE);

type Client = (req: CompletionRequest) => Promise<Completion>;
const sides: [string, Client | 'peer'][] = [['fetch (peer)', 'peer'], ['client', streamChatCompletion]];
if (values.baseline) {
  const mod = (await import(pathToFileURL(path.resolve(values.baseline)).href)) as { streamChatCompletion: Client };
  sides.push(['baseline', mod.streamChatCompletion]);
}

const scenarios: { name: string; step: Step; runs: number }[] = [
  {
    name: 'turn',
    step: {
      text: Array.from({ length: 40 }, (_, i) => `word${i} `).join(''),
      toolCalls: [{ id: 'call_1', name: 'terminal', arguments: { command: 'ls -la /workspace && cat README.md', cwd: '/workspace' } }],
    },
    runs,
  },
  { name: 'long', step: { text: Array.from({ length: 1024 }, () => 'x'.repeat(4096)) }, runs: longRuns },
];

let current: Step = scenarios[0]!.step;
const server = await startOpenAiTestServer({ responder: () => current });
const messages = [{ role: 'user' as const, content: 'hi' }];
const request: CompletionRequest = { baseUrl: server.baseUrl, apiKey: 'sk-bench', model: 'bench', messages };

async function once(side: Client | 'peer'): Promise<number> {
  const started = performance.now();
  if (side === 'peer') {
    const res = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
      body: JSON.stringify({ model: 'bench', messages, stream: true }),
    });
    await res.text();
  } else {
    await side(request);
  }
  return performance.now() - started;
}

console.log(`provider bench: node ${process.version}, ${runs} turn runs, ${longRuns} long runs${values.baseline ? `, baseline ${values.baseline}` : ''}`);
try {
  for (const scenario of scenarios) {
    current = scenario.step;
    for (const [, side] of sides) await once(side); // warm-up, untimed
    const samples = sides.map(() => [] as number[]);
    for (let i = 0; i < scenario.runs; i++) {
      const order = sides.map((_, k) => k);
      if (i % 2) order.reverse();
      for (const k of order) samples[k]!.push(await once(sides[k]![1]));
    }
    const medians = samples.map((s) => summarize(s).median);
    console.log(`\n${scenario.name}`);
    sides.forEach(([name], k) => {
      const s = summarize(samples[k]!);
      const vsPeer = k === 0 ? '' : `  ${(s.median / medians[0]!).toFixed(2)}× peer`;
      console.log(`  ${name.padEnd(14)} median ${ms(s.median).padStart(9)}  p95 ${ms(s.p95).padStart(9)}${vsPeer}`);
    });
    if (values.baseline) console.log(`  client / baseline: ${(medians[1]! / medians[2]!).toFixed(2)}×`);
  }

  // The same turn without the network: the frames the server sent, replayed from memory.
  const frames: Uint8Array[] = [];
  current = scenarios[0]!.step;
  const recorded = await fetch(`${server.baseUrl}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'bench', messages, stream: true }) });
  for await (const chunk of recorded.body!) frames.push(chunk);
  const realFetch = globalThis.fetch;
  globalThis.fetch = async () =>
    new Response(new ReadableStream({ start: (c) => (frames.forEach((f) => c.enqueue(f)), c.close()) }), { headers: { 'content-type': 'text/event-stream' } });
  try {
    const cpuRuns = runs * 5;
    const samples = sides.map(() => [] as number[]);
    // Rounds rather than single calls: one turn is far below the timer's useful resolution.
    for (let round = 0; round < 6; round++) {
      for (const [k, [, side]] of sides.entries()) {
        const started = performance.now();
        for (let i = 0; i < cpuRuns / 5; i++) await once(side);
        if (round > 0) samples[k]!.push(((performance.now() - started) / (cpuRuns / 5)) * 1000);
      }
    }
    console.log(`\ncpu (µs per turn, median of 5 rounds of ${cpuRuns / 5})`);
    const medians = samples.map((s) => summarize(s).median);
    sides.forEach(([name], k) => console.log(`  ${name.padEnd(14)} ${medians[k]!.toFixed(0).padStart(6)} µs`));
    if (values.baseline) console.log(`  client / baseline: ${(medians[1]! / medians[2]!).toFixed(2)}×`);
  } finally {
    globalThis.fetch = realFetch;
  }
} finally {
  await server.close();
}
