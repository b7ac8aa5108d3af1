import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../../test/support/tempDirs.js';
import { waitFor } from '../../../test/support/waitFor.js';
import { recheckReviewCopy } from './reviewMounts.js';
import { arrangeSlot, emptySlot, fillSlot, hasSlot, isSlotFolder, makeSlot, recheckSlotFolder, removeFromSlot, slotDirFor, sweepSlots } from './slotFolders.js';

const temp = new TempDirs();
afterEach(() => temp.removeAll());

/** A data folder with one slot, and a finished copy's work tree in Berth's private review folder. */
function setup() {
  const dataDir = fs.realpathSync(temp.make());
  const slot = slotDirFor(dataDir, 'p', 'chat-1');
  makeSlot(slot);
  const work = path.join(dataDir, 'review', 'abc', 'work');
  fs.mkdirSync(path.join(work, 'sub', 'd'), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(work, 'a.txt'), 'a');
  fs.chownSync(work, 1000, 1000);
  return { dataDir, slot, work };
}

describe('slot folders', () => {
  it('start empty and Berth’s; the first copy fills the slot in place (same folder) and it is handed over as the copy’s work tree', () => {
    const { dataDir, slot, work } = setup();
    expect(fs.statSync(slot).mode & 0o777).toBe(0o555);
    expect(isSlotFolder(slot, dataDir)).toBe(true);
    const inode = fs.statSync(slot).ino;
    expect(fillSlot(slot, work)).toBe(true);
    expect(fs.statSync(slot).ino).toBe(inode);
    expect(fs.readdirSync(slot).sort()).toEqual(['a.txt', 'sub']);
    expect(fs.existsSync(work)).toBe(false);
    expect(fs.statSync(slot)).toMatchObject({ uid: 1000, gid: 1000 });
    expect(fs.statSync(slot).mode & 0o777).toBe(0o700);
    // A slot a copy holds is not free: a second copy stays where it was made.
    const second = path.join(dataDir, 'review', 'def', 'work');
    fs.mkdirSync(second, { recursive: true });
    expect(fillSlot(slot, second)).toBe(false);
    expect(() => recheckReviewCopy(slot, dataDir)).not.toThrow();

    emptySlot(slot);
    expect(fs.readdirSync(slot)).toEqual([]);
    expect(fs.statSync(slot).mode & 0o777).toBe(0o555);
    expect(fs.statSync(slot).uid).toBe(process.getuid?.());
    expect(fs.statSync(slot).ino).toBe(inode);
    expect(fs.readdirSync(path.dirname(slot))).toEqual([path.basename(slot)]);
  });

  it('refuses a slot that is a link, or a folder outside the profiles’ slots', () => {
    const { dataDir } = setup();
    const outside = temp.make();
    const linked = slotDirFor(dataDir, 'p', 'chat-2');
    fs.symlinkSync(outside, linked);
    expect(hasSlot(linked)).toBe(false);
    expect(() => recheckSlotFolder(linked, dataDir)).toThrow(/missing or was replaced/);
    expect(() => recheckSlotFolder(outside, dataDir)).toThrow(/missing or was replaced/);
    expect(() => recheckReviewCopy(linked, dataDir)).toThrow(/missing or was replaced/);
    const work = path.join(dataDir, 'review', 'x', 'work');
    fs.mkdirSync(work, { recursive: true });
    expect(fillSlot(linked, work)).toBe(false);
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it('are swept when neither a chat nor a reservation has their name; links are removed, never followed', () => {
    const { dataDir, slot } = setup();
    const gone = slotDirFor(dataDir, 'p', 'gone');
    makeSlot(gone);
    fs.chmodSync(gone, 0o700);
    fs.writeFileSync(path.join(gone, 'left.txt'), 'x');
    fs.chmodSync(gone, 0o555);
    const outside = temp.make();
    fs.writeFileSync(path.join(outside, 'keep.txt'), 'k');
    fs.symlinkSync(outside, slotDirFor(dataDir, 'p', 'linked'));
    expect(sweepSlots(dataDir, ['p', 'other'], () => new Set(['chat-1']))).toBe(2);
    expect(hasSlot(slot)).toBe(true);
    expect(fs.existsSync(gone)).toBe(false);
    expect(fs.readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('k');
  });

  it('holds several copies each in its named folder, in place (the same slot), Berth’s at the top; one left fills it again', () => {
    const { dataDir, slot, work } = setup();
    const inode = fs.statSync(slot).ino;
    expect(fillSlot(slot, work)).toBe(true);
    // A copy holding a folder named as its own new place, and a second copy made outside.
    fs.mkdirSync(path.join(slot, 'notes'));
    fs.writeFileSync(path.join(slot, 'notes', 'inner.txt'), 'i');
    const second = path.join(dataDir, 'review', 'def', 'work');
    fs.mkdirSync(second, { recursive: true });
    fs.writeFileSync(path.join(second, 'b.txt'), 'b');
    fs.chownSync(second, 1000, 1000);
    const [one, two] = arrangeSlot(slot, [slot, second], ['notes', 'site']) as [string, string];
    expect([one, two]).toEqual([path.join(slot, 'notes'), path.join(slot, 'site')]);
    expect(fs.statSync(slot).ino).toBe(inode);
    expect(fs.readdirSync(slot).sort()).toEqual(['notes', 'site']);
    expect(fs.readdirSync(one).sort()).toEqual(['a.txt', 'notes', 'sub']);
    expect(fs.readFileSync(path.join(one, 'notes', 'inner.txt'), 'utf8')).toBe('i');
    expect(fs.readFileSync(path.join(two, 'b.txt'), 'utf8')).toBe('b');
    expect(fs.statSync(slot)).toMatchObject({ uid: process.getuid?.() });
    expect(fs.statSync(slot).mode & 0o777).toBe(0o555);
    expect(fs.statSync(one)).toMatchObject({ uid: 1000, gid: 1000 });
    // Each is a copy Berth mounts if the chat leaves the slot; a hidden name never is.
    expect(() => recheckReviewCopy(one, dataDir)).not.toThrow();
    fs.mkdirSync(path.join(slot, '.berth-x'));
    expect(() => recheckReviewCopy(path.join(slot, '.berth-x'), dataDir)).toThrow(/missing or was replaced/);
    fs.rmdirSync(path.join(slot, '.berth-x'));
    // Names that swap places land right.
    const [a, b] = arrangeSlot(slot, [one, two], ['site', 'notes']) as [string, string];
    expect(fs.readFileSync(path.join(b, 'b.txt'), 'utf8')).toBe('b');
    expect(fs.existsSync(path.join(a, 'a.txt'))).toBe(true);
    // One goes; the other fills the slot again, handed over as its work tree.
    removeFromSlot(b);
    expect(arrangeSlot(slot, [a], [])).toEqual([slot]);
    expect(fs.readdirSync(slot).sort()).toEqual(['a.txt', 'notes', 'sub']);
    expect(fs.statSync(slot)).toMatchObject({ uid: 1000, gid: 1000 });
    expect(fs.statSync(slot).ino).toBe(inode);
  });
});

/**
 * A process standing in a folder of the copy keeps that folder when Berth moves it out of the
 * mount, and swaps a folder there for a link to a host folder (renameat2 RENAME_EXCHANGE, x86_64
 * syscall 316, as fast as it can). Removing what left the mount by path (Node's
 * rmSync) listed the host folder through the link and unlinked its files: 173 of 200 in one of
 * five tries before the removal went link-safe.
 */
describe('slot folders while a process of the chat swaps a folder in them for a link', () => {
  function swapperIn(dir: string, host: string) {
    const perl = `symlink("${host}", "l"); my ($a, $b) = ("d", "l"); my $t = time + 3; while (time < $t) { syscall(316, -100, $a, -100, $b, 2) }`;
    return spawn('perl', ['-e', perl], { cwd: dir, stdio: 'ignore' });
  }

  it('removes and empties without creating, removing or writing anything in the host folder', async () => {
    const host = temp.make();
    const names = Array.from({ length: 200 }, (_, i) => `f${i}.txt`);
    for (const n of names) fs.writeFileSync(path.join(host, n), `host ${n}`);
    const state = () => fs.readdirSync(host).sort().map((n) => `${n}=${fs.readFileSync(path.join(host, n), 'utf8')}`);
    const before = state();
    for (let attempt = 0; attempt < 10; attempt++) {
      const { dataDir, slot, work } = setup();
      for (const n of names) fs.writeFileSync(path.join(work, 'sub', 'd', n), 'the chat’s own', { flag: 'w' });
      for (let i = 0; i < 1500; i++) fs.writeFileSync(path.join(work, 'sub', `bulk${i}`), 'b');
      expect(fillSlot(slot, work)).toBe(true);
      const second = path.join(dataDir, 'review', 'def', 'work');
      fs.mkdirSync(second, { recursive: true });
      const [one] = arrangeSlot(slot, [slot, second], ['notes', 'site']) as [string, string];
      const swapper = swapperIn(path.join(one, 'sub'), host);
      const exited = new Promise((resolve) => swapper.on('exit', resolve));
      await waitFor(async () => fs.existsSync(path.join(one, 'sub', 'l')) || undefined, 'the swapper');
      let error = '';
      try {
        if (attempt % 2 === 0) removeFromSlot(one);
        else {
          removeFromSlot(path.join(slot, 'site'));
          arrangeSlot(slot, [one], []);
          emptySlot(slot);
        }
      } catch (e) {
        error = (e as Error).message;
      }
      swapper.kill('SIGKILL');
      await exited;
      const now = state();
      expect({ attempt, gone: before.filter((f) => !now.includes(f)).length, added: now.filter((f) => !before.includes(f)), error })
        .toEqual({ attempt, gone: 0, added: [], error: '' });
    }
  }, 120_000);
});
