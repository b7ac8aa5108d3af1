/**
 * Opens Berth's SQLite store. WAL with synchronous=FULL: a transaction that returned is on
 * disk, and a crash at any point leaves the last committed state.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { BerthError } from '../../../shared/errors.js';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

export function openDatabase(dataDir: string): Db {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(path.join(dataDir, 'berth.sqlite3'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  try {
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Applies each pending migration in its own transaction, with the version bump inside it. */
export function migrate(db: Db): void {
  const current = schemaVersion(db);
  if (current > MIGRATIONS.length) {
    throw new BerthError(
      'internal',
      `This data folder was written by a newer Berth (schema ${current}; this one knows ${MIGRATIONS.length}). Update Berth to open it.`,
      { hint: 'Update Berth, or start it with another data folder.' },
    );
  }
  for (let version = current; version < MIGRATIONS.length; version++) {
    const step = MIGRATIONS[version] as string;
    db.transaction(() => {
      db.exec(step);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
