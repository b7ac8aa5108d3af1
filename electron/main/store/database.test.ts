import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, schemaVersion, type Db } from './database.js';
import { MIGRATIONS } from './migrations.js';
import { createStore } from './repositories.js';
import { TempDirs, berthErrorOf } from '../../../test/support/tempDirs.js';
import { toErrorPayload } from '../../../shared/errors.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const temp = new TempDirs();
const open: Db[] = [];
function track(db: Db): Db {
  open.push(db);
  return db;
}

afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
  temp.removeAll();
});

describe('openDatabase', () => {
  it('creates the store in a fresh folder with WAL, full sync, foreign keys and the latest schema', () => {
    const dir = path.join(temp.make(), 'nested', 'data');
    const db = track(openDatabase(dir));
    expect(fs.existsSync(path.join(dir, 'berth.sqlite3'))).toBe(true);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    expect(MIGRATIONS.length).toBeGreaterThan(0);
  });

  it('creates the data folder private to the user', () => {
    const dir = path.join(temp.make(), 'data');
    track(openDatabase(dir));
    expect(fs.statSync(dir).mode & 0o077).toBe(0);
  });

  it('makes an existing open data folder private, and the store and its -wal and -shm files owner-only', () => {
    const dir = temp.make();
    fs.chmodSync(dir, 0o755);
    const db = track(openDatabase(dir));
    db.prepare("INSERT INTO settings (key, value) VALUES ('title', 'private')").run();
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    for (const file of ['berth.sqlite3', 'berth.sqlite3-wal', 'berth.sqlite3-shm']) {
      expect(fs.statSync(path.join(dir, file)).mode & 0o077, file).toBe(0);
    }
  });

  it('tightens the files of a store an older Berth left readable by others', () => {
    const dir = temp.make();
    const old = new Database(path.join(dir, 'berth.sqlite3'));
    old.pragma('journal_mode = WAL');
    old.exec('CREATE TABLE t (x)');
    for (const file of ['berth.sqlite3', 'berth.sqlite3-wal', 'berth.sqlite3-shm']) fs.chmodSync(path.join(dir, file), 0o644);
    fs.chmodSync(dir, 0o755);
    track(openDatabase(dir));
    old.close();
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    for (const file of ['berth.sqlite3', 'berth.sqlite3-wal', 'berth.sqlite3-shm']) {
      expect(fs.statSync(path.join(dir, file)).mode & 0o077, file).toBe(0);
    }
  });

  it('reopens an existing store without re-running migrations or losing data', () => {
    const dir = temp.make();
    const first = track(openDatabase(dir));
    first.prepare("INSERT INTO settings (key, value) VALUES ('k', 'v')").run();
    first.close();
    const second = track(openDatabase(dir));
    expect(schemaVersion(second)).toBe(MIGRATIONS.length);
    expect(createStore(second).settings.get('k')).toBe('v');
    second.close();
    expect(() => track(openDatabase(dir)).close()).not.toThrow();
  });

  it('refuses a store written by a newer Berth, with a message saying to update', () => {
    const dir = temp.make();
    const raw = new Database(path.join(dir, 'berth.sqlite3'));
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    const error = berthErrorOf(() => track(openDatabase(dir)));
    expect(error.message).toMatch(/newer Berth.*Update Berth/s);
    expect(error.code).toBe('internal');
    expect(error.hint).toBe('Update Berth, or start it with another data folder.');
    // The user sees the message itself, not the generic "something went wrong".
    expect(toErrorPayload(error)).toEqual({ code: 'internal', message: error.message, hint: error.hint });
    // And leaves the newer schema version alone.
    const check = new Database(path.join(dir, 'berth.sqlite3'), { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length + 1);
    check.close();
  });
});

describe('crash consistency', () => {
  it('keeps every acknowledged insert and an intact database after SIGKILL mid-write', async () => {
    const dir = temp.make();
    const dataDir = path.join(dir, 'data');
    const url = (p: string): string => pathToFileURL(path.resolve(here, p)).href;
    const script = path.join(dir, 'writer.mts');
    fs.writeFileSync(
      script,
      `
import { openDatabase } from ${JSON.stringify(url('database.ts'))};
import { createStore } from ${JSON.stringify(url('repositories.ts'))};
import { ProfileSettings } from ${JSON.stringify(url('../../../shared/contract.ts'))};
const store = createStore(openDatabase(${JSON.stringify(dataDir)}));
store.profiles.insert({ name: 'default', settings: ProfileSettings.parse({}), createdAt: 1 });
process.stdout.write('ready\\n');
for (let i = 0; ; i++) {
  const id = 'chat-' + i;
  store.transaction(() => {
    store.chats.insert({ id, profile: 'default', title: 'Chat ' + i, image: null, createdAt: i });
    store.attachments.upsert({ chatId: id, hostPath: '/p/' + i, readOnly: false, provenance: 'session', attachedAt: i });
  });
  process.stdout.write(id + '\\n');
}
`,
    );

    const acknowledged = await new Promise<string[]>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        cwd: path.resolve(here, '../../..'),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const ids: string[] = [];
      let pending = '';
      let stderr = '';
      let killed = false;
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.stdout.on('data', (d: Buffer) => {
        pending += d.toString();
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) if (line.startsWith('chat-')) ids.push(line);
        if (!killed && ids.length >= 30) {
          killed = true;
          child.kill('SIGKILL');
        }
      });
      child.on('error', reject);
      child.on('close', (code, signal) => {
        if (signal === 'SIGKILL') resolve(ids);
        else reject(new Error(`writer exited (${code}) before it was killed: ${stderr}`));
      });
    });

    expect(acknowledged.length).toBeGreaterThanOrEqual(30);
    const store = createStore(track(openDatabase(dataDir)));
    expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    const present = new Set(store.chats.list('default').map((c) => c.id));
    const missing = acknowledged.filter((id) => !present.has(id));
    expect(missing).toEqual([]);
    // Each chat landed together with its attachment, or not at all.
    for (const id of present) expect(store.attachments.forChat(id)).toHaveLength(1);
  }, 30_000);
});
