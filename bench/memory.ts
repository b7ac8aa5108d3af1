/**
 * The main process's memory with 100 live chats: each chat has a running sandbox (container
 * plus its long-lived shell) and an open terminal, as a user with many chats open would.
 * Measured in this process, which is what the main process runs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCore } from '../electron/main/core.js';
import { removeInstanceContainers } from '../test/support/docker.js';

export interface MemoryResult {
  chats: number;
  rssMb: number;
  heapUsedMb: number;
  baselineRssMb: number;
  setupSeconds: number;
  /** Deleting the profile with all its chats (profiles.delete), as a user would; null if it failed. */
  deleteSeconds: number | null;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

export async function measureMemory(image: string, chats: number, log: (line: string) => void): Promise<MemoryResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-bench-mem-'));
  const core = createCore({ dataDir, reapIntervalMs: 0 });
  const profile = `bench-mem-${process.pid}`;
  const started = Date.now();
  let deleted = false;
  try {
    await core.ready;
    gc();
    const baselineRssMb = process.memoryUsage().rss / 2 ** 20;
    await core.profiles.create({ name: profile, image, retention: { idleStopMinutes: 0, onQuit: 'stop' } });
    const ids: string[] = [];
    // A few at a time: the engine starts containers one after another anyway.
    for (let i = 0; i < chats; i += 4) {
      await Promise.all(
        Array.from({ length: Math.min(4, chats - i) }, async (_, j) => {
          const chat = await core.chats.create({ profile, title: `bench chat ${i + j}` });
          await core.sandbox.exec({ chatId: chat.id, command: 'echo ready' });
          await core.terminal.open({ chatId: chat.id, cols: 120, rows: 30 });
          ids.push(chat.id);
        }),
      );
      if ((i / 4) % 5 === 4) log(`  ${ids.length} live chats`);
    }
    gc();
    await new Promise((r) => setTimeout(r, 500));
    gc();
    const usage = process.memoryUsage();
    const setupSeconds = (Date.now() - started) / 1000;
    const deleting = Date.now();
    deleted = await core.profiles.delete({ name: profile }).then(() => true, () => false);
    return {
      chats: ids.length,
      rssMb: usage.rss / 2 ** 20,
      heapUsedMb: usage.heapUsed / 2 ** 20,
      baselineRssMb,
      setupSeconds,
      deleteSeconds: deleted ? (Date.now() - deleting) / 1000 : null,
    };
  } finally {
    // Gone already unless the measurement failed midway (or its delete did).
    if (!deleted) await core.profiles.delete({ name: profile }).catch(() => undefined);
    const instance = core.instanceId;
    await core.dispose();
    // The default profile's warm sandbox is only stopped on dispose (kept for a next start that
    // never comes: the data dir goes next), so the bench removes its instance's containers.
    await removeInstanceContainers(instance);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
