import { describe, expect, it } from 'vitest';
import { isContainerPath, sensitivePathReason, type HostFacts } from './sensitivePaths.js';

const facts: HostFacts = {
  homeDir: '/home/u',
  dataDir: '/home/u/.local/share/berth',
  dockerSockets: ['/var/run/docker.sock', '/srv/docker/docker.sock'],
  platform: 'linux',
};

describe('sensitivePathReason: folders never shared with a sandbox', () => {
  it.each([
    '/',
    '/home/u',
    '/etc', '/etc/nginx',
    '/proc', '/proc/1',
    '/sys', '/sys/class',
    '/dev', '/dev/shm',
    '/boot', '/boot/grub',
    '/usr', '/usr/local/src',
    '/bin', '/lib', '/lib/modules',
    '/var/run', '/var/run/user',
    '/run', '/run/user/1000',
    '/var',
  ])('refuses %s', (p) => {
    expect(sensitivePathReason(p, facts)).toEqual(expect.any(String));
  });

  it('explains the whole disk and the home folder in words', () => {
    expect(sensitivePathReason('/', facts)).toMatch(/whole disk/);
    expect(sensitivePathReason('/home/u', facts)).toMatch(/home folder/);
  });

  it('refuses a folder that contains the Docker socket, at any depth', () => {
    expect(sensitivePathReason('/srv/docker', facts)).toMatch(/Docker socket/);
    expect(sensitivePathReason('/srv', facts)).toMatch(/Docker socket/);
  });

  it("refuses Berth's data folder, anything inside it and any folder that contains it", () => {
    expect(sensitivePathReason('/home/u/.local/share/berth', facts)).toMatch(/Berth's own data/);
    expect(sensitivePathReason('/home/u/.local/share/berth/homes/x', facts)).toMatch(/Berth's own data/);
    expect(sensitivePathReason('/home/u/.local/share', facts)).toMatch(/Berth's own data/);
    expect(sensitivePathReason('/home/u/.local', facts)).toEqual(expect.any(String));
  });

  it.each(['/home/u/.ssh', '/home/u/.ssh/keys', '/home/u/.aws', '/home/u/.aws/sso/cache', '/home/u/.gnupg', '/home/u/.kube', '/home/u/.docker'])(
    'refuses the credential folder %s',
    (p) => {
      expect(sensitivePathReason(p, facts)).toMatch(/credentials/);
    },
  );

  it("refuses a folder that contains ~/.ssh other than home itself (home's parent)", () => {
    expect(sensitivePathReason('/home', facts)).toEqual(expect.any(String));
  });

  it('refuses a folder that contains the credential folder ~/.config/gh', () => {
    expect(sensitivePathReason('/home/u/.config', facts)).toMatch(/credentials/);
  });

  it.each(['/home/u/projects/app', '/home/u/projects', '/tmp/x', '/srv/data', '/home/u/.sshkeys-notes', '/etcetera'])('allows %s', (p) => {
    expect(sensitivePathReason(p, facts)).toBeNull();
  });

  it('uses the home directory from the facts, not a fixed one', () => {
    const other: HostFacts = { ...facts, homeDir: '/Users/me', dataDir: '/Users/me/Library/Application Support/Berth', platform: 'darwin' };
    expect(sensitivePathReason('/Users/me/.ssh', other)).toMatch(/credentials/);
    expect(sensitivePathReason('/Users/me', other)).toMatch(/home folder/);
    expect(sensitivePathReason('/Users/me/code/app', other)).toBeNull();
  });
});

describe('isContainerPath', () => {
  it('recognises /workspace and paths under it', () => {
    expect(isContainerPath('/workspace')).toBe(true);
    expect(isContainerPath('/workspace/a')).toBe(true);
    expect(isContainerPath('/workspace/')).toBe(true);
  });

  it('does not confuse a folder whose name merely starts with "workspace"', () => {
    expect(isContainerPath('/workspaces')).toBe(false);
    expect(isContainerPath('/home/u/workspace')).toBe(false);
  });
});
