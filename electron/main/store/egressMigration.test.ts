import Database from 'better-sqlite3';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_EGRESS_ALLOW, ProfileSettings } from '../../../shared/contract.js';
import { openDatabase } from './database.js';
import { MIGRATIONS } from './migrations.js';
import { createStore } from './repositories.js';
import { TempDirs } from '../../../test/support/tempDirs.js';

const temp = new TempDirs();
afterEach(() => temp.removeAll());

/** A store as a Berth from before egress left it: profiles with `network` and no `egress`. */
function storeBeforeEgress(dir: string, profiles: Record<string, object>): void {
  const raw = new Database(path.join(dir, 'berth.sqlite3'));
  const before = MIGRATIONS.findIndex((m) => m.includes("'$.egress'"));
  for (const m of MIGRATIONS.slice(0, before)) raw.exec(m);
  raw.pragma(`user_version = ${before}`);
  const insert = raw.prepare('INSERT INTO profiles (name, settings, created_at) VALUES (?, ?, 1)');
  for (const [name, settings] of Object.entries(profiles)) insert.run(name, JSON.stringify(settings));
  raw.close();
}

describe("the egress migration (profile setting 'network' became 'egress')", () => {
  it("keeps what each existing profile could reach: 'isolated' and no setting become 'open', 'none' stays 'none'", () => {
    const dir = temp.make();
    storeBeforeEgress(dir, {
      default: { image: 'debian:bookworm-slim', network: 'isolated' },
      offline: { image: 'x', network: 'none', containerScope: 'shared' },
      older: { image: 'y' },
    });
    const db = openDatabase(dir);
    const profiles = createStore(db).profiles;
    expect(profiles.get('default')?.settings.egress).toBe('open');
    expect(profiles.get('offline')?.settings.egress).toBe('none');
    expect(profiles.get('offline')?.settings.containerScope).toBe('shared');
    expect(profiles.get('older')?.settings.egress).toBe('open');
    const stored = JSON.parse((db.prepare("SELECT settings FROM profiles WHERE name = 'offline'").get() as { settings: string }).settings);
    expect(stored.network).toBeUndefined();
    db.close();
  });

  it("gives new profiles 'allowlist' with the registries and source hosts", () => {
    const fresh = ProfileSettings.parse({});
    expect(fresh.egress).toBe('allowlist');
    expect(fresh.egressAllow).toEqual(DEFAULT_EGRESS_ALLOW);
    expect(fresh.egressAllow).toEqual(expect.arrayContaining(['registry.npmjs.org', 'pypi.org', 'github.com']));
  });
});
