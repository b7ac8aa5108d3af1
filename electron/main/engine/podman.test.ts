/** Podman's differences, as Berth reads and checks them (no engine needed). */
import { describe, expect, it } from 'vitest';
import { buildContainerSpec } from '../policy/containerSpec.js';
import { isPodmanVersion, missingLimitControllers, podmanKind } from './engineKind.js';
import { podmanChatNetwork } from './podmanNetworks.js';
import { checkPodmanContainer, podmanCannotLimit, withSeccompFile } from './podmanSandbox.js';

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
