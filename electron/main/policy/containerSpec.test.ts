import { describe, expect, it } from 'vitest';
import { LABEL, SANDBOX_HOME, appArmorProfileFor, buildContainerSpec, specFingerprint, type ContainerSpecInput } from './containerSpec.js';
import { seccompSecurityOpt } from './seccompProfile.js';

function input(partial: Partial<ContainerSpecInput> = {}): ContainerSpecInput {
  return {
    name: 'berth-abc-chat-1234',
    image: 'debian:bookworm-slim',
    user: '1000:1000',
    instanceId: 'inst-1',
    profile: 'work',
    chatId: 'chat-1',
    key: 'profile:work:chat-1',
    homeSource: '/data/homes/work/chat-1',
    mounts: [
      { source: '/home/u/app', target: '/workspace/app', readOnly: false, origin: 'chat' },
      { source: '/home/u/docs', target: '/workspace/docs', readOnly: true, origin: 'chat' },
    ],
    limits: { memoryMb: 1024, cpus: 1.5, pids: 256 },
    network: { mode: 'isolated', name: 'berth-work' },
    workingDir: '/workspace',
    ...partial,
  };
}

describe('buildContainerSpec: hardening', () => {
  const spec = buildContainerSpec(input());
  const host = spec.HostConfig;

  it('drops every capability and adds none', () => {
    expect(host.CapDrop).toEqual(['ALL']);
    expect(host.CapAdd).toEqual([]);
  });

  it('forbids gaining privileges and is never privileged', () => {
    expect(host.SecurityOpt).toContain('no-new-privileges:true');
    expect(host.SecurityOpt).toContain(seccompSecurityOpt());
    expect(host.Privileged).toBe(false);
  });

  it('runs an init process and the given non-root user', () => {
    expect(host.Init).toBe(true);
    expect(spec.User).toBe('1000:1000');
    expect(buildContainerSpec(input({ user: '1501:20' })).User).toBe('1501:20');
  });

  it('applies pids, memory and cpu limits, with no swap beyond memory', () => {
    expect(host.PidsLimit).toBe(256);
    expect(host.Memory).toBe(1024 * 1024 * 1024);
    expect(host.MemorySwap).toBe(host.Memory);
    expect(host.NanoCpus).toBe(1_500_000_000);
  });

  it("joins the profile's own network", () => {
    expect(host.NetworkMode).toBe('berth-work');
    expect(spec.NetworkingConfig).toEqual({ EndpointsConfig: { 'berth-work': {} } });
  });

  it("uses network mode 'none' when the profile has no network", () => {
    const none = buildContainerSpec(input({ network: { mode: 'none' } }));
    expect(none.HostConfig.NetworkMode).toBe('none');
    expect(none.NetworkingConfig).toBeUndefined();
  });

  it('never uses the host network or host namespaces', () => {
    for (const s of [spec, buildContainerSpec(input({ network: { mode: 'none' } }))]) {
      expect(s.HostConfig.NetworkMode).not.toBe('host');
      expect(s.HostConfig.IpcMode).toBe('private');
      expect(s.HostConfig.PidMode).not.toBe('host');
    }
  });

  it('has no Binds field at all: every mount goes through Mounts', () => {
    expect('Binds' in host).toBe(false);
    expect(JSON.stringify(spec)).not.toContain('"Binds"');
  });

  it('mounts the home and the planned folders as non-recursive binds, read-only as planned', () => {
    expect(host.Mounts).toEqual([
      { Type: 'bind', Source: '/data/homes/work/chat-1', Target: SANDBOX_HOME, ReadOnly: false, BindOptions: { NonRecursive: true } },
      { Type: 'bind', Source: '/home/u/app', Target: '/workspace/app', ReadOnly: false, BindOptions: { NonRecursive: true } },
      { Type: 'bind', Source: '/home/u/docs', Target: '/workspace/docs', ReadOnly: true, BindOptions: { NonRecursive: true } },
    ]);
  });

  it('passes a host path with ":" and spaces verbatim as the mount source', () => {
    const odd = '/home/u/My Projects/a:b c';
    const s = buildContainerSpec(input({ mounts: [{ source: odd, target: '/workspace', readOnly: false, origin: 'chat' }] }));
    expect(s.HostConfig.Mounts.map((m) => m.Source)).toContain(odd);
    expect(s.HostConfig.Mounts.find((m) => m.Source === odd)?.Target).toBe('/workspace');
  });

  it('labels the container with app, instance, profile, chat, key and spec', () => {
    expect(spec.Labels).toEqual({
      [LABEL.app]: 'berth',
      [LABEL.instance]: 'inst-1',
      [LABEL.profile]: 'work',
      [LABEL.chat]: 'chat-1',
      [LABEL.key]: 'profile:work:chat-1',
      [LABEL.spec]: specFingerprint(input()),
    });
    expect(spec.Labels[LABEL.spec]).toMatch(/^[0-9a-f]{16}$/);
  });

  it("labels a shared container with an empty chat", () => {
    expect(buildContainerSpec(input({ chatId: '', key: 'profile:work' })).Labels[LABEL.chat]).toBe('');
  });
});

describe('specFingerprint', () => {
  it('does not change when nothing changes', () => {
    expect(specFingerprint(input())).toBe(specFingerprint(input()));
  });

  it('changes when a mount is added, removed, retargeted or made read-only', () => {
    const base = specFingerprint(input());
    const [app, docs] = input().mounts as [ContainerSpecInput['mounts'][number], ContainerSpecInput['mounts'][number]];
    const variants = [
      [app],
      [app, docs, { source: '/home/u/x', target: '/workspace/x', readOnly: false, origin: 'chat' as const }],
      [app, { ...docs, target: '/workspace/d' }],
      [app, { ...docs, readOnly: false }],
      [app, { ...docs, source: '/home/u/other' }],
    ];
    for (const mounts of variants) expect(specFingerprint(input({ mounts }))).not.toBe(base);
  });

  it('changes when image, user, home, limits or network change', () => {
    const base = specFingerprint(input());
    expect(specFingerprint(input({ image: 'node:22' }))).not.toBe(base);
    expect(specFingerprint(input({ user: '1001:1001' }))).not.toBe(base);
    expect(specFingerprint(input({ homeSource: '/data/homes/other' }))).not.toBe(base);
    expect(specFingerprint(input({ limits: { memoryMb: 2048, cpus: 1.5, pids: 256 } }))).not.toBe(base);
    expect(specFingerprint(input({ network: { mode: 'none' } }))).not.toBe(base);
  });
});

describe('AppArmor: pinned where the engine has it', () => {
  it('pins docker-default when the engine reports AppArmor, and nothing where it does not', () => {
    expect(appArmorProfileFor(['name=apparmor', 'name=seccomp,profile=default'])).toBe('docker-default');
    expect(appArmorProfileFor(['name=seccomp,profile=default', 'name=apparmor,profile=x'])).toBe('docker-default');
    expect(appArmorProfileFor(['name=seccomp,profile=default'])).toBeNull();
    expect(appArmorProfileFor(['name=selinux', 'name=rootless'])).toBeNull();
    expect(appArmorProfileFor(['name=apparmorish'])).toBeNull();
    expect(appArmorProfileFor([])).toBeNull();
  });

  it('puts the pinned profile in SecurityOpt beside no-new-privileges, and none when unpinned', () => {
    expect(buildContainerSpec(input({ appArmorProfile: 'docker-default' })).HostConfig.SecurityOpt).toEqual(['no-new-privileges:true', seccompSecurityOpt(), 'apparmor=docker-default']);
    expect(buildContainerSpec(input({ appArmorProfile: null })).HostConfig.SecurityOpt).toEqual(['no-new-privileges:true', seccompSecurityOpt()]);
    expect(buildContainerSpec(input()).HostConfig.SecurityOpt).toEqual(['no-new-privileges:true', seccompSecurityOpt()]);
  });

  it('recreates a container made before the pin, and keeps the fingerprint of unpinned ones', () => {
    expect(specFingerprint(input({ appArmorProfile: 'docker-default' }))).not.toBe(specFingerprint(input()));
    expect(specFingerprint(input({ appArmorProfile: null }))).toBe(specFingerprint(input()));
  });
});
