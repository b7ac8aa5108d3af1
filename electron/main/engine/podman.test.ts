/** Podman's differences, as Berth reads and checks them (no engine needed). */
import { describe, expect, it } from 'vitest';
import { buildContainerSpec } from '../policy/containerSpec.js';
import { isPodmanVersion, missingLimitControllers, podmanKind } from './engineKind.js';
import { ensureIsolatedNetwork, podmanChatNetwork } from './podmanNetworks.js';
import { checkPodmanContainer, podmanCannotLimit, STDIN_FIFO, STDIN_LABEL, STDIN_WRITER, withSeccompFile, withStdinFifo } from './podmanSandbox.js';

const body = buildContainerSpec({
  name: 'c', image: 'i', user: '1000:1000', instanceId: 'inst1234abcd', profile: 'p', chatId: 'c1', key: 'chat:c1', homeSource: '/h',
  mounts: [], limits: { memoryMb: 256, cpus: 1, pids: 128 }, network: { mode: 'isolated', name: 'n' }, workingDir: '/home/berth',
});
const honoured = { PidsLimit: 128, Memory: 256 * 1024 * 1024, NanoCpus: 1e9, SecurityOpt: ['no-new-privileges'], CapAdd: null, Privileged: false };

describe('engine kind', () => {
  it('tells Podman from Docker by /version Components', () => {
    expect(isPodmanVersion({ Components: [{ Name: 'Podman Engine' }, { Name: 'Conmon' }] })).toBe(true);
    expect(isPodmanVersion({ Components: [{ Name: 'Engine' }, { Name: 'containerd' }] })).toBe(false);
    expect(isPodmanVersion({})).toBe(false);
  });

  it('a rootless Podman on cgroup v1 (no controllers) cannot limit; rootful with them can', () => {
    const rootless = podmanKind({ host: { security: { rootless: true }, cgroupVersion: 'v1', cgroupControllers: [] }, version: { Version: '4.3.1' } });
    expect(missingLimitControllers(rootless)).toEqual(['memory', 'pids', 'cpu']);
    expect(podmanCannotLimit(rootless)?.message).toMatch(/rootless Podman 4.3.1 cannot limit a sandbox's memory, pids, cpu \(cgroup v1, rootless/);
    const rootful = podmanKind({ host: { security: { rootless: false }, cgroupVersion: 'v1', cgroupControllers: ['cpu', 'memory', 'pids'] } });
    expect(podmanCannotLimit(rootful)).toBeNull();
    expect(podmanCannotLimit({ name: 'docker' })).toBeNull();
  });
});

describe('a Podman container checked against the spec', () => {
  it('passes when every limit and privilege holds', () => {
    expect(checkPodmanContainer(body, honoured)).toBeNull();
  });

  it.each([
    ['PidsLimit', 0, /process limit/],
    ['Memory', 0, /memory limit/],
    ['NanoCpus', 0, /CPU limit/],
    ['SecurityOpt', [], /no-new-privileges/],
    ['CapAdd', ['NET_RAW'], /no added capabilities/],
    ['Privileged', true, /not privileged/],
  ])('refuses one made without %s', (field, value, message) => {
    expect(checkPodmanContainer(body, { ...honoured, [field]: value })?.message).toMatch(message);
  });

  it('names the seccomp profile by a file, leaving the other options as they are', () => {
    const sent = withSeccompFile(body, () => '/tmp/x/profile.json');
    expect(sent.HostConfig.SecurityOpt).toEqual(['no-new-privileges:true', 'seccomp=/tmp/x/profile.json']);
    expect(body.HostConfig.SecurityOpt[1]).toMatch(/^seccomp=\{/);
  });
});

it('gives each chat its own network, labelled for its instance and key', () => {
  const a = podmanChatNetwork('inst1234abcd', 'p', 'chat:a');
  const b = podmanChatNetwork('inst1234abcd', 'p', 'chat:b');
  expect(a.name).not.toBe(b.name);
  expect(a.name).toMatch(/^berth-inst1234-chat-[0-9a-f]{12}$/);
  expect(a.labels).toMatchObject({ 'berth.app': 'berth', 'berth.instance': 'inst1234abcd', 'berth.profile': 'p', 'berth.key': 'chat:a' });
});

describe("the shell's stdin on Podman (Podman closes a container's stdin when its client disconnects)", () => {
  it('the shell reads a FIFO it holds open itself, then runs as asked; the label says so', () => {
    const sent = withStdinFifo(body);
    expect(sent.Entrypoint).toEqual(['/bin/sh', '-c']);
    expect(sent.Cmd).toHaveLength(1);
    expect(sent.Cmd[0]).toContain(`exec <>${STDIN_FIFO};`);
    expect(sent.Cmd[0]!.endsWith(body.Cmd[0]!)).toBe(true);
    expect(sent.Labels[STDIN_LABEL]).toBe('fifo');
    expect(sent.Labels).toMatchObject(body.Labels);
    // The FIFO is on the container's private /tmp, which is a tmpfs: a new one at every start.
    expect(Object.keys(body.HostConfig.Tmpfs)).toContain('/tmp');
    expect(STDIN_FIFO.startsWith('/tmp/')).toBe(true);
  });

  it('leaves a body it does not recognise as it is', () => {
    const other = { ...body, Entrypoint: ['/entry'] };
    expect(withStdinFifo(other)).toBe(other);
  });

  it('the writer makes the FIFO if the shell has not yet, and says why when the image cannot', () => {
    expect(STDIN_WRITER.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(STDIN_WRITER[2]).toMatch(/mkfifo -m 600/);
    expect(STDIN_WRITER[2]).toMatch(/no mkfifo/);
    expect(STDIN_WRITER[2]!.endsWith(`exec cat > ${STDIN_FIFO}`)).toBe(true);
  });
});

describe('an existing Podman network of the chat\'s name', () => {
  const named = (options: Record<string, string>) => async (method: string) => (method === 'GET' ? { driver: 'bridge', options } : undefined);
  it('is used when isolated (true, or netavark 1.6\'s strict)', async () => {
    await expect(ensureIsolatedNetwork(named({ isolate: 'true' }), 'n', {})).resolves.toBeUndefined();
    await expect(ensureIsolatedNetwork(named({ isolate: 'strict' }), 'n', {})).resolves.toBeUndefined();
  });
  it('is refused otherwise, naming it', async () => {
    await expect(ensureIsolatedNetwork(named({}), 'n', {})).rejects.toMatchObject({ code: 'network_failed', message: expect.stringMatching(/network n exists but is not isolated/) });
    await expect(ensureIsolatedNetwork(named({ isolate: 'false' }), 'n', {})).rejects.toMatchObject({ code: 'network_failed' });
  });
});

it("retries a Podman network create that lost the race with a vanishing interface, and only that", async () => {
  const race = Object.assign(new Error('(HTTP code 500) server error'), { statusCode: 500, json: { message: 'route ip+net: no such network interface' } });
  let creates = 0;
  const flaky = async (method: string) => {
    if (method === 'GET') throw Object.assign(new Error('no such network'), { statusCode: 404 });
    if (++creates < 3) throw race;
    return {};
  };
  await expect(ensureIsolatedNetwork(flaky, 'n', {})).resolves.toBeUndefined();
  expect(creates).toBe(3);
  const other = Object.assign(new Error('(HTTP code 500) server error'), { statusCode: 500, json: { message: 'something else' } });
  let tries = 0;
  const broken = async (method: string) => {
    if (method === 'GET') throw Object.assign(new Error('no such network'), { statusCode: 404 });
    tries++;
    throw other;
  };
  await expect(ensureIsolatedNetwork(broken, 'n', {})).rejects.toBe(other);
  expect(tries).toBe(1);
});
