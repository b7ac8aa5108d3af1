import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProfileSettings } from '../../../shared/contract.js';
import { systemClock } from '../base/clock.js';
import { openDatabase } from '../store/database.js';
import { createStore, type Store } from '../store/repositories.js';
import { ProviderKeys } from './providerKeys.js';
import { keyFileBox } from './secrets/secretBox.js';

let tmp: string;
let store: Store;
let keys: ProviderKeys;

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-keys-'));
  store = createStore(openDatabase(tmp));
  for (const name of ['work', 'home']) store.profiles.insert({ name, settings: ProfileSettings.parse({}), createdAt: 0 });
  const box = keyFileBox(tmp, {});
  keys = new ProviderKeys(store, () => box, systemClock);
});
afterEach(() => {
  store.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('ProviderKeys', () => {
  it('stores the key sealed, and gives it back only for its own profile and origin', () => {
    expect(keys.set('work', 'https://api.example.com/v1', 'sk-work')).toEqual({ profile: 'work', hasKey: true, origin: 'https://api.example.com' });
    // The database and its write-ahead log: the key is in neither as plain text.
    const files = fs.readdirSync(tmp).filter((f) => f.startsWith('berth.sqlite3'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(fs.readFileSync(path.join(tmp, f)).includes(Buffer.from('sk-work')), f).toBe(false);
    expect(keys.keyFor('work', 'https://api.example.com/v1/')).toBe('sk-work');
    expect(keys.keyFor('home', 'https://api.example.com/v1')).toBeNull();
  });

  it("fails, and does not fall back, when a profile's row holds another profile's key", () => {
    keys.set('work', 'https://api.example.com/v1', 'sk-work');
    const stolen = store.providerKeys.get('work');
    store.providerKeys.set({ ...(stolen as NonNullable<typeof stolen>), profile: 'home' }, 0);
    expect(() => keys.keyFor('home', 'https://api.example.com/v1')).toThrow(/cannot be decrypted/);
    expect(keys.keyFor('work', 'https://api.example.com/v1')).toBe('sk-work');
  });

  it('never sends a key to an origin other than the one it was saved for', () => {
    keys.set('work', 'https://api.example.com/v1', 'sk-work');
    expect(() => keys.keyFor('work', 'https://evil.example.net/v1')).toThrow(/was saved for https:\/\/api.example.com.*does not send it there/);
  });

  it('needs a provider URL before a key, and forgets the key on clear', () => {
    expect(() => keys.set('work', null, 'sk')).toThrow(/provider URL/);
    keys.set('work', 'http://127.0.0.1:11434/v1', 'sk');
    expect(keys.clear('work')).toEqual({ profile: 'work', hasKey: false, origin: null });
    expect(keys.keyFor('work', 'http://127.0.0.1:11434/v1')).toBeNull();
  });
});
