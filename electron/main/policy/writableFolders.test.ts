import { describe, expect, it } from 'vitest';
import { canWrite, decideWritable, type FolderOwner } from './writableFolders.js';

const root = { uid: 0, gid: 0, platform: 'linux' as const };
const folder = (path: string, uid: number, gid = uid, mode = 0o755): FolderOwner => ({ path, uid, gid, mode });

describe('decideWritable (Berth runs as root)', () => {
  it("runs as the read-write folder's owner when that is not root", () => {
    const d = decideWritable(root, '1000:1000', [folder('/srv/a', 1234, 1300)], false);
    expect(d.user).toBe('1234:1300');
    expect(d.warnings.size).toBe(0);
  });

  it("keeps the configured group when the owner's group is root's", () => {
    expect(decideWritable(root, '1000:1000', [folder('/srv/a', 1234, 0)], false).user).toBe('1234:1000');
  });

  it('never runs as root: a root-owned folder keeps the configured user and says what to do', () => {
    const d = decideWritable(root, '1000:1000', [folder('/srv/r', 0)], false);
    expect(d.user).toBe('1000:1000');
    expect(d.warnings.get('/srv/r')).toMatch(/belongs to root.*Review mode.*Read-only.*chown -R 1000:1000 \/srv\/r/);
  });

  it('a root-owned folder that anyone may write needs no warning', () => {
    expect(decideWritable(root, '1000:1000', [folder('/srv/r', 0, 0, 0o777)], false).warnings.size).toBe(0);
  });

  it('read-write folders of different owners: the configured user, a warning for each it cannot write', () => {
    const d = decideWritable(root, '1000:1000', [folder('/a', 1000), folder('/b', 1234)], false);
    expect(d.user).toBe('1000:1000');
    expect([...d.warnings.keys()]).toEqual(['/b']);
    expect(d.warnings.get('/b')).toContain('different users (uids 1000, 1234)');
  });

  it('a chat with Review-mode copies keeps the configured user (they are its)', () => {
    const d = decideWritable(root, '1000:1000', [folder('/a', 1234)], true);
    expect(d.user).toBe('1000:1000');
    expect(d.warnings.get('/a')).toContain('Review-mode');
  });

  it('no read-write folder: the configured user, no warning', () => {
    expect(decideWritable(root, '1500:1500', [], false)).toEqual({ user: '1500:1500', warnings: new Map() });
  });
});

describe('decideWritable (Berth runs as a user)', () => {
  it("keeps the host user's ids and warns about nothing", () => {
    const d = decideWritable({ uid: 1001, gid: 1001, platform: 'linux' }, '1000:1000', [folder('/srv/r', 0)], false);
    expect(d).toEqual({ user: '1001:1001', warnings: new Map() });
  });
});

describe('canWrite', () => {
  it('reads owner, group and other bits in that order', () => {
    expect(canWrite(folder('/x', 5, 6, 0o500), 5, 6)).toBe(false);
    expect(canWrite(folder('/x', 5, 6, 0o070), 7, 6)).toBe(true);
    expect(canWrite(folder('/x', 5, 6, 0o775), 7, 8)).toBe(false);
    expect(canWrite(folder('/x', 5, 6, 0o777), 7, 8)).toBe(true);
  });
});
