/**
 * The data folder's disk fills up: Berth says so clearly, loses nothing it had saved, keeps a
 * consistent store, and works again once there is space. The data folder is a small tmpfs the
 * test mounts (as root) and unmounts after.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthCore } from '../../electron/main/core.js';
import { Harness } from '../support/harness.js';

const unavailable = process.getuid?.() === 0 ? null : 'mounting a small tmpfs needs root';
if (unavailable) console.log(`diskFull.test.ts skipped: ${unavailable}.`);

const h = new Harness();
let mountPoint = '';
let core: BerthCore;

beforeAll(() => {
  if (unavailable) return;
  mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-small-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m,mode=0700', 'tmpfs', mountPoint]);
});
afterAll(async () => {
  // Space first, so cleanup can delete what the test made.
  if (mountPoint) fs.rmSync(path.join(mountPoint, 'filler'), { force: true });
  try {
    await h.cleanup();
  } finally {
    if (mountPoint) {
      execFileSync('umount', ['-l', mountPoint]);
      fs.rmdirSync(mountPoint);
    }
  }
});

/** Fills the disk: a file grown until the disk refuses more. */
function fill(dir: string): string {
  const file = path.join(dir, 'filler');
  const fd = fs.openSync(file, 'w');
  try {
    for (const size of [1 << 20, 1 << 12, 1]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          fs.writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return file;
}

describe.skipIf(unavailable !== null)('the data folder’s disk is full', () => {
  it('says so clearly, loses nothing saved, keeps the store consistent, and recovers when space returns', async () => {
    const dataDir = path.join(mountPoint, 'data');
    core = h.core({ dataDir });
    const profile = await h.profile(core);
    const kept = await core.chats.create({ profile: profile.name, title: 'saved before' });
    expect((await core.sandbox.exec({ chatId: kept.id, command: 'echo hi' })).output).toBe('hi\n');

    const filler = fill(mountPoint);
    // Writes until the store needs a page it cannot get; each either lands or fails clearly.
    let refusal: { code: string; message: string; hint?: string } | null = null;
    const landed: string[] = [];
    for (let i = 0; i < 500 && !refusal; i++) {
      try {
        landed.push((await core.chats.create({ profile: profile.name, title: `while full ${i} ${'x'.repeat(150)}` })).id);
      } catch (error) {
        refusal = error as typeof refusal;
      }
    }
    expect(refusal).toMatchObject({ message: expect.stringMatching(/disk .*is full/), hint: expect.stringMatching(/free/i) });
    // Still answering, nothing saved lost, and the sandbox still runs commands.
    const listed = (await core.chats.list({ profile: profile.name })).chats.map((c) => c.id);
    expect(listed).toEqual(expect.arrayContaining([kept.id, ...landed]));
    await expect(core.chats.rename({ chatId: kept.id, title: 'renamed while full' })).rejects.toMatchObject({ message: expect.stringMatching(/is full/) });
    const db = new Database(path.join(dataDir, 'berth.sqlite3'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }

    // Space returns: the same calls work, with no restart.
    fs.rmSync(filler);
    const after = await core.chats.create({ profile: profile.name, title: 'after' });
    await core.chats.rename({ chatId: kept.id, title: 'renamed after' });
    const titles = (await core.chats.list({ profile: profile.name })).chats.map((c) => c.title);
    expect(titles).toEqual(expect.arrayContaining(['renamed after', 'after']));
    expect((await core.sandbox.exec({ chatId: after.id, command: 'echo again' })).output).toBe('again\n');
  }, 120_000);
});
