import { describe, expect, it } from 'vitest';
import { isContainerPath, linkedSocketReason, sensitivePathReason, type HostFacts } from './sensitivePaths.js';

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

  it.each([
    '.claude', '.codex', '.cargo', '.m2', '.gem', '.pulumi', '.fly', '.oci', '.config/containers', '.config/git', '.config/configstore',
    '.config/gcloud/configurations', '.terraform.d', '.config/hub',
  ])('refuses the credential folder ~/%s, and a folder inside it', (rel) => {
    expect(sensitivePathReason(`/home/u/${rel}`, facts)).toMatch(/credentials/);
    expect(sensitivePathReason(`/home/u/${rel}/sub`, facts)).toMatch(/credentials/);
  });

  it("refuses a folder that contains ~/.ssh other than home itself (home's parent)", () => {
    expect(sensitivePathReason('/home', facts)).toEqual(expect.any(String));
  });

  it('refuses a folder that contains the credential folder ~/.config/gh', () => {
    expect(sensitivePathReason('/home/u/.config', facts)).toMatch(/credentials/);
  });

  it.each([
    '/home/u/projects/app', '/home/u/projects', '/tmp/x', '/srv/data', '/home/u/.sshkeys-notes', '/etcetera',
    '/tmp/berth-it-xyz/ws', '/var/tmp/build', '/mnt/usb/photos', '/media/u/disk', '/home/other/shared', '/tmpfiles',
  ])('allows %s', (p) => {
    expect(sensitivePathReason(p, facts)).toBeNull();
  });

  it('uses the home directory from the facts, not a fixed one', () => {
    const other: HostFacts = { ...facts, homeDir: '/Users/me', dataDir: '/Users/me/Library/Application Support/Berth', platform: 'darwin' };
    expect(sensitivePathReason('/Users/me/.ssh', other)).toMatch(/credentials/);
    expect(sensitivePathReason('/Users/me', other)).toMatch(/home folder/);
    expect(sensitivePathReason('/Users/me/code/app', other)).toBeNull();
  });
});

describe('sensitivePathReason: shared roots, session sockets and more credential folders', () => {
  // Berth running as root: /root is home, so /home does not contain it.
  const asRoot: HostFacts = { homeDir: '/root', dataDir: '/root/.local/share/berth', dockerSockets: ['/var/run/docker.sock'], platform: 'linux' };

  it.each(['/tmp', '/tmp/', '/var/tmp', '/mnt', '/media', '/srv', '/home', '/Users', '/private/tmp'])('refuses the shared root %s itself', (p) => {
    expect(sensitivePathReason(p, asRoot)).toMatch(/pick a folder inside it instead|contains (\/private)?\/tmp\/\.X11-unix/);
  });

  it('explains the shared roots in words', () => {
    expect(sensitivePathReason('/home', asRoot)).toBe("it holds every user's home folder; pick a folder inside it instead.");
    expect(sensitivePathReason('/mnt', asRoot)).toBe('it holds other disks and network shares; pick a folder inside it instead.');
    expect(sensitivePathReason('/var/tmp', asRoot)).toBe("it holds every program's temporary files; pick a folder inside it instead.");
  });

  it('refuses /tmp because it holds the X11 and ICE sockets, and those folders themselves', () => {
    expect(sensitivePathReason('/tmp', asRoot)).toMatch(/contains \/tmp\/\.X11-unix/);
    expect(sensitivePathReason('/tmp/.X11-unix', asRoot)).toMatch(/\/tmp\/\.X11-unix/);
    expect(sensitivePathReason('/tmp/.ICE-unix', asRoot)).toMatch(/\/tmp\/\.ICE-unix/);
  });

  it("refuses a folder holding the SSH agent's socket, and allows its neighbours", () => {
    const withAgent: HostFacts = { ...asRoot, extraSockets: ['/tmp/ssh-AbC123/agent.42'] };
    expect(sensitivePathReason('/tmp/ssh-AbC123', withAgent)).toMatch(/ssh-AbC123\/agent\.42.*SSH agent/);
    expect(sensitivePathReason('/tmp/ssh-AbC123', asRoot)).toBeNull();
    expect(sensitivePathReason('/tmp/berth-it-xyz/ws', withAgent)).toBeNull();
  });

  it.each([
    '.mozilla', '.mozilla/firefox/x.default', '.config/google-chrome', '.config/chromium/Default', '.config/BraveSoftware',
    '.local/share/keyrings', '.config/rclone', '.config/op', '.1password', '.gnupg', '.terraform.d', '.config/Code/User/globalStorage',
  ])('refuses the credential or browser folder ~/%s', (rel) => {
    expect(sensitivePathReason(`/home/u/${rel}`, facts)).toMatch(/credentials/);
  });

  it('still allows the rest of the Code settings', () => {
    expect(sensitivePathReason('/home/u/.config/Code/User/snippets', facts)).toBeNull();
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

describe('linkedSocketReason: a socket under another name', () => {
  const engine = { path: '/var/run/docker.sock', dev: '20', ino: '300' };
  const agent = { path: '/tmp/ssh-x/agent.1', dev: '21', ino: '9' };
  it('names the entry that is the Docker socket or the SSH agent by device and inode', () => {
    expect(linkedSocketReason([{ name: 'x.sock', dev: '20', ino: '300' }], [engine, agent])).toMatch(/x\.sock, which is the Docker socket \(\/var\/run\/docker\.sock\)/);
    expect(linkedSocketReason([{ name: 'a', dev: '21', ino: '9' }], [engine, agent])).toMatch(/a, which is a socket programs on this computer listen on/);
  });
  it('passes other sockets, and the same inode on another device', () => {
    expect(linkedSocketReason([{ name: 'dev.sock', dev: '20', ino: '301' }, { name: 'y', dev: '22', ino: '300' }], [engine, agent])).toBeNull();
    expect(linkedSocketReason([], [engine])).toBeNull();
  });
});
