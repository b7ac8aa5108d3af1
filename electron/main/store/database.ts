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

const DB_FILE = 'berth.sqlite3';

/**
 * The data folder holds chat titles, history and the sandboxes' homes: only its user may read
 * it. An existing folder others can read (an older Berth, a hand-made --data-dir) is made
 * private; the store is created owner-only before SQLite opens it, since SQLite gives its -wal
 * and -shm files the database file's mode, and files an older Berth left open are tightened.
 */
function makePrivate(dataDir: string): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const file = path.join(dataDir, DB_FILE);
  try {
    if ((fs.statSync(dataDir).mode & 0o077) !== 0) fs.chmodSync(dataDir, 0o700);
    fs.closeSync(fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o600));
    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      const st = fs.lstatSync(f, { throwIfNoEntry: false });
      if (st?.isFile() && (st.mode & 0o077) !== 0) fs.chmodSync(f, 0o600);
    }
  } catch (error) {
    throw new BerthError('internal', `Berth cannot make its data folder ${dataDir} private to you (${(error as NodeJS.ErrnoException).code ?? 'unknown error'}), so it will not keep chats there.`, {
      hint: 'Use a data folder you own (--data-dir), or make this one yours and readable by you only (chmod 700).',
      cause: error,
    });
  }
}

export function openDatabase(dataDir: string): Db {
  makePrivate(dataDir);
  const db = new Database(path.join(dataDir, DB_FILE));
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
  keepStatements(db);
  return db;
}

/**
 * Each SQL text is prepared once and its statement reused: the repositories prepare theirs on
 * every call, and preparing cost more than running a one-row lookup (a profile, a chat: a
 * Review operation makes several; bench:review --hunks-only, CPU profile). A statement is only
 * ever run to its end here (run, get, all; none iterates), so one statement serves every call.
 */
function keepStatements(db: Db): void {
  const prepare = db.prepare.bind(db);
  const kept = new Map<string, Database.Statement>();
  db.prepare = ((sql: string) => {
    let statement = kept.get(sql);
    if (!statement) {
      statement = prepare(sql);
      kept.set(sql, statement);
    }
    return statement;
  }) as Db['prepare'];
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
