import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../../test/support/tempDirs.js';
import { syncToShadow, writeBack } from './shadowCopy.js';

const temp = new TempDirs();
const tmp = (name: string) => temp.make(`berth-shadow-${name}-`);
afterEach(() => temp.removeAll());

describe('a copy read into its shadow', () => {
  it('takes a link as a link and never reads what it names; skips a FIFO without waiting on it; a big file is a placeholder of its size', async () => {
    const outside = tmp('outside');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'host secret\n');
    const copy = tmp('copy');
    const shadow = path.join(tmp('berth'), 'shadow');
    fs.mkdirSync(path.join(copy, 'd'));
    fs.writeFileSync(path.join(copy, 'd', 'a.txt'), 'a\n');
    fs.symlinkSync(outside, path.join(copy, 'l'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(copy, 'f'));
    execFileSync('mkfifo', [path.join(copy, 'pipe')]);
    fs.writeFileSync(path.join(copy, 'big'), 'x'.repeat(100));
    fs.mkdirSync(path.join(copy, '.git'));
    fs.writeFileSync(path.join(copy, '.git', 'config'), '[core]\n');

    await syncToShadow(copy, shadow, 50);
    expect(fs.readlinkSync(path.join(shadow, 'l'))).toBe(outside);
    expect(fs.readlinkSync(path.join(shadow, 'f'))).toBe(path.join(outside, 'secret.txt'));
    expect(fs.readFileSync(path.join(shadow, 'd', 'a.txt'), 'utf8')).toBe('a\n');
    expect(fs.existsSync(path.join(shadow, 'pipe'))).toBe(false);
    expect(fs.existsSync(path.join(shadow, '.git'))).toBe(false);
    expect(fs.statSync(path.join(shadow, 'big')).size).toBe(100);
    expect(fs.readFileSync(path.join(shadow, 'big')).includes('x')).toBe(false);

    // Changed and gone: the next look follows.
    fs.writeFileSync(path.join(copy, 'd', 'a.txt'), 'changed\n');
    fs.rmSync(path.join(copy, 'l'));
    await syncToShadow(copy, shadow, 50);
    expect(fs.readFileSync(path.join(shadow, 'd', 'a.txt'), 'utf8')).toBe('changed\n');
    expect(fs.existsSync(path.join(shadow, 'l'))).toBe(false);
  });
});

describe('the shadow written back into a copy', () => {
  it('replaces a link in the way of a folder instead of writing through it, and gives what it writes to the copy’s owner', () => {
    const outside = tmp('outside');
    const copy = tmp('copy');
    fs.chownSync(copy, 1000, 1000);
    const shadow = tmp('shadow');
    fs.mkdirSync(path.join(shadow, 'd', 'e'), { recursive: true });
    fs.writeFileSync(path.join(shadow, 'd', 'e', 'x.txt'), 'restored\n');
    fs.writeFileSync(path.join(shadow, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    fs.symlinkSync(outside, path.join(copy, 'd'));
    fs.writeFileSync(path.join(copy, 'gone.txt'), 'bye\n');

    writeBack(copy, shadow, [
      { path: 'd/e/x.txt', deleted: false },
      { path: 'run.sh', deleted: false },
      { path: 'gone.txt', deleted: true },
    ]);
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.lstatSync(path.join(copy, 'd')).isDirectory()).toBe(true);
    expect(fs.readFileSync(path.join(copy, 'd', 'e', 'x.txt'), 'utf8')).toBe('restored\n');
    const st = fs.statSync(path.join(copy, 'd', 'e', 'x.txt'));
    expect([st.uid, st.gid, fs.statSync(path.join(copy, 'd', 'e')).uid]).toEqual([1000, 1000, 1000]);
    expect(fs.statSync(path.join(copy, 'run.sh')).mode & 0o777).toBe(0o755);
    expect(fs.existsSync(path.join(copy, 'gone.txt'))).toBe(false);
  });

  it('removes a link the chat put where a removed file was, never what it names', () => {
    const outside = tmp('outside');
    fs.writeFileSync(path.join(outside, 'keep.txt'), 'host\n');
    const copy = tmp('copy');
    const shadow = tmp('shadow');
    fs.symlinkSync(outside, path.join(copy, 'd'));
    writeBack(copy, shadow, [{ path: 'd/keep.txt', deleted: true }, { path: 'd', deleted: true }]);
    expect(fs.readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('host\n');
    expect(fs.existsSync(path.join(copy, 'd'))).toBe(false);
  });
});

describe('writing back into a copy the chat keeps changing', () => {
  it('writes every time while the chat swaps a folder for a link in a tight loop, and never through the link', async () => {
    const outside = tmp('outside');
    fs.writeFileSync(path.join(outside, 'notes.txt'), 'host\n');
    const copy = tmp('copy');
    const shadow = path.join(tmp('berth'), 'shadow');
    fs.mkdirSync(path.join(copy, 'd'));
    fs.writeFileSync(path.join(copy, 'd', 'keep.txt'), 'the chat’s own\n');
    fs.mkdirSync(path.join(shadow, 'd'), { recursive: true });
    fs.writeFileSync(path.join(shadow, 'd', 'notes.txt'), 'restored\n');
    fs.symlinkSync(outside, path.join(copy, 'l'));
    // Exchanges d and l (renameat2 RENAME_EXCHANGE) without pause; when a write replaced the link
    // with a folder, the folder is moved aside and the link made again, so the race never ends.
    const swapper = spawn('perl', ['-e', `chdir $ARGV[0] or die; my ($a, $b, $n) = ("d", "l", 0); while (1) { syscall(316, -100, $a, -100, $b, 2); unless (-l "d" || -l "l") { rename("l", "spare" . $n++); symlink($ARGV[1], "l") } }`, copy, outside], { stdio: 'ignore' });
    const failures: string[] = [];
    try {
      // The swapper runs once d has been seen as the link.
      while (!fs.lstatSync(path.join(copy, 'd'), { throwIfNoEntry: false })?.isSymbolicLink()) await new Promise((r) => setTimeout(r, 5));
      for (let i = 0; i < 2000; i++) {
        try {
          writeBack(copy, shadow, [{ path: 'd/notes.txt', deleted: false }]);
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
    } finally {
      swapper.kill('SIGKILL');
    }
    expect(failures).toEqual([]);
    // The chat's folder, wherever the swapping left it, still holds its own file: a folder in the way is never emptied.
    const folders = fs.readdirSync(copy).filter((n) => fs.lstatSync(path.join(copy, n)).isDirectory());
    expect(folders.filter((n) => fs.existsSync(path.join(copy, n, 'keep.txt')))).toHaveLength(1);
    expect(fs.readdirSync(outside)).toEqual(['notes.txt']);
    expect(fs.readFileSync(path.join(outside, 'notes.txt'), 'utf8')).toBe('host\n');
    // Five looks per folder (as before) lost all five about once in 2,000 writes here.
  }, 60_000);
});
