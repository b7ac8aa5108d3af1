/**
 * The trees and blobs an apply of chosen lines makes in Berth (policy/gitTree, looseObjects)
 * are the ones git makes: the same root tree as read-tree + update-index + write-tree, and
 * objects git reads back and fsck finds sound.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../../test/support/tempDirs.js';
import { editTree, foldersOf, objectId, type EntryChange } from '../policy/gitTree.js';
import { readObjects } from './blobBatch.js';
import { writeLooseObjects, type NewObject } from './looseObjects.js';

const temp = new TempDirs();
afterEach(() => temp.removeAll());

const git = (gitDir: string, args: string[], input?: string, index?: string) =>
  execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'ignore'], env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', HOME: gitDir, ...(index ? { GIT_INDEX_FILE: index } : {}) } }).trim();

describe('trees and blobs made in Berth', () => {
  it('are git’s own: the same root as update-index + write-tree, read back by cat-file, sound by fsck', async () => {
    const repo = path.join(temp.make(), 'track.git');
    execFileSync('git', ['init', '-q', '--bare', repo]);
    const work = temp.make();
    for (const f of ['top.txt', 'a.b', 'a/x.txt', 'a/b/y.txt', 'a/b/z.txt', 'a-c/q.txt', 'only/one.txt']) {
      fs.mkdirSync(path.dirname(path.join(work, f)), { recursive: true });
      fs.writeFileSync(path.join(work, f), `${f}\n`);
    }
    const index = path.join(temp.make(), 'index');
    execFileSync('git', ['--git-dir', repo, '--work-tree', work, 'add', '-A'], { env: { PATH: process.env.PATH, GIT_INDEX_FILE: index, HOME: work } });
    const base = git(repo, ['write-tree'], undefined, index);

    const blobs: NewObject[] = ['new top\n', 'new y\n', 'brand new\n'].map((t) => ({ type: 'blob', oid: objectId('blob', Buffer.from(t), 'sha1'), content: Buffer.from(t) }));
    const changes = new Map<string, EntryChange>([
      ['top.txt', { mode: '100755', oid: blobs[0]!.oid }],
      ['a/b/y.txt', { mode: '100644', oid: blobs[1]!.oid }],
      ['a/b/z.txt', null],
      ['only/one.txt', null],
      ['n/e/w.txt', { mode: '100644', oid: blobs[2]!.oid }],
    ]);
    const folders = [...new Set([...changes.keys()].flatMap(foldersOf))];
    const got = await readObjects({ trackDir: repo }, folders.map((d) => (d === '' ? base : `${base}:${d}`)));
    const edited = editTree(new Map(folders.map((d, i) => [d, got[i]?.type === 'tree' ? got[i]!.data : null])), changes, 'sha1');
    if ('error' in edited) throw new Error(edited.error);
    writeLooseObjects(repo, [...blobs, ...edited.trees.map((t) => ({ type: 'tree' as const, ...t }))]);

    // git's way: the base in an index, the same entries changed, write-tree.
    const other = path.join(temp.make(), 'index');
    git(repo, ['read-tree', base], undefined, other);
    const info = [...changes].map(([p, e]) => (e ? `${e.mode} ${e.oid}\t${p}` : `0 ${'0'.repeat(40)}\t${p}`)).join('\n');
    git(repo, ['update-index', '--index-info'], `${info}\n`, other);
    expect(edited.root).toBe(git(repo, ['write-tree'], undefined, other));
    expect(git(repo, ['cat-file', '-p', `${edited.root}:n/e/w.txt`])).toBe('brand new');
    expect(git(repo, ['fsck', '--strict', '--no-dangling'])).toBe('');
  });
});
