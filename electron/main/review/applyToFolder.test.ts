import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../../test/support/tempDirs.js';
import { applyWrites, leadingLinkProblem } from './applyToFolder.js';

const temp = new TempDirs();
afterEach(() => temp.removeAll());

describe('applyWrites', () => {
  it('writes files, links and deletions, leaving no temporary files', () => {
    const root = temp.make();
    fs.writeFileSync(path.join(root, 'old.txt'), 'old');
    fs.writeFileSync(path.join(root, 'keep.txt'), 'v1');
    applyWrites(root, [
      { kind: 'file', path: 'keep.txt', content: Buffer.from('v2'), executable: false },
      { kind: 'file', path: 'deep/new/run.sh', content: Buffer.from('#!/bin/sh\n'), executable: true },
      { kind: 'symlink', path: 'link', target: 'keep.txt' },
      { kind: 'delete', path: 'old.txt' },
    ]);
    expect(fs.readFileSync(path.join(root, 'keep.txt'), 'utf8')).toBe('v2');
    expect(fs.statSync(path.join(root, 'deep/new/run.sh')).mode & 0o111).not.toBe(0);
    expect(fs.readlinkSync(path.join(root, 'link'))).toBe('keep.txt');
    expect(fs.readdirSync(root).sort()).toEqual(['deep', 'keep.txt', 'link']);
  });

  it('never writes through a link in the folder, and applies nothing when one write is refused', () => {
    const root = temp.make();
    const outside = temp.make();
    fs.writeFileSync(path.join(root, 'a.txt'), 'a');
    fs.symlinkSync(outside, path.join(root, 'docs'));
    expect(leadingLinkProblem(root, 'docs/x.txt')).toMatch(/link/);
    expect(() =>
      applyWrites(root, [
        { kind: 'file', path: 'a.txt', content: Buffer.from('changed'), executable: false },
        { kind: 'file', path: 'fresh/b.txt', content: Buffer.from('b'), executable: false },
        { kind: 'file', path: 'docs/x.txt', content: Buffer.from('x'), executable: false },
      ]),
    ).toThrow(/Nothing was applied/);
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a');
    expect(fs.readdirSync(root).sort()).toEqual(['a.txt', 'docs']);
  });

  it('replaces a link at the target itself instead of following it', () => {
    const root = temp.make();
    const outside = temp.make();
    fs.writeFileSync(path.join(outside, 'victim'), 'safe');
    fs.symlinkSync(path.join(outside, 'victim'), path.join(root, 'f'));
    applyWrites(root, [{ kind: 'file', path: 'f', content: Buffer.from('new'), executable: false }]);
    expect(fs.readFileSync(path.join(outside, 'victim'), 'utf8')).toBe('safe');
    expect(fs.lstatSync(path.join(root, 'f')).isFile()).toBe(true);
  });

  // Owners other than Berth's own can only be given as root (Berth's documented set-up here).
  const asRoot = process.getuid?.() === 0;
  if (!asRoot) console.log('applyToFolder.test: owner tests need root (they give files to uid 4242); skipped as uid', process.getuid?.());
  it.runIf(asRoot)('keeps the owner and mode of a file it replaces, and gives new files and folders the owner of the folder they are made in', () => {
    const root = temp.make();
    fs.chownSync(root, 4242, 4243);
    const own = (p: string) => fs.lstatSync(path.join(root, p));
    fs.writeFileSync(path.join(root, 'secret.txt'), 'old');
    fs.chmodSync(path.join(root, 'secret.txt'), 0o640);
    fs.chownSync(path.join(root, 'secret.txt'), 4242, 4243);
    fs.writeFileSync(path.join(root, 'tool'), 'old');
    fs.chmodSync(path.join(root, 'tool'), 0o640);
    fs.chownSync(path.join(root, 'tool'), 4244, 4245);
    applyWrites(root, [
      { kind: 'file', path: 'secret.txt', content: Buffer.from('new'), executable: false },
      { kind: 'file', path: 'tool', content: Buffer.from('#!/bin/sh\n'), executable: true },
      { kind: 'file', path: 'made/deep/n.txt', content: Buffer.from('n'), executable: false },
      { kind: 'symlink', path: 'made/link', target: 'deep/n.txt' },
    ]);
    expect(fs.readFileSync(path.join(root, 'secret.txt'), 'utf8')).toBe('new');
    const view = (p: string) => ({ uid: own(p).uid, gid: own(p).gid, mode: (own(p).mode & 0o7777).toString(8) });
    expect(view('secret.txt')).toEqual({ uid: 4242, gid: 4243, mode: '640' });
    // Made executable: execute where it could be read, as chmod +x would for 0640.
    expect(view('tool')).toEqual({ uid: 4244, gid: 4245, mode: '750' });
    expect([view('made'), view('made/deep'), view('made/deep/n.txt')].map((v) => [v.uid, v.gid])).toEqual([[4242, 4243], [4242, 4243], [4242, 4243]]);
    expect([own('made/link').uid, own('made/link').gid]).toEqual([4242, 4243]);
  });
});
