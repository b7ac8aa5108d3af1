import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../../test/support/tempDirs.js';
import { scanFolder } from './reviewCopy.js';

const temp = new TempDirs();
afterEach(() => temp.removeAll());

describe('scanFolder', () => {
  it('lists files and links without following links', () => {
    const root = temp.make();
    fs.mkdirSync(path.join(root, 'a/b'), { recursive: true });
    fs.writeFileSync(path.join(root, 'a/b/f.txt'), 'f');
    fs.symlinkSync('/etc', path.join(root, 'etc'));
    expect(scanFolder(root).sort()).toEqual(['a/b/f.txt', 'etc']);
  });

  it('stops at the file limit with a clear error instead of walking on', () => {
    const root = temp.make();
    for (let i = 0; i < 12; i++) fs.writeFileSync(path.join(root, `f${i}`), '');
    expect(() => scanFolder(root, 10)).toThrow(/holds more than 10 files, more than a Review-mode copy takes/);
  });
});
