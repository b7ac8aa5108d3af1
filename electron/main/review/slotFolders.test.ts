import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../../test/support/tempDirs.js';
import { recheckReviewCopy } from './reviewMounts.js';
import { hasSlot, isSlotFolder, makeSlot, placeInSlot, recheckSlotFolder, removeFromSlot, slotDirFor, sweepSlots } from './slotFolders.js';

const temp = new TempDirs();
afterEach(() => temp.removeAll());

/** A data folder with one slot, and a finished copy's work tree in Berth's private review folder. */
function setup() {
  const dataDir = fs.realpathSync(temp.make());
  const slot = slotDirFor(dataDir, 'p', 'chat-1');
  makeSlot(slot);
  const work = path.join(dataDir, 'review', 'abc', 'work');
  fs.mkdirSync(work, { recursive: true });
  fs.writeFileSync(path.join(work, 'a.txt'), 'a');
  return { dataDir, slot, work };
}

describe('slot folders', () => {
  it('are Berth’s: the top level is writable by nobody, and a copy moved in keeps its name or the next free one', () => {
    const { dataDir, slot, work } = setup();
    expect(fs.statSync(slot).mode & 0o777).toBe(0o555);
    expect(isSlotFolder(slot, dataDir)).toBe(true);
    expect(placeInSlot(slot, 'notes', work)).toBe(path.join(slot, 'notes'));
    expect(fs.readFileSync(path.join(slot, 'notes', 'a.txt'), 'utf8')).toBe('a');
    expect(fs.statSync(slot).mode & 0o777).toBe(0o555);
    const again = path.join(dataDir, 'review', 'def', 'work');
    fs.mkdirSync(again, { recursive: true });
    expect(placeInSlot(slot, 'notes', again)).toBe(path.join(slot, 'notes-2'));
    // A copy in the slot is mountable as a copy; something beside the slot is not.
    expect(() => recheckReviewCopy(path.join(slot, 'notes'), dataDir)).not.toThrow();
    removeFromSlot(path.join(slot, 'notes'));
    expect(fs.readdirSync(slot)).toEqual(['notes-2']);
  });

  it('never moves a copy onto a link someone put in the slot, and refuses a slot that is a link', () => {
    const { dataDir, slot, work } = setup();
    const outside = temp.make();
    fs.chmodSync(slot, 0o755);
    fs.symlinkSync(outside, path.join(slot, 'notes'));
    fs.chmodSync(slot, 0o555);
    expect(placeInSlot(slot, 'notes', work)).toBe(path.join(slot, 'notes-2'));
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(() => recheckReviewCopy(path.join(slot, 'notes'), dataDir)).toThrow(/missing or was replaced/);

    const linked = slotDirFor(dataDir, 'p', 'chat-2');
    fs.symlinkSync(outside, linked);
    expect(hasSlot(linked)).toBe(false);
    expect(() => recheckSlotFolder(linked, dataDir)).toThrow(/missing or was replaced/);
    expect(() => recheckSlotFolder(outside, dataDir)).toThrow(/missing or was replaced/);
  });

  it('are swept when neither a chat nor a reservation has their name; links are removed, never followed', () => {
    const { dataDir, slot } = setup();
    const gone = slotDirFor(dataDir, 'p', 'gone');
    makeSlot(gone);
    const outside = temp.make();
    fs.writeFileSync(path.join(outside, 'keep.txt'), 'k');
    fs.symlinkSync(outside, slotDirFor(dataDir, 'p', 'linked'));
    expect(sweepSlots(dataDir, ['p', 'other'], () => new Set(['chat-1']))).toBe(2);
    expect(hasSlot(slot)).toBe(true);
    expect(fs.existsSync(gone)).toBe(false);
    expect(fs.readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('k');
  });
});
