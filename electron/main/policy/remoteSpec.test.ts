import { describe, expect, it } from 'vitest';
import { LABEL, SANDBOX_HOME, buildContainerSpec } from './containerSpec.js';
import { HOME_COPY_FROM, HOME_COPY_TO, copyVolumeFor, directWritesOnRemote, homeCopySpec, homeVolumeFor, remoteVolumeLabels, specForRemoteEngine } from './remoteSpec.js';

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

describe('the helper that copies a fork’s home on a remote engine', () => {
  it('mounts the original’s home read-only and the fork’s beside it, nothing of this computer, hardened as a sandbox', () => {
    const helper = homeCopySpec(spec, 'berth-abc-1-home', 'berth-abc-2-home');
    expect(helper.HostConfig.Mounts).toEqual([
      { Type: 'volume', Source: 'berth-abc-1-home', Target: HOME_COPY_FROM, ReadOnly: true },
      { Type: 'volume', Source: 'berth-abc-2-home', Target: HOME_COPY_TO, ReadOnly: false },
    ]);
    // The archive of the first, unpacked in the second's parent under the same name, lands in the second.
    expect(HOME_COPY_FROM.split('/').at(-1)).toBe(HOME_COPY_TO.split('/').at(-1));
    expect(helper.HostConfig).toMatchObject({ CapDrop: ['ALL'], Privileged: false, NetworkMode: 'none', PidsLimit: 64 });
    expect(helper.HostConfig.SecurityOpt).toContain('no-new-privileges:true');
    expect(helper.User).toBe('1000:1000');
    expect(helper.Labels[LABEL.app]).toBe('berth');
  });

  it('labels remote volumes with their key, chat and profile, so deleting the chat finds them without a container', () => {
    expect(remoteVolumeLabels(spec.Labels)).toEqual({ [LABEL.app]: 'berth', [LABEL.instance]: 'abc', [LABEL.key]: 'default:c', [LABEL.chat]: 'c', [LABEL.profile]: 'p' });
    // A profile's shared container has no chat: no empty label that would match every shared volume.
    expect(remoteVolumeLabels({ ...spec.Labels, [LABEL.chat]: '' })).not.toHaveProperty(LABEL.chat);
  });
});
