/**
 * A real core (real SQLite, real folders, every service) on the in-memory engine, for fast
 * unit tests of the services' logic. The engine is the only fake, held to the real one by
 * test/integration/engineContract.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCore, type BerthCore } from '../../electron/main/core.js';
import type { EventName, EventPayload } from '../../shared/contract.js';
import { BUSYBOX } from './docker.js';
import { FakeEngine } from './fakeEngine.js';
import { SANDBOX_GID, SANDBOX_UID } from './harness.js';
import { ManualClock } from './manualClock.js';

export interface FakeCore {
  core: BerthCore;
  engine: FakeEngine;
  clock: ManualClock;
  /** Events the core emitted, in order. */
  events: { event: EventName; payload: unknown }[];
  of<E extends EventName>(event: E): EventPayload<E>[];
  /** A new chat in a profile ('unit', made on first use) whose image the engine has. */
  chat(settings?: Record<string, unknown>): Promise<{ id: string; profile: string }>;
  /** A folder as the user would have it, writable by the sandbox user. */
  folder(name?: string): string;
  dispose(): Promise<void>;
  /** Berth quits and starts again: a new core on the same data folder and engine (this one is disposed, its folder kept). */
  restart(): Promise<FakeCore>;
}

export function fakeCore(again?: { root: string; engine: FakeEngine }): FakeCore {
  const root = again?.root ?? fs.mkdtempSync(path.join(os.tmpdir(), 'berth-unit-'));
  const engine = again?.engine ?? new FakeEngine([BUSYBOX]);
  const clock = new ManualClock();
  const core = createCore({ dataDir: path.join(root, 'data'), engine, clock, reapIntervalMs: 0, pressureEveryMs: 0, env: {} });
  const events: FakeCore['events'] = [];
  let profiles = 0;
  core.onEvent((event, payload) => events.push({ event, payload }));
  return {
    core,
    engine,
    clock,
    events,
    of: <E extends EventName>(event: E) => events.filter((e) => e.event === event).map((e) => e.payload as EventPayload<E>),
    async chat(settings = {}) {
      const name = `unit-${profiles++}`;
      await core.profiles.create({ name, image: BUSYBOX, egress: 'open', ...settings } as Parameters<BerthCore['profiles']['create']>[0]);
      return core.chats.create({ profile: name });
    },
    folder(name = 'ws') {
      const dir = path.join(fs.mkdtempSync(path.join(root, 'w-')), name);
      fs.mkdirSync(dir);
      fs.chownSync(dir, SANDBOX_UID, SANDBOX_GID);
      return dir;
    },
    async dispose() {
      await core.dispose();
      fs.rmSync(root, { recursive: true, force: true });
    },
    async restart() {
      await core.dispose();
      return fakeCore({ root, engine });
    },
  };
}
