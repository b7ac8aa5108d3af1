import { describe, expect, it } from 'vitest';
import { sandboxUserFor } from './sandboxUser.js';

describe('sandboxUserFor', () => {
  it("runs the sandbox as the host user's uid:gid on Linux", () => {
    expect(sandboxUserFor({ uid: 1001, gid: 1002, platform: 'linux' }, '1000:1000')).toBe('1001:1002');
  });

  it('uses the configured non-root user when Berth runs as root on Linux', () => {
    expect(sandboxUserFor({ uid: 0, gid: 0, platform: 'linux' }, '1500:1500')).toBe('1500:1500');
  });

  it.each(['darwin', 'win32'] as const)('uses the configured user on %s', (platform) => {
    expect(sandboxUserFor({ uid: 501, gid: 20, platform }, '1000:1000')).toBe('1000:1000');
  });

  it('uses the configured user when the host has no uids', () => {
    expect(sandboxUserFor({ uid: null, gid: null, platform: 'linux' }, '1000:1000')).toBe('1000:1000');
  });
});

describe('sandboxUserFor never picks root or its group', () => {
  it("keeps the host uid but not root's group when the host user's group is 0", () => {
    expect(sandboxUserFor({ uid: 1001, gid: 0, platform: 'linux' }, '1500:1600')).toBe('1001:1600');
  });

  it.each(['0:0', '00:1000', '1000:0', '1000:00', 'root', ''])('falls back to 1000:1000 for the stored value %j', (configured) => {
    expect(sandboxUserFor({ uid: 0, gid: 0, platform: 'linux' }, configured)).toBe('1000:1000');
    expect(sandboxUserFor({ uid: 501, gid: 20, platform: 'darwin' }, configured)).toBe('1000:1000');
  });
});
