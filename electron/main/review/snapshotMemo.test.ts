/**
 * The copy's kept snapshot is the copy's tree only while nothing git would read changed: a file
 * the chat writes, and an entry taken out of the shadow behind the sync's back (as a discard of
 * too-large files does), each give the copy's new tree, not the kept one.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../../test/support/tempDirs.js';
import { ReviewCopy } from './reviewCopy.js';

const temp = new TempDirs();
afterEach(() => temp.removeAll());

/** The paths a tree holds, by git itself. */
function pathsIn(copy: ReviewCopy, tree: string): string[] {
  return execFileSync('git', ['--git-dir', copy.trackDir, 'ls-tree', '-r', '--name-only', tree], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

describe('the kept snapshot of a copy', () => {
  it('is taken again when the copy or its shadow changed, and kept when neither did', async () => {
    const folder = temp.make();
    fs.writeFileSync(path.join(folder, 'a.txt'), 'a\n');
    fs.writeFileSync(path.join(folder, 'b.txt'), 'b\n');
    const copy = await ReviewCopy.create({
      dir: path.join(temp.make(), 'copy'), chatId: 'c1', hostPath: folder, branch: 'berth/c1', contents: { ignored: false, include: [] }, owner: null, now: 1, progress: () => undefined,
    });
    const first = await copy.snapshot();
    expect(pathsIn(copy, first.tree)).toEqual(['a.txt', 'b.txt']);
    expect(fs.existsSync(path.join(copy.trackDir, 'berth-snapshot.json'))).toBe(true);
    expect((await copy.snapshot()).tree).toBe(first.tree);

    // The chat writes a file: the sync takes it, git takes the snapshot again.
    fs.writeFileSync(path.join(copy.workDir, 'c.txt'), 'c\n');
    const second = await copy.snapshot();
    expect(pathsIn(copy, second.tree)).toEqual(['a.txt', 'b.txt', 'c.txt']);

    // Taken out of both the copy and its shadow (the sync sees nothing to do): its folder's ctime is newer than the kept snapshot.
    copy.removeFiles(['b.txt']);
    expect(pathsIn(copy, (await copy.snapshot()).tree)).toEqual(['a.txt', 'c.txt']);

    // The copy put back to the first tree (read-tree -u writes the index and the shadow).
    await copy.resetWorkTo(first.tree);
    expect((await copy.snapshot()).tree).toBe(first.tree);
  });
});
