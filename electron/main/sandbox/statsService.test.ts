/** Live use of a sandbox on the in-memory engine: one stream per container, leases, pressure, sizes. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeCore, type FakeCore } from '../../../test/support/fakeCore.js';
import { FakeEngine } from '../../../test/support/fakeEngine.js';
import { BUSYBOX } from '../../../test/support/docker.js';
import { ManualClock } from '../../../test/support/manualClock.js';
import { waitFor } from '../../../test/support/waitFor.js';
import { EventHub } from '../events.js';
import { buildContainerSpec, SANDBOX_HOME } from '../policy/containerSpec.js';
import type { EventPayload } from '../../../shared/contract.js';
import { StatsService } from './statsService.js';

let f: FakeCore | undefined;
afterEach(async () => {
  await f?.dispose();
  f = undefined;
});

describe('a sandbox’s live use', () => {
  it('streams while a client watches, one engine stream however many watch, ended when the last stops or goes', async () => {
    f = fakeCore();
    const chat = await f.chat({ limits: { memoryMb: 512, cpus: 1, pids: 64 } });
    expect(await f.core.call('sandbox.watchStats', { chatId: chat.id })).toEqual({ watching: false });
    await f.core.sandbox.exec({ chatId: chat.id, command: 'true' });

    const a = f.core.connectClient();
    const b = f.core.connectClient();
    expect(await a.call('sandbox.watchStats', { chatId: chat.id })).toEqual({ watching: true });
    expect(await b.call('sandbox.watchStats', { chatId: chat.id })).toEqual({ watching: true });
    expect(f.engine.statsStreams).toBe(1);
    const sample = await waitFor(async () => f?.of('sandbox.stats').find((e) => e.chatId === chat.id)?.sample, 'a reading');
    expect(sample).toMatchObject({ memoryLimitBytes: 512 * 1024 * 1024, pidsLimit: 64 });
    expect(sample.pids).toBeGreaterThanOrEqual(1);

    await a.call('sandbox.unwatchStats', { chatId: chat.id });
    expect(f.engine.statsStreams).toBe(1);
    b.dispose();
    await waitFor(async () => f?.engine.statsStreams === 0, 'the stream to close');
    a.dispose();
  });

  it('sizes the chat’s home and its writable layer', async () => {
    f = fakeCore();
    const chat = await f.chat();
    await f.core.sandbox.exec({ chatId: chat.id, command: 'true' });
    const before = (await f.core.call('sandbox.usage', { chatId: chat.id })) as { homeBytes: number; writableLayerBytes: number };
    expect(before.writableLayerBytes).toBe(0);
    const status = await f.core.sandbox.status({ chatId: chat.id });
    const home = [...f.engine.containers.values()][0]?.body.HostConfig.Mounts.find((m) => m.Target === '/home/berth')?.Source;
    expect(status.state).toBe('running');
    fs.writeFileSync(path.join(home as string, 'data.bin'), Buffer.alloc(10_000));
    const after = (await f.core.call('sandbox.usage', { chatId: chat.id })) as { homeBytes: number; homeCapped: boolean };
    expect(after.homeBytes - before.homeBytes).toBe(10_000);
    expect(after.homeCapped).toBe(false);
  });

  it('says when a running sandbox comes near its memory or process limit, and when it is back below', async () => {
    const engine = new FakeEngine([BUSYBOX]);
    const clock = new ManualClock();
    const events = new EventHub();
    const heard: Array<EventPayload<'sandbox.pressure'>> = [];
    events.on((event, payload) => {
      if (event === 'sandbox.pressure') heard.push(payload as EventPayload<'sandbox.pressure'>);
    });
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-pressure-'));
    const id = await engine.createContainer(
      buildContainerSpec({
        name: 'p', image: BUSYBOX, user: '1000:1000', instanceId: 'i1', profile: 'p', chatId: 'c1', key: 'p:c1', homeSource: home,
        mounts: [], limits: { memoryMb: 100, cpus: 1, pids: 20 }, network: { mode: 'none' }, workingDir: SANDBOX_HOME,
      }),
    );
    await engine.startContainer(id);
    const service = new StatsService({ engine, events, clock, instanceId: 'i1', pressureEveryMs: 30_000, runningContainer: async () => id, homeFolder: () => null });

    engine.load = { memoryBytes: 95 * 1024 * 1024 };
    clock.advance(30_000);
    await waitFor(async () => heard.length === 1, 'the first check');
    expect(heard).toEqual([{ chatId: 'c1', memory: true, pids: false }]);
    expect(engine.statsStreams).toBe(0);

    engine.load = { pids: 19 };
    await service.checkPressure();
    engine.load = null;
    await service.checkPressure();
    expect(heard.slice(1)).toEqual([
      { chatId: 'c1', memory: false, pids: true },
      { chatId: 'c1', memory: false, pids: false },
    ]);
    await service.checkPressure();
    expect(heard).toHaveLength(3);
    service.dispose();
    fs.rmSync(home, { recursive: true, force: true });
  });
});
