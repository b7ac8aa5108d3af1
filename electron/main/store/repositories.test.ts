import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProfileSettings } from '../../../shared/contract.js';
import { openDatabase } from './database.js';
import { createStore, type ChatRecord, type Store } from './repositories.js';
import { TempDirs } from '../../../test/support/tempDirs.js';

const temp = new TempDirs();
let store: Store;

beforeEach(() => {
  store = createStore(openDatabase(temp.make()));
  store.profiles.insert({ name: 'default', settings: ProfileSettings.parse({}), createdAt: 1 });
});

afterEach(() => {
  if (store.db.open) store.close();
  temp.removeAll();
});

function chat(id: string, profile = 'default', createdAt = 10): ChatRecord {
  return { id, profile, title: `Chat ${id}`, image: null, createdAt };
}

describe('ProfilesRepo', () => {
  it('round-trips a profile with its settings', () => {
    const settings = ProfileSettings.parse({
      backend: 'docker',
      image: 'node:22',
      containerScope: 'shared',
      staticMounts: [{ source: '/srv/data', target: '/data' }],
      homeTemplate: '/home/u/template',
    });
    store.profiles.insert({ name: 'work', settings, createdAt: 5 });
    expect(store.profiles.get('work')).toEqual({ name: 'work', settings, createdAt: 5 });
    expect(store.profiles.get('missing')).toBeUndefined();
  });

  it('lists profiles by creation time', () => {
    store.profiles.insert({ name: 'b', settings: ProfileSettings.parse({}), createdAt: 3 });
    store.profiles.insert({ name: 'a', settings: ProfileSettings.parse({}), createdAt: 2 });
    expect(store.profiles.list().map((p) => p.name)).toEqual(['default', 'a', 'b']);
  });

  it('refuses a second profile with the same name', () => {
    expect(() => store.profiles.insert({ name: 'default', settings: ProfileSettings.parse({}), createdAt: 9 })).toThrow();
  });

  it("deletes a profile together with its chats, tasks and attachments", () => {
    store.profiles.insert({ name: 'work', settings: ProfileSettings.parse({}), createdAt: 2 });
    store.chats.insert(chat('w1', 'work'));
    store.chats.insert(chat('d1'));
    store.attachments.upsert({ chatId: 'w1', hostPath: '/p', readOnly: false, provenance: 'session', attachedAt: 1 });
    store.tasks.upsert({ qualifiedId: 'profile:work:t', profile: 'work', chatId: 'w1', rawId: 't', parentId: null, override: null });
    store.profiles.delete('work');
    expect(store.chats.get('w1')).toBeUndefined();
    expect(store.attachments.forChat('w1')).toEqual([]);
    expect(store.tasks.get('profile:work:t')).toBeUndefined();
    expect(store.chats.get('d1')).toBeDefined();
  });
});

describe('ChatsRepo', () => {
  it('round-trips a chat, image included', () => {
    const c = { ...chat('c1'), image: 'python:3.12' };
    store.chats.insert(c);
    expect(store.chats.get('c1')).toEqual(c);
    expect(store.chats.get('nope')).toBeUndefined();
  });

  it('lists chats by creation time, all or by profile', () => {
    store.profiles.insert({ name: 'work', settings: ProfileSettings.parse({}), createdAt: 2 });
    store.chats.insert(chat('late', 'default', 30));
    store.chats.insert(chat('early', 'default', 10));
    store.chats.insert(chat('w', 'work', 20));
    expect(store.chats.list().map((c) => c.id)).toEqual(['early', 'w', 'late']);
    expect(store.chats.list('default').map((c) => c.id)).toEqual(['early', 'late']);
    expect(store.chats.list('work').map((c) => c.id)).toEqual(['w']);
  });

  it('refuses a chat in a profile that does not exist', () => {
    expect(() => store.chats.insert(chat('c', 'ghost'))).toThrow();
  });

  it('deleting a chat removes its attachments and tasks, and nothing of other chats', () => {
    store.chats.insert(chat('c1'));
    store.chats.insert(chat('c2'));
    store.attachments.upsert({ chatId: 'c1', hostPath: '/a', readOnly: false, provenance: 'session', attachedAt: 1 });
    store.attachments.upsert({ chatId: 'c2', hostPath: '/b', readOnly: false, provenance: 'session', attachedAt: 1 });
    store.tasks.upsert({ qualifiedId: 'default:t1', profile: 'default', chatId: 'c1', rawId: 't1', parentId: 'c1', override: null });
    store.tasks.upsert({ qualifiedId: 'default:t2', profile: 'default', chatId: 'c2', rawId: 't2', parentId: 'c2', override: null });
    store.chats.delete('c1');
    expect(store.attachments.forChat('c1')).toEqual([]);
    expect(store.tasks.get('default:t1')).toBeUndefined();
    expect(store.attachments.forChat('c2')).toHaveLength(1);
    expect(store.tasks.get('default:t2')).toBeDefined();
    const leftover = store.db.prepare("SELECT COUNT(*) AS n FROM attachments WHERE chat_id = 'c1'").get() as { n: number };
    expect(leftover.n).toBe(0);
  });
});

describe('AttachmentsRepo', () => {
  beforeEach(() => store.chats.insert(chat('c1')));

  it('lists folders in the order they were first attached', () => {
    for (const [i, p] of ['/z', '/a', '/m'].entries()) {
      store.attachments.upsert({ chatId: 'c1', hostPath: p, readOnly: false, provenance: 'session', attachedAt: 100 - i });
    }
    expect(store.attachments.forChat('c1').map((a) => a.hostPath)).toEqual(['/z', '/a', '/m']);
  });

  it('updates read-only on re-attach without moving the folder or adding a second row', () => {
    store.attachments.upsert({ chatId: 'c1', hostPath: '/a', readOnly: false, provenance: 'session', attachedAt: 1 });
    store.attachments.upsert({ chatId: 'c1', hostPath: '/b', readOnly: false, provenance: 'session', attachedAt: 2 });
    store.attachments.upsert({ chatId: 'c1', hostPath: '/a', readOnly: true, provenance: 'session', attachedAt: 3 });
    expect(store.attachments.forChat('c1')).toEqual([
      { chatId: 'c1', hostPath: '/a', readOnly: true, mode: 'readonly', provenance: 'session', attachedAt: 1 },
      { chatId: 'c1', hostPath: '/b', readOnly: false, mode: 'readwrite', provenance: 'session', attachedAt: 2 },
    ]);
    store.attachments.upsert({ chatId: 'c1', hostPath: '/a', readOnly: false, provenance: 'session', attachedAt: 4 });
    expect(store.attachments.forChat('c1')[0]?.readOnly).toBe(false);
  });

  it('keeps provenance as recorded', () => {
    store.attachments.upsert({ chatId: 'c1', hostPath: '/cwd', readOnly: false, provenance: 'process', attachedAt: 1 });
    expect(store.attachments.forChat('c1')[0]?.provenance).toBe('process');
  });

  it('removes a folder and says whether there was one', () => {
    store.attachments.upsert({ chatId: 'c1', hostPath: '/a', readOnly: false, provenance: 'session', attachedAt: 1 });
    expect(store.attachments.remove('c1', '/a')).toBe(true);
    expect(store.attachments.remove('c1', '/a')).toBe(false);
    expect(store.attachments.forChat('c1')).toEqual([]);
  });

  it('keeps each chat\'s folders to itself', () => {
    store.chats.insert(chat('c2'));
    store.attachments.upsert({ chatId: 'c1', hostPath: '/same', readOnly: false, provenance: 'session', attachedAt: 1 });
    store.attachments.upsert({ chatId: 'c2', hostPath: '/same', readOnly: true, provenance: 'session', attachedAt: 1 });
    expect(store.attachments.forChat('c1')[0]?.readOnly).toBe(false);
    expect(store.attachments.forChat('c2')[0]?.readOnly).toBe(true);
  });
});

describe('TasksRepo', () => {
  beforeEach(() => {
    store.chats.insert(chat('c1'));
    store.chats.insert(chat('c2'));
  });

  it('round-trips a task with and without an override', () => {
    const withOverride = {
      qualifiedId: 'default:t1', profile: 'default', chatId: 'c1', rawId: 't1', parentId: 'c1',
      override: { image: 'node:22', cwd: '/workspace/x' },
    };
    const plain = { qualifiedId: 'default:t2', profile: 'default', chatId: 'c1', rawId: 't2', parentId: null, override: null };
    store.tasks.upsert(withOverride);
    store.tasks.upsert(plain);
    expect(store.tasks.get('default:t1')).toEqual(withOverride);
    expect(store.tasks.get('default:t2')).toEqual(plain);
    expect(store.tasks.get('default:none')).toBeUndefined();
  });

  it('re-registering a task updates its parent, override and chat', () => {
    store.tasks.upsert({ qualifiedId: 'default:t', profile: 'default', chatId: 'c1', rawId: 't', parentId: 'c1', override: null });
    store.tasks.upsert({ qualifiedId: 'default:t', profile: 'default', chatId: 'c2', rawId: 't', parentId: 'c2', override: { image: 'x' } });
    expect(store.tasks.get('default:t')).toMatchObject({ chatId: 'c2', parentId: 'c2', override: { image: 'x' } });
  });

  it("deletes a chat's tasks and returns their ids", () => {
    store.tasks.upsert({ qualifiedId: 'default:a', profile: 'default', chatId: 'c1', rawId: 'a', parentId: null, override: null });
    store.tasks.upsert({ qualifiedId: 'default:b', profile: 'default', chatId: 'c1', rawId: 'b', parentId: 'a', override: null });
    store.tasks.upsert({ qualifiedId: 'default:c', profile: 'default', chatId: 'c2', rawId: 'c', parentId: null, override: null });
    expect(store.tasks.deleteForChat('c1').sort()).toEqual(['default:a', 'default:b']);
    expect(store.tasks.get('default:a')).toBeUndefined();
    expect(store.tasks.get('default:c')).toBeDefined();
  });
});

describe('CwdRepo', () => {
  it('sets, replaces, gets and clears a recorded cwd', () => {
    expect(store.cwd.get('default:c1')).toBeNull();
    store.cwd.set('default:c1', { path: '/workspace/src', location: 'container' }, 1);
    expect(store.cwd.get('default:c1')).toEqual({ path: '/workspace/src', location: 'container' });
    store.cwd.set('default:c1', { path: '/home/u/app', location: 'host' }, 2);
    expect(store.cwd.get('default:c1')).toEqual({ path: '/home/u/app', location: 'host' });
    store.cwd.set('profile:work:c1', { path: '/tmp', location: 'container' }, 3);
    store.cwd.clear('default:c1');
    expect(store.cwd.get('default:c1')).toBeNull();
    expect(store.cwd.get('profile:work:c1')).toEqual({ path: '/tmp', location: 'container' });
  });
});

describe('SettingsRepo', () => {
  it('gets undefined for an unknown key, then the latest value set', () => {
    expect(store.settings.get('instanceId')).toBeUndefined();
    store.settings.set('instanceId', 'abc');
    expect(store.settings.get('instanceId')).toBe('abc');
    store.settings.set('instanceId', 'def');
    expect(store.settings.get('instanceId')).toBe('def');
  });
});

describe('Store.transaction', () => {
  it('lands all of it or none of it', () => {
    expect(() =>
      store.transaction(() => {
        store.chats.insert(chat('c1'));
        store.attachments.upsert({ chatId: 'c1', hostPath: '/a', readOnly: false, provenance: 'session', attachedAt: 1 });
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(store.chats.get('c1')).toBeUndefined();
    expect(store.attachments.forChat('c1')).toEqual([]);
    expect(store.transaction(() => (store.chats.insert(chat('c2')), 42))).toBe(42);
    expect(store.chats.get('c2')).toBeDefined();
  });
});
