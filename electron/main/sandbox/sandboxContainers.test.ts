/**
 * SandboxContainers's logic on the in-memory engine (test/support/fakeEngine.ts, held to the real
 * engine by test/integration/engineContract.test.ts): races, leases, idle stops, recreates and
 * error mapping, in milliseconds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ProfileSettings, type ProfileSettingsInput } from '../../../shared/contract.js';
import { FakeEngine } from '../../../test/support/fakeEngine.js';
import { ManualClock } from '../../../test/support/manualClock.js';
import { rejectionCode, TempDirs } from '../../../test/support/tempDirs.js';
import { SANDBOX_HOME } from '../policy/containerSpec.js';
import { BaseImage } from './baseImage.js';
import { SandboxContainers, type SandboxRequest } from './sandboxContainers.js';
import { singleEngine } from '../../../test/support/singleEngine.js';

const IMAGE = 'berth-test:busybox';
const temp = new TempDirs();
const managers: SandboxContainers[] = [];
afterEach(async () => {
  for (const m of managers.splice(0)) await m.dispose();
  temp.removeAll();
});

function setup(images: string[] = [IMAGE]) {
  const engine = new FakeEngine(images);
  const clock = new ManualClock();
  const manager = new SandboxContainers({
    engines: singleEngine(engine, clock),
    instanceId: 'unit',
    dataDir: temp.make(),
    hostFacts: () => [],
    sandboxUser: () => '1000:1000',
    homeOwner: () => null,
    clock,
    baseImage: new BaseImage({ engine, tag: 'berth-unit-base:1', engineIsLocal: false, debian: false }),
  });
  managers.push(manager);
  return { engine, clock, manager };
}

function request(settings: ProfileSettingsInput = {}, over: Partial<SandboxRequest> = {}): SandboxRequest & { progress: string[] } {
  const progress: string[] = [];
  return {
    key: 'default:c1',
    profile: { name: 'p', settings: ProfileSettings.parse({ image: IMAGE, egress: 'none', ...settings }) },
    chatId: 'c1',
    image: IMAGE,
    mounts: [],
    workingDir: SANDBOX_HOME,
    onProgress: (phase) => progress.push(phase),
    progress,
    ...over,
  };
}


describe('SandboxContainers on the fake engine', () => {
  it('brings a key up once however many callers race, and runs their commands in the one shell', async () => {
    const { engine, manager } = setup();
    const leases = await Promise.all(Array.from({ length: 5 }, () => manager.acquire(request())));
    expect(engine.calls.filter((c) => c === 'createContainer')).toHaveLength(1);
    expect(new Set(leases.map((l) => l.containerId)).size).toBe(1);
    expect(leases.filter((l) => l.broughtUp)).toHaveLength(1);
    // The others waited for that bring-up: each says so (its caller tells the chat the new state).
    expect(leases.filter((l) => l.joined)).toHaveLength(4);
    const out = await leases[0]!.session.run({ command: 'echo hi', cwd: SANDBOX_HOME, fallback: SANDBOX_HOME, timeoutMs: 5000, headBytes: 1024, tailBytes: 1024 });
    expect(out).toMatchObject({ output: 'hi\n', exitCode: 0 });
    expect(manager.leases('default:c1')).toBe(5);
    for (const l of leases) l.dispose();
    expect(manager.leases('default:c1')).toBe(0);
  });

  it('releases a lease once: a second dispose neither goes below zero nor frees someone else’s use', async () => {
    const { engine, clock, manager } = setup();
    const first = await manager.acquire(request({ retention: { idleStopMinutes: 1, onQuit: 'stop' } }));
    const second = await manager.acquire(request({ retention: { idleStopMinutes: 1, onQuit: 'stop' } }));
    first.dispose();
    first.dispose();
    expect(manager.leases('default:c1')).toBe(1);
    clock.advance(10 * 60_000);
    expect(engine.containers.get(second.containerId)?.running).toBe(true);
    second.dispose();
    clock.advance(60_000);
    await expect.poll(() => engine.containers.get(second.containerId)?.running).toBe(false);
  });

  it('keeps a held container (a terminal) from idling until its lease is disposed', async () => {
    const { engine, clock, manager } = setup();
    const settings = { retention: { idleStopMinutes: 1, onQuit: 'stop' as const } };
    const hold = await manager.hold(request(settings));
    const command = await manager.acquire(request(settings));
    command.dispose();
    clock.advance(5 * 60_000);
    expect(engine.containers.get(hold.containerId)?.running).toBe(true);
    hold.dispose();
    clock.advance(60_000);
    await expect.poll(() => engine.containers.get(hold.containerId)?.running).toBe(false);
  });

  it('waits for a running command before recreating for changed settings, then says why', async () => {
    const { engine, manager } = setup();
    const running = await manager.acquire(request());
    let recreated = false;
    const next = manager.acquire(request({ limits: { memoryMb: 512, cpus: 1, pids: 256 } })).then((l) => ((recreated = true), l));
    await new Promise((r) => setTimeout(r, 20));
    expect(recreated).toBe(false);
    expect(engine.containers.has(running.containerId)).toBe(true);
    running.dispose();
    const lease = await next;
    expect(lease.containerId).not.toBe(running.containerId);
    expect(engine.containers.has(running.containerId)).toBe(false);
    expect(lease.notices.join(' ')).toMatch(/recreated to apply changed folders or settings/);
    lease.dispose();
  });

  it('creates a new container, and says so, when its container vanished behind its back', async () => {
    const { engine, manager } = setup();
    const first = await manager.acquire(request());
    first.dispose();
    await engine.removeContainer(first.containerId);
    const again = await manager.acquire(request());
    expect(again.containerId).not.toBe(first.containerId);
    expect(again.notices.join(' ')).toMatch(/had disappeared/);
    again.dispose();
  });

  it('pulls a missing image with progress, and maps a pull that fails to image_unavailable for every waiting caller, once', async () => {
    const { engine, manager } = setup([]);
    engine.registry.add(IMAGE);
    const req = request();
    const lease = await manager.acquire(req);
    expect(req.progress).toEqual(expect.arrayContaining(['pulling', 'creating', 'starting', 'ready']));
    lease.dispose();

    const other = setup([]);
    const failures = await Promise.all(Array.from({ length: 3 }, () => rejectionCode(other.manager.acquire(request()))));
    expect(failures).toEqual(['image_unavailable', 'image_unavailable', 'image_unavailable']);
    expect(other.engine.calls.filter((c) => c === 'pullImage')).toHaveLength(1);
    expect(other.manager.leases('default:c1')).toBe(0);
    expect((await other.manager.status('default:c1', request().profile.settings)).error?.code).toBe('image_unavailable');
  });

  it('reports an engine that does not answer as engine_unreachable, and forgets it once the engine is back', async () => {
    const { engine, manager } = setup();
    engine.down = true;
    expect(await rejectionCode(manager.acquire(request()))).toBe('engine_unreachable');
    expect((await manager.status('default:c1', request().profile.settings)).state).toBe('error');
    engine.down = false;
    manager.forgetEngineErrors();
    expect((await manager.status('default:c1', request().profile.settings)).state).toBe('none');
    const lease = await manager.acquire(request());
    expect((await manager.status('default:c1', request().profile.settings)).state).toBe('running');
    lease.dispose();
  });

  it('refuses a profile network that does not keep chats apart, and starts nothing', async () => {
    const { engine, manager } = setup();
    engine.addForeignNetwork('berth-p');
    expect(await rejectionCode(manager.acquire(request({ egress: 'open' })))).toBe('network_failed');
    expect(engine.containers.size).toBe(0);
  });

  it('a lease disposed after its chat’s container was removed leaves a new container for the same key alone', async () => {
    const { engine, clock, manager } = setup();
    const settings = { retention: { idleStopMinutes: 1, onQuit: 'stop' as const } };
    const old = await manager.acquire(request(settings));
    await manager.removeForChat('c1');
    const fresh = await manager.hold(request(settings));
    old.dispose();
    clock.advance(10 * 60_000);
    expect(engine.containers.get(fresh.containerId)?.running).toBe(true);
    expect(manager.leases('default:c1')).toBe(1);
    fresh.dispose();
  });
});
