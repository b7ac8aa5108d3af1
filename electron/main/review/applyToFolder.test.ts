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
});
