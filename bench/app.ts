/**
 * App benchmarks: the main process's memory with 100 live chats. (Terminal throughput and
 * chat-switch time in the browser join this file with the browser host.)
 *   npm run bench:app -- [--image IMG] [--chats N]
 */
import { parseArgs } from 'node:util';
import { measureMemory } from './memory.js';
import { table } from './stats.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { image: { type: 'string', default: 'berth-test:busybox' }, chats: { type: 'string', default: '100' } },
  });
  const image = values.image as string;
  const chats = Number(values.chats);
  console.log(`command: npm run bench:app -- --image ${image} --chats ${chats}`);
  console.log(`memory: starting ${chats} live chats (container, shell and terminal each)…`);
  const mem = await measureMemory(image, chats, (line) => console.log(line));
  console.log(
    table(
      ['metric', 'value', 'target', 'result'],
      [
        [`main process RSS, ${mem.chats} live chats`, `${mem.rssMb.toFixed(0)} MB (heap ${mem.heapUsedMb.toFixed(0)} MB; at start ${mem.baselineRssMb.toFixed(0)} MB)`, '< 250 MB', mem.rssMb < 250 ? 'PASS' : 'MISS'],
      ],
    ),
  );
  console.log(`(${mem.chats} chats set up in ${mem.setupSeconds.toFixed(0)} s)`);
}

main().catch((error: unknown) => {
  console.error(`bench:app failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
