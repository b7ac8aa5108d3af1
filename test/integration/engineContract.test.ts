/**
 * The Engine contract: the same cases against the real engine (DockerEngine on this machine's
 * Docker) and the in-memory fake the unit tests use (test/support/fakeEngine.ts), so the fake
 * cannot drift from what Docker does.
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerEngine, type Engine, type StatsSample } from '../../electron/main/engine/dockerEngine.js';
import { buildContainerSpec, LABEL, SANDBOX_HOME, type ContainerCreateBody } from '../../electron/main/policy/containerSpec.js';
import { killTreeScript } from '../../electron/main/policy/shellProtocol.js';
import { ShellSession } from '../../electron/main/sandbox/shellSession.js';
import { fetchCopy, fillCopy } from '../../electron/main/workspace/remoteCopy.js';
import { BUSYBOX, docker, removeInstanceContainers } from '../support/docker.js';
import { FakeEngine } from '../support/fakeEngine.js';
import { SANDBOX_GID, SANDBOX_UID, uniqueName } from '../support/harness.js';
import { rejectionCode } from '../support/tempDirs.js';
import { waitFor } from '../support/waitFor.js';
import { record } from '../support/testRun.js';

interface Subject {
  engine: Engine;
  /** A network of that name that someone else made, not isolated (on that subnet if given). */
  foreignNetwork(name: string, subnet?: string): Promise<void>;
  cleanup(): Promise<void>;
}

const subjects: [string, () => Subject][] = [
  [
    'the fake engine',
    () => {
      const engine = new FakeEngine([BUSYBOX]);
      return { engine, foreignNetwork: async (name, subnet) => engine.addForeignNetwork(name, subnet), cleanup: async () => undefined };
    },
  ],
  [
    'the real engine',
    () => {
      const networks: string[] = [];
      return {
        engine: new DockerEngine({ kind: 'socket', socketPath: '/var/run/docker.sock' }),
        foreignNetwork: async (name, subnet) => {
          networks.push(name);
          await docker('network', 'create', '--label', 'berth.app=berth', ...(subnet ? ['--subnet', subnet] : []), name);
        },
        cleanup: async () => {
          for (const n of networks) await docker('network', 'rm', n).catch(() => undefined);
        },
      };
    },
  ],
];


describe.each(subjects)('the Engine contract: %s', (_name, make) => {
  let subject: Subject;
  let engine: Engine;
  const instanceId = uniqueName('contract');
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-contract-'));
  fs.chownSync(home, SANDBOX_UID, SANDBOX_GID);

  function body(name: string, network: { mode: 'none' } | { mode: 'isolated'; name: string } = { mode: 'none' }): ContainerCreateBody {
    return buildContainerSpec({
      name: `${instanceId}-${name}`,
      image: BUSYBOX,
      user: `${SANDBOX_UID}:${SANDBOX_GID}`,
      instanceId,
      profile: 'contract',
      chatId: name,
      key: `default:${name}`,
      homeSource: home,
      mounts: [],
      limits: { memoryMb: 256, cpus: 1, pids: 128 },
      network,
      workingDir: SANDBOX_HOME,
    });
  }

  beforeAll(() => {
    record('instances', instanceId);
    subject = make();
    engine = subject.engine;
  });

  afterAll(async () => {
    await subject.cleanup();
    await removeInstanceContainers(instanceId);
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('answers a ping and knows which images it has', async () => {
    expect((await engine.ping()).version).toBeTruthy();
    expect(await engine.hasImage(BUSYBOX)).toBe(true);
    expect(await engine.hasImage('berth-test:absent-from-contract')).toBe(false);
    // The security options name the engine's seccomp profile (and AppArmor where it has it).
    expect((await engine.securityOptions()).some((o) => o.startsWith('name=seccomp'))).toBe(true);
    expect(await engine.listImageTags()).toContain(BUSYBOX);
    expect((await engine.platform()).os).toBe('linux');
    // This machine's engine is Docker (Podman has its own suite: podman.test.ts).
    expect(await engine.kind()).toEqual({ name: 'docker' });
    const machine = await engine.resources();
    expect(machine.cpus).toBeGreaterThanOrEqual(1);
    expect(machine.memoryBytes).toBeGreaterThan(64 * 1024 * 1024);
    // Closing its kept connections (an engine only checked once) leaves it usable: it connects again.
    engine.close();
    engine.close();
    expect((await engine.ping()).version).toBeTruthy();
  });

  it('fails a pull from a registry that answers nothing as registry_unreachable', async () => {
    // 127.0.0.1:1 answers nothing: the engine's pull fails without leaving this machine.
    expect(await rejectionCode(engine.pullImage('127.0.0.1:1/berth-absent:x', () => undefined))).toBe('registry_unreachable');
  });

  it('creates a container found by its labels, refuses its name twice, and answers inspect as Berth reads it', async () => {
    const spec = body('a');
    const id = await engine.createContainer(spec);
    expect(await rejectionCode(engine.createContainer(spec))).toBe('already_exists');
    const found = await engine.findContainers({ [LABEL.instance]: instanceId, [LABEL.chat]: 'a' });
    expect(found.map((c) => [c.id, c.name, c.running, c.labels[LABEL.key]])).toEqual([[id, spec.name, false, 'default:a']]);
    expect(await engine.findContainers({ [LABEL.instance]: instanceId, [LABEL.chat]: 'nobody' })).toEqual([]);
    const details = await engine.inspectContainer(id);
    expect(details).toMatchObject({ id, name: spec.name, running: false, image: BUSYBOX, user: spec.User, networkMode: 'none' });
    expect(details?.labels[LABEL.spec]).toBe(spec.Labels[LABEL.spec]);
    await engine.removeContainer(id);
  });

  it("runs Berth's shell protocol in a started container: output, exit codes, cwd, a missing cwd's fallback", async () => {
    const id = await engine.createContainer(body('b'));
    const streams = await engine.attach(id);
    await engine.startContainer(id);
    await engine.startContainer(id); // already running: no error
    expect((await engine.inspectContainer(id))?.running).toBe(true);
    const shell = await ShellSession.open(
      streams,
      (signal, serial) => engine.execOnce(id, ['/bin/sh', '-c', killTreeScript(signal, serial)], `${SANDBOX_UID}:${SANDBOX_GID}`).then(() => undefined),
      Date.now,
    );
    const run = (command: string, cwd = SANDBOX_HOME) =>
      shell.run({ command, cwd, fallback: SANDBOX_HOME, timeoutMs: 20_000, headBytes: 4096, tailBytes: 4096 });
    expect(await run('echo hello')).toMatchObject({ output: 'hello\n', exitCode: 0, cwd: SANDBOX_HOME });
    expect(await run('cd /tmp && pwd')).toMatchObject({ output: '/tmp\n', exitCode: 0, cwd: '/tmp' });
    expect(await run('exit 3')).toMatchObject({ exitCode: 3 });
    expect(await run('pwd', '/gone')).toMatchObject({ output: `berth: /gone does not exist; starting in ${SANDBOX_HOME}\n${SANDBOX_HOME}\n`, exitCode: 0 });
    expect(await engine.execOnce(id, ['/bin/sh', '-c', 'echo once'], `${SANDBOX_UID}:${SANDBOX_GID}`)).toEqual({ exitCode: 0, output: 'once\n' });
    shell.close();
    await engine.stopContainer(id, 1);
    await engine.stopContainer(id, 1); // already stopped: no error
    expect((await engine.inspectContainer(id))?.running).toBe(false);
    await streams.ended;
    await engine.removeContainer(id);
    await engine.removeContainer(id); // already gone: no error
    expect(await engine.inspectContainer(id)).toBeNull();
  });

  it('opens a terminal (TTY) that runs its command and ends', async () => {
    const id = await engine.createContainer(body('t'));
    await engine.startContainer(id);
    const tty = await engine.execTty(id, {
      cmd: ['/bin/sh', '-c', 'echo ready'], user: `${SANDBOX_UID}:${SANDBOX_GID}`, env: ['TERM=xterm'], workingDir: SANDBOX_HOME, cols: 80, rows: 24,
    });
    let out = '';
    tty.stream.on('data', (c: Buffer | string) => (out += c.toString()));
    await tty.ended;
    expect(out).toContain('ready\r\n');
    await engine.removeContainer(id);
  });

  it("streams a running container's use against its limits until closed, and measures its writable layer", async () => {
    const id = await engine.createContainer(body('s'));
    const streams = await engine.attach(id);
    await engine.startContainer(id);
    const samples: StatsSample[] = [];
    const stats = await engine.streamStats(id, (s) => samples.push(s));
    await waitFor(async () => samples.length >= 2, 'two readings', 20_000);
    const last = samples.at(-1) as StatsSample;
    expect(last.memoryLimitBytes).toBe(256 * 1024 * 1024);
    expect(last.memoryBytes).toBeGreaterThan(0);
    expect(last.memoryBytes).toBeLessThan(256 * 1024 * 1024);
    expect(last.pids).toBeGreaterThanOrEqual(1);
    expect(last.pidsLimit).toBe(128);
    // A rate needs two readings: the second has one.
    expect(typeof samples[1]?.cpus).toBe('number');
    stats.close();
    await stats.ended;
    const seen = samples.length;
    expect(await engine.writableLayerBytes(id)).toBeGreaterThanOrEqual(0);
    streams.close();
    await engine.removeContainer(id);
    expect(samples.length).toBe(seen);
    expect(await engine.writableLayerBytes(id)).toBeNull();
    expect(await rejectionCode(engine.streamStats(id, () => undefined))).toBe('container_vanished');
  });

  it('answers for containers that do not exist: inspect null, stop and remove quietly, start and exec fail', async () => {
    const none = 'berth-contract-no-such-container';
    expect(await engine.inspectContainer(none)).toBeNull();
    await engine.stopContainer(none, 1);
    await engine.removeContainer(none);
    expect(await rejectionCode(engine.startContainer(none))).toBe('container_failed');
    expect(await rejectionCode(engine.execOnce(none, ['true'], 'root'))).toBe('container_failed');
  });

  it('sets up an isolated network once, refuses a foreign one of the same name, and fails to start a container on a missing network', async () => {
    const name = uniqueName('berth-contract');
    record('networks', name);
    await engine.ensureNetwork(name, { [LABEL.app]: 'berth' });
    await engine.ensureNetwork(name, { [LABEL.app]: 'berth' });
    await engine.removeNetwork(name);
    await engine.removeNetwork(name); // already gone: no error
    const foreign = uniqueName('berth-foreign');
    record('networks', foreign);
    await subject.foreignNetwork(foreign);
    expect(await rejectionCode(engine.ensureNetwork(foreign, {}))).toBe('network_failed');
    // The network is looked for when the container starts, not when it is created.
    const id = await engine.createContainer(body('n', { mode: 'isolated', name: uniqueName('berth-missing') }));
    expect(await rejectionCode(engine.startContainer(id))).toBe('network_failed');
    await engine.removeContainer(id);
  });

  it('egress: sealed and outside networks, a service container on both under an alias, its addresses and log, a foreign network refused', async () => {
    const sealed = uniqueName('berth-contract-sealed');
    const outside = uniqueName('berth-contract-out');
    record('networks', sealed);
    record('networks', outside);
    const labels = { [LABEL.app]: 'berth', [LABEL.instance]: instanceId, 'berth.egress': 'sandbox' };
    await engine.ensureEgressNetwork(sealed, labels, 'sealed');
    await engine.ensureEgressNetwork(sealed, labels, 'sealed'); // already there: no error
    await engine.ensureEgressNetwork(outside, { [LABEL.app]: 'berth', [LABEL.instance]: instanceId }, 'outside');
    expect((await engine.findNetworks(labels)).map((n) => n.name)).toEqual([sealed]);
    const foreign = uniqueName('berth-foreign');
    record('networks', foreign);
    await subject.foreignNetwork(foreign);
    // Not internal with no gateway address: a sandbox on it could reach out.
    expect(await rejectionCode(engine.ensureEgressNetwork(foreign, {}, 'sealed'))).toBe('network_failed');

    const spec = {
      name: `${instanceId}-svc`, image: BUSYBOX, labels: { [LABEL.app]: 'berth', [LABEL.instance]: instanceId }, user: `${SANDBOX_UID}:${SANDBOX_GID}`,
      entrypoint: ['/bin/sh', '-c', 'echo ready; sleep 60'], env: [], network: outside, dns: [], memoryMb: 64, pids: 32,
    };
    const id = await engine.createServiceContainer(spec);
    expect(await rejectionCode(engine.createServiceContainer(spec))).toBe('already_exists');
    expect(await rejectionCode(engine.createServiceContainer({ ...spec, name: `${spec.name}-2`, image: 'berth-test:absent-from-contract' }))).toBe('image_unavailable');
    await engine.startContainer(id);
    const lines: string[] = [];
    const log = await engine.followLogs(id, true, (line) => lines.push(line));
    await expect.poll(() => lines, { timeout: 20_000 }).toContain('ready');
    log.stop();
    await engine.connectNetwork(sealed, id, ['svc']);
    await engine.connectNetwork(sealed, id, ['svc']); // already on it: no error
    expect(Object.keys((await engine.inspectContainer(id))?.addresses ?? {}).sort()).toEqual([outside, sealed].sort());
    await engine.disconnectNetwork(sealed, id);
    await engine.disconnectNetwork(sealed, id); // not on it: no error
    expect(Object.keys((await engine.inspectContainer(id))?.addresses ?? {})).toEqual([outside]);
    await engine.removeContainer(id);
    await engine.removeNetwork(sealed);
    await engine.removeNetwork(outside);
  });

  it('remote copies: a labelled volume filled and read back through archives, removed by label; an image carried by save and load', async () => {
    const labels = { [LABEL.app]: 'berth', [LABEL.instance]: instanceId, [LABEL.key]: 'default:vol' };
    const volume = `${instanceId}-vol`;
    expect(await engine.hasVolume(volume)).toBe(false);
    expect(await engine.ensureVolume(volume, labels)).toBe(true);
    expect(await engine.ensureVolume(volume, labels)).toBe(false);
    expect(await engine.hasVolume(volume)).toBe(true);
    const spec = body('vol');
    const withVolume = {
      ...spec,
      HostConfig: { ...spec.HostConfig, Mounts: [...spec.HostConfig.Mounts, { Type: 'volume', Source: volume, Target: '/workspace/site', ReadOnly: false }] },
    } as unknown as ContainerCreateBody;
    const id = await engine.createContainer(withVolume);
    const src = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-contract-src-'));
    fs.mkdirSync(path.join(src, 'sub'));
    fs.writeFileSync(path.join(src, 'sub', 'a.txt'), 'from the host\n');
    fs.writeFileSync(path.join(src, 'old.txt'), 'kept as it was\n');
    // A file last changed a minute ago: the archive carries its time, so a fetch can skip it.
    const minuteAgo = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(src, 'old.txt'), minuteAgo, minuteAgo);
    const place = { engine, containerId: id, containerPath: '/workspace/site' };
    await fillCopy(place, src, { uid: SANDBOX_UID, gid: SANDBOX_GID });
    const back = (await fetchCopy(place, src)).dir;
    expect(fs.readFileSync(path.join(back, 'sub', 'a.txt'), 'utf8')).toBe('from the host\n');
    expect(fs.readFileSync(path.join(back, 'old.txt'), 'utf8')).toBe('kept as it was\n');
    // Fetched against the folder it came from: the old file is known unchanged and not written out
    // (the newer one too once it is older than the racy window, which a loaded machine may pass).
    const quick = await fetchCopy(place, src, src);
    expect([...quick.unchanged]).toContain('old.txt');
    expect(fs.existsSync(path.join(quick.dir, 'old.txt'))).toBe(false);
    expect(await rejectionCode(engine.getArchive(id, '/workspace/absent'))).toBe('container_failed');
    await engine.removeContainer(id);
    await engine.removeVolumes({ [LABEL.instance]: instanceId, [LABEL.key]: 'default:vol' });
    expect(await engine.hasVolume(volume)).toBe(false);
    expect(await engine.ensureVolume(volume, labels)).toBe(true); // it was gone
    await engine.removeVolume(volume);
    await engine.removeVolume(volume); // already gone: no error
    fs.rmSync(src, { recursive: true, force: true });

    // docker save | docker load through the API: the tag is there again after it was removed.
    const tag = `berth-test:contract-${instanceId.slice(-6)}`;
    if (engine instanceof FakeEngine) engine.images.add(tag);
    else await docker('tag', BUSYBOX, tag);
    const saved = await engine.exportImage(tag);
    const chunks: Buffer[] = [];
    for await (const c of saved as AsyncIterable<Buffer>) chunks.push(Buffer.from(c));
    if (engine instanceof FakeEngine) engine.images.delete(tag);
    else await docker('rmi', tag);
    expect(await engine.hasImage(tag)).toBe(false);
    await engine.loadImage(Readable.from([Buffer.concat(chunks)]));
    expect(await engine.hasImage(tag)).toBe(true);
    if (!(engine instanceof FakeEngine)) await docker('rmi', tag);
    expect(await rejectionCode(engine.exportImage('berth-test:absent-from-contract'))).toBe('image_unavailable');
  });

  it('egress: sealed networks take free subnets from a pool, skip one in use, say when it is used up, and free them when removed', async () => {
    // A four-network pool of this test's own (random, so parallel runs rarely meet).
    const third = 100 + Math.floor(Math.random() * 100);
    const pool = { range: `10.213.${third}.0/26`, prefix: 28 };
    const names = [0, 1, 2, 3].map(() => uniqueName('berth-contract-pool'));
    const foreign = uniqueName('berth-foreign-pool');
    for (const n of [...names, foreign]) record('networks', n);
    const labels = { [LABEL.app]: 'berth', [LABEL.instance]: instanceId, 'berth.egress': 'pool' };
    const subnetOf = async (name: string) => (await engine.findNetworks(labels)).find((n) => n.name === name)?.subnets;
    // Someone else's network on the pool's second subnet.
    await subject.foreignNetwork(foreign, `10.213.${third}.16/28`);
    await engine.ensureEgressNetwork(names[0] as string, labels, 'sealed', pool);
    await engine.ensureEgressNetwork(names[1] as string, labels, 'sealed', pool);
    await engine.ensureEgressNetwork(names[1] as string, labels, 'sealed', pool); // already there: no error, same subnet
    await engine.ensureEgressNetwork(names[2] as string, labels, 'sealed', pool);
    expect(await subnetOf(names[0] as string)).toEqual([`10.213.${third}.0/28`]);
    expect(await subnetOf(names[1] as string)).toEqual([`10.213.${third}.32/28`]);
    expect(await subnetOf(names[2] as string)).toEqual([`10.213.${third}.48/28`]);
    const full = engine.ensureEgressNetwork(names[3] as string, labels, 'sealed', pool);
    expect(await rejectionCode(full)).toBe('network_failed');
    await expect(full).rejects.toThrow(/used up/);
    await engine.removeNetwork(names[1] as string);
    await engine.ensureEgressNetwork(names[3] as string, labels, 'sealed', pool);
    expect(await subnetOf(names[3] as string)).toEqual([`10.213.${third}.32/28`]);
    for (const n of names) await engine.removeNetwork(n);
  });

  it("an open profile's isolated network takes a free subnet from the pool too, past one in use, and says when it is used up", async () => {
    const third = 100 + Math.floor(Math.random() * 100);
    const pool = { range: `10.213.${third}.0/27`, prefix: 28 };
    const [first, second, third3] = [0, 1, 2].map(() => uniqueName('berth-contract-openpool')) as [string, string, string];
    const foreign = uniqueName('berth-foreign-openpool');
    for (const n of [first, second, third3, foreign]) record('networks', n);
    const labels = { [LABEL.app]: 'berth', [LABEL.instance]: instanceId, 'berth.test': 'openpool' };
    const subnetOf = async (name: string) => (await engine.findNetworks(labels)).find((n) => n.name === name)?.subnets;
    await subject.foreignNetwork(foreign, `10.213.${third}.0/28`);
    await engine.ensureNetwork(first, labels, pool);
    await engine.ensureNetwork(first, labels, pool); // already there: no error, same subnet
    expect(await subnetOf(first)).toEqual([`10.213.${third}.16/28`]);
    const full = engine.ensureNetwork(second, labels, pool);
    expect(await rejectionCode(full)).toBe('network_failed');
    await expect(full).rejects.toThrow(/used up/);
    // Without a pool, the engine picks (Docker's default pools).
    await engine.ensureNetwork(third3, labels);
    for (const n of [first, third3]) await engine.removeNetwork(n);
  });
});

