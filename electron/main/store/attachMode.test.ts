/** Attach modes in the store: the migration keeps what existing attachments were; Review is stored as such. */
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../../test/support/tempDirs.js';
import { openDatabase } from './database.js';
import { MIGRATIONS } from './migrations.js';
import { createStore } from './repositories.js';

const temp = new TempDirs();
afterEach(() => temp.removeAll());

describe('attachment modes', () => {
  it('keeps existing read-write and read-only attachments as they were after the upgrade', () => {
    const dir = temp.make();
    const old = new Database(path.join(dir, 'berth.sqlite3'));
    // The store as it was just before the attach-mode migration.
    const before = MIGRATIONS.findIndex((m) => m.includes('ADD COLUMN mode'));
    for (const step of MIGRATIONS.slice(0, before)) old.exec(step);
    old.pragma(`user_version = ${before}`);
    old.exec(`INSERT INTO profiles (name, settings, created_at) VALUES ('default', '{}', 1);
      INSERT INTO chats (id, profile, title, created_at) VALUES ('c1', 'default', 't', 1);
      INSERT INTO attachments (chat_id, host_path, read_only, provenance, attached_at, seq) VALUES ('c1', '/rw', 0, 'session', 1, 1), ('c1', '/ro', 1, 'session', 2, 2);`);
    old.close();
    const store = createStore(openDatabase(dir));
    try {
      expect(store.attachments.forChat('c1').map((a) => [a.hostPath, a.mode, a.readOnly])).toEqual([
        ['/rw', 'readwrite', false],
        ['/ro', 'readonly', true],
      ]);
      store.attachments.upsert({ chatId: 'c1', hostPath: '/rw', readOnly: false, mode: 'review', provenance: 'session', attachedAt: 3 });
      expect(store.attachments.forChat('c1')[0]).toMatchObject({ hostPath: '/rw', mode: 'review', readOnly: false });
    } finally {
      store.close();
    }
  });
});
