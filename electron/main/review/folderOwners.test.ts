import { describe, expect, it } from 'vitest';
import { giveTo } from './folderOwners.js';

describe('giveTo', () => {
  const refused = () => {
    throw Object.assign(new Error('EPERM'), { code: 'EPERM' });
  };
  it('refuses to replace a file whose owner it cannot keep, naming it; a new entry just stays Berth’s', () => {
    expect(() => giveTo(refused, { uid: 1, gid: 1 }, { uid: 2, gid: 2 }, true, 'src/a.txt')).toThrow(/"src\/a\.txt" in your folder belongs to uid 2 .*cannot keep that owner.*EPERM/);
    expect(() => giveTo(refused, { uid: 1, gid: 1 }, { uid: 2, gid: 2 }, false, 'new.txt')).not.toThrow();
  });
  it('asks nothing when the entry already has the owner', () => {
    expect(() => giveTo(refused, { uid: 2, gid: 3 }, { uid: 2, gid: 3 }, true, 'a.txt')).not.toThrow();
  });
});
