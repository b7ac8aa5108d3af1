import { describe, expect, it } from 'vitest';
import { SANDBOX_HOME, buildContainerSpec } from './containerSpec.js';
import { copyVolumeFor, directWritesOnRemote, homeVolumeFor, specForRemoteEngine } from './remoteSpec.js';

const spec = buildContainerSpec({
  name: 'berth-abc-123',
  image: 'img',
  user: '1000:1000',
  instanceId: 'abc',
  profile: 'p',
  chatId: 'c',
  key: 'default:c',
  homeSource: '/data/profiles/p/homes/c',
  mounts: [
    { source: '/home/me/site', target: '/workspace/site', readOnly: false, origin: 'chat' },
    { source: '/home/me/docs', target: '/workspace/docs', readOnly: true, origin: 'chat' },
  ],
  limits: { memoryMb: 512, cpus: 1, pids: 64 },
  network: { mode: 'none' },
  workingDir: '/workspace',
});

describe('a container for a remote engine', () => {
  it('binds no local path: the home and each folder become volumes, read-only kept', () => {
    const remote = specForRemoteEngine(spec);
    const mounts = remote.HostConfig.Mounts as unknown as { Type: string; Source: string; Target: string; ReadOnly: boolean }[];
    expect(mounts.every((m) => m.Type === 'volume')).toBe(true);
    expect(mounts.some((m) => m.Source.startsWith('/'))).toBe(false);
    expect(mounts).toEqual([
      { Type: 'volume', Source: homeVolumeFor('berth-abc-123'), Target: SANDBOX_HOME, ReadOnly: false },
      { Type: 'volume', Source: copyVolumeFor('berth-abc-123', '/workspace/site', '/home/me/site'), Target: '/workspace/site', ReadOnly: false },
      { Type: 'volume', Source: copyVolumeFor('berth-abc-123', '/workspace/docs', '/home/me/docs'), Target: '/workspace/docs', ReadOnly: true },
    ]);
    // Everything else (hardening, labels, fingerprint) is the local spec's.
    expect({ ...remote.HostConfig, Mounts: [] }).toEqual({ ...spec.HostConfig, Mounts: [] });
    expect(remote.Labels).toEqual(spec.Labels);
  });

  it('copy volumes of two folders never share a name', () => {
    expect(copyVolumeFor('n', '/workspace/a', '/a')).not.toBe(copyVolumeFor('n', '/workspace/b', '/a'));
    expect(copyVolumeFor('n', '/workspace', '/a')).not.toBe(homeVolumeFor('n'));
    // A new copy attached at the same place (another Review copy) gets a volume of its own.
    expect(copyVolumeFor('n', '/workspace/a', '/data/review/1/work')).not.toBe(copyVolumeFor('n', '/workspace/a', '/data/review/2/work'));
  });

  it('refuses what would write straight into a folder of this computer; Review copies and read-only folders are copied', () => {
    expect(
      directWritesOnRemote([
        { source: '/home/me/site', readOnly: false, origin: 'chat' },
        { source: '/home/me/docs', readOnly: true, origin: 'chat' },
        { source: '/data/review/1/work', readOnly: false, origin: 'review' },
        { source: '/srv/cache', readOnly: false, origin: 'profile' },
      ]),
    ).toEqual(['/home/me/site', '/srv/cache']);
  });
});
