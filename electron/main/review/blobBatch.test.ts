/**
 * Apply by hunk reads each asked path's sides by `tree:path` in one batch, before it knows which
 * paths are changes: a name git would resolve against a work tree ("./", "../") must be an
 * unanswered question, not a fatal error that fails the whole apply.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../../test/support/tempDirs.js';
import { readBlobs } from './blobBatch.js';
import { gitText } from './git.js';
import type { ReviewCopy } from './reviewCopy.js';

const temp = new TempDirs();
afterEach(() => temp.removeAll());

describe('readBlobs', () => {
  it('answers blobs by id and by tree:path; names it cannot ask are null, the others still answered', async () => {
    const trackDir = path.join(temp.make(), 'track.git');
    execFileSync('git', ['init', '-q', '--bare', trackDir]);
    const work = temp.make();
    fs.mkdirSync(path.join(work, 'd'));
    fs.writeFileSync(path.join(work, 'a.txt'), 'alpha\n');
    fs.writeFileSync(path.join(work, 'd', 'b.txt'), 'beta\n');
    const opts = { gitDir: trackDir, workTree: work, indexFile: path.join(trackDir, 'index') };
    await gitText(['add', '-A'], opts);
    const tree = await gitText(['write-tree'], opts);
    const oid = await gitText(['rev-parse', `${tree}:a.txt`], { gitDir: trackDir });
    const copy = { trackDir } as ReviewCopy;
    const asked = [`${tree}:a.txt`, `${tree}:../a.txt`, `${tree}:./a.txt`, `${tree}:d/b.txt`, `${tree}:d`, `${tree}:gone`, oid, `${tree}:a\nb`];
    const got = await readBlobs(copy, asked);
    expect(got.map((b) => b?.toString('utf8') ?? null)).toEqual(['alpha\n', null, null, 'beta\n', null, null, 'alpha\n', null]);
  });
});
