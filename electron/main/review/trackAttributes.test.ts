import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../../test/support/tempDirs.js';
import { gitText } from './git.js';
import { ReviewCopy } from './reviewCopy.js';
import { CONTENT_ATTRIBUTES, overrideAttributes } from './trackAttributes.js';

const temp = new TempDirs();
afterEach(() => temp.removeAll());

function write(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
}

describe('overrideAttributes', () => {
  it('leaves every content attribute unspecified, whatever the work tree’s .gitattributes, nested ones and macros say', async () => {
    const gitDir = path.join(temp.make(), 'track.git');
    execFileSync('git', ['init', '-q', '--bare', gitDir]);
    const work = temp.make();
    write(work, {
      '.gitattributes': '[attr]sneaky -diff -text filter=x ident\n* -diff binary sneaky text eol=crlf filter=x ident export-subst export-ignore merge=ours delta=false whitespace=-trailing\n',
      'sub/.gitattributes': '* -diff working-tree-encoding=UTF-16 crlf\n',
      'a.txt': 'a\n',
      'sub/deep/b.txt': 'b\n',
    });
    const check = () => gitText(['check-attr', ...CONTENT_ATTRIBUTES, '--', 'a.txt', 'sub/deep/b.txt'], { gitDir, workTree: work });
    // Control: without the override git obeys them.
    expect(await check()).toMatch(/a\.txt: diff: unset/);
    overrideAttributes(gitDir);
    const lines = (await check()).split('\n');
    expect(lines).toHaveLength(2 * CONTENT_ATTRIBUTES.length);
    for (const line of lines) expect(line).toMatch(/: unspecified$/);
  });
});

describe('a copy of a repository whose own attributes convert files', () => {
  it('holds the bytes the user has on disk, not the converted blobs of their index', async () => {
    const repo = temp.make();
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=U', '-c', 'user.email=u@example.com', ...args], { cwd: repo, env: { PATH: process.env.PATH, HOME: repo, GIT_CONFIG_NOSYSTEM: '1' } });
    git('init', '-q', '-b', 'main');
    write(repo, { '.gitattributes': 'crlf/* text eol=crlf\nid/* ident\n', 'crlf/w.txt': 'one\r\ntwo\r\n', 'id/i.txt': '$Id$\n', 'plain.txt': 'plain\n' });
    git('add', '-A');
    git('commit', '-q', '-m', 'first');
    // As the user's checkout leaves them: CRLF on disk (LF stored), $Id$ expanded on disk.
    fs.rmSync(path.join(repo, 'id/i.txt'));
    git('checkout', '--', 'id/i.txt');
    // Files older than the index, as in any real repository: git trusts the index's stat data for them.
    const old = new Date(Date.now() - 3600_000);
    for (const p of ['crlf/w.txt', 'id/i.txt', 'plain.txt', '.gitattributes']) fs.utimesSync(path.join(repo, p), old, old);
    git('update-index', '--refresh');
    const onDisk = (root: string) => Object.fromEntries(['crlf/w.txt', 'id/i.txt', 'plain.txt'].map((p) => [p, fs.readFileSync(path.join(root, p), 'latin1')]));
    const user = onDisk(repo);
    expect(user['id/i.txt']).toMatch(/^\$Id: [0-9a-f]{40} \$\n$/);
    const copy = await ReviewCopy.create({
      dir: path.join(temp.make(), 'copy'), chatId: 'c1', hostPath: repo, branch: 'berth/c1', contents: { ignored: false, include: [] }, owner: null, now: 1,
      progress: () => undefined,
    });
    expect(onDisk(copy.workDir)).toEqual(user);
    // The copy and the folder agree: nothing is listed as changed.
    expect(await copy.diff(copy.meta.baseTree, (await copy.snapshot()).tree)).toEqual([]);
  });
});
