import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../../test/support/tempDirs.js';
import { recheckReviewCopy } from './reviewMounts.js';
import { emptySlot, fillSlot, hasSlot, isSlotFolder, makeSlot, recheckSlotFolder, slotDirFor, sweepSlots } from './slotFolders.js';

const temp = new TempDirs();
afterEach(() => temp.removeAll());

/** A data folder with one slot, and a finished copy's work tree in Berth's private review folder. */
function setup() {
  const dataDir = fs.realpathSync(temp.make());
  const slot = slotDirFor(dataDir, 'p', 'chat-1');
  makeSlot(slot);
  const work = path.join(dataDir, 'review', 'abc', 'work');
  fs.mkdirSync(path.join(work, 'sub'), { recursive: true, mode: 0o700 });
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
});
