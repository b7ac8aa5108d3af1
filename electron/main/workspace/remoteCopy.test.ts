import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyChanges, diffCopy, mirrorCopy } from './remoteCopy.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function tree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-copy-'));
  dirs.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe('a folder copy coming back', () => {
  it('lists added, modified and deleted files, and applies only what it is given', () => {
    const host = tree({ 'a.txt': 'a', 'keep.txt': 'k', 'gone.txt': 'g', 'sub/x': 'x' });
    const copy = tree({ 'a.txt': 'A', 'keep.txt': 'k', 'sub/x': 'x', 'sub/new/y': 'y' });
    const changes = diffCopy(host, copy);
    expect(changes).toEqual([
      { path: 'a.txt', kind: 'modified' },
      { path: 'gone.txt', kind: 'deleted' },
      { path: 'sub/new/y', kind: 'added' },
    ]);
    expect(applyChanges(host, copy, changes.filter((c) => c.kind !== 'deleted'))).toEqual({ applied: ['a.txt', 'sub/new/y'], refused: [] });
    expect(fs.readFileSync(path.join(host, 'a.txt'), 'utf8')).toBe('A');
    expect(fs.readFileSync(path.join(host, 'sub/new/y'), 'utf8')).toBe('y');
    expect(fs.existsSync(path.join(host, 'gone.txt'))).toBe(true);
  });

  it('never writes through a link on the host side, and never takes a link from the copy', () => {
    const outside = tree({ 'secret.txt': 'mine' });
    const host = tree({});
    fs.symlinkSync(outside, path.join(host, 'out'));
    const copy = tree({ 'out/secret.txt': 'overwritten' });
    fs.symlinkSync('/etc/passwd', path.join(copy, 'link'));
    const changes = diffCopy(host, copy);
    expect(changes).toEqual([{ path: 'out/secret.txt', kind: 'added' }]);
    expect(applyChanges(host, copy, changes)).toEqual({ applied: [], refused: ['out/secret.txt'] });
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('mine');
    expect(applyChanges(host, copy, [{ path: '../escape', kind: 'added' }]).refused).toEqual(['../escape']);
  });
});

describe('bringing a remote copy back into the Review copy here (mirrorCopy)', () => {
  it('makes its files and folders the fetched ones: changed, added and removed, modes kept', () => {
    const here = tree({ 'a.txt': 'old\n', 'gone.txt': 'x\n', 'sub/keep.txt': 'k\n', 'old/deep/f.txt': 'f\n' });
    const fetched = tree({ 'a.txt': 'new\n', 'sub/keep.txt': 'k\n', 'sub/added.txt': 'added\n', 'run.sh': '#!/bin/sh\n' });
    fs.chmodSync(path.join(fetched, 'run.sh'), 0o755);
    mirrorCopy(fetched, here);
    expect(fs.readFileSync(path.join(here, 'a.txt'), 'utf8')).toBe('new\n');
    expect(fs.readFileSync(path.join(here, 'sub/added.txt'), 'utf8')).toBe('added\n');
    expect(fs.existsSync(path.join(here, 'gone.txt'))).toBe(false);
    expect(fs.existsSync(path.join(here, 'old'))).toBe(false);
    expect(fs.statSync(path.join(here, 'run.sh')).mode & 0o777).toBe(0o755);
    expect(diffCopy(here, fetched)).toEqual([]);
  });

  it('never writes through a link here: a folder the sandbox wrote where a link was replaces the link', () => {
    const outside = tree({ 'secret.txt': 'mine\n' });
    const here = tree({ 'a.txt': 'a\n' });
    fs.symlinkSync(outside, path.join(here, 'out'));
    // The sandbox wrote a folder named like the link, with a file in it.
    const fetched = tree({ 'a.txt': 'a\n', 'out/secret.txt': 'overwritten\n' });
    mirrorCopy(fetched, here);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('mine\n');
    expect(fs.lstatSync(path.join(here, 'out')).isDirectory()).toBe(true);
    expect(fs.readFileSync(path.join(here, 'out/secret.txt'), 'utf8')).toBe('overwritten\n');
  });

  it('brings links back as links with the target the sandbox gave, never followed; links the copy dropped go', () => {
    const outside = tree({ 'secret.txt': 'mine\n' });
    const here = tree({ 'a.txt': 'a\n', 'sub/f.txt': 'f\n', 'was-file': 'x\n' });
    fs.symlinkSync('a.txt', path.join(here, 'dropped'));
    fs.symlinkSync('a.txt', path.join(here, 'moved'));
    const fetched = tree({ 'a.txt': 'a\n', 'sub/f.txt': 'f\n' });
    fs.symlinkSync('a.txt', path.join(fetched, 'ok-link'));
    fs.symlinkSync('sub/f.txt', path.join(fetched, 'moved'));
    fs.symlinkSync(outside, path.join(fetched, 'out'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(fetched, 'was-file'));
    mirrorCopy(fetched, here);
    const link = (rel: string) => (fs.lstatSync(path.join(here, rel)).isSymbolicLink() ? fs.readlinkSync(path.join(here, rel)) : 'not a link');
    expect([link('ok-link'), link('moved'), link('out'), link('was-file')]).toEqual(['a.txt', 'sub/f.txt', outside, path.join(outside, 'secret.txt')]);
    expect(fs.existsSync(path.join(here, 'dropped'))).toBe(false);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('mine\n');
    expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
    // Mirrored again with nothing changed: nothing is rewritten.
    const before = fs.lstatSync(path.join(here, 'ok-link')).ino;
    mirrorCopy(fetched, here);
    expect(fs.lstatSync(path.join(here, 'ok-link')).ino).toBe(before);
  });

  it('leaves files the fetch knew unchanged alone, and gives what it writes the engine\'s time', () => {
    const here = tree({ 'same.txt': 'same\n', 'changed.txt': 'old\n', 'gone.txt': 'g\n' });
    const fetched = tree({ 'changed.txt': 'new\n' });
    const then = new Date('2024-05-01T10:00:00Z');
    fs.utimesSync(path.join(fetched, 'changed.txt'), then, then);
    const before = fs.statSync(path.join(here, 'same.txt')).ino;
    mirrorCopy(fetched, here, new Set(['same.txt']));
    expect(fs.statSync(path.join(here, 'same.txt')).ino).toBe(before);
    expect(fs.existsSync(path.join(here, 'gone.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(here, 'changed.txt'), 'utf8')).toBe('new\n');
    expect(fs.statSync(path.join(here, 'changed.txt')).mtime.getTime()).toBe(then.getTime());
  });

  it('makes a file over the per-file cap a file of its size with no data (listed as too large, 0 blocks), and removes nothing after a stopped fetch', () => {
    const here = tree({ 'a.txt': 'old\n', 'kept.txt': 'k\n' });
    const fetched = tree({ 'a.txt': 'new\n' });
    const then = new Date('2024-05-01T10:00:00Z');
    const size = 3 * 1024 ** 3;
    mirrorCopy(fetched, here, new Set(), { tooLarge: new Map([['big.bin', { size, mode: 0o644, mtime: then }]]), stoppedAt: 'z.txt' });
    const big = fs.statSync(path.join(here, 'big.bin'));
    expect([big.size, big.blocks, big.mtime.getTime()]).toEqual([size, 0, then.getTime()]);
    expect(fs.readFileSync(path.join(here, 'a.txt'), 'utf8')).toBe('new\n');
    // kept.txt was not in the part of the copy that was read: it stays.
    expect(fs.readFileSync(path.join(here, 'kept.txt'), 'utf8')).toBe('k\n');
    // The same entry again: the file here is left alone.
    const ino = big.ino;
    mirrorCopy(fetched, here, new Set(), { tooLarge: new Map([['big.bin', { size, mode: 0o644, mtime: then }]]), stoppedAt: null });
    expect(fs.statSync(path.join(here, 'big.bin')).ino).toBe(ino);
    expect(fs.existsSync(path.join(here, 'kept.txt'))).toBe(false);
  });

  it('compares files of the same size chunk by chunk: a difference past the first chunk is a change', () => {
    const body = 'x'.repeat(3 * 1024 * 1024);
    const here = tree({ 'f.bin': body });
    const fetched = tree({ 'f.bin': `${body.slice(0, -1)}y` });
    mirrorCopy(fetched, here);
    expect(fs.readFileSync(path.join(here, 'f.bin'), 'utf8').endsWith('y')).toBe(true);
    expect(diffCopy(here, fetched)).toEqual([]);
  });
});
