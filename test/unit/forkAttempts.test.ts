/**
 * "Try again in a new chat" runs at most MAX_ATTEMPTS chats per message, counted by the fork
 * lineage Berth records, never by title: renaming an attempt does not free a place, and another
 * chat that happens to share the title takes none. Real store (SQLite) and real ChatForks; the
 * agent's send and the sandbox home are what cannot run here.
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProfileSettings, type AgentMessage } from '../../shared/contract.js';
import { ManualClock } from '../support/manualClock.js';
import { TempDirs } from '../support/tempDirs.js';
import { openDatabase } from '../../electron/main/store/database.js';
import { createStore, type Store } from '../../electron/main/store/repositories.js';
import { ChatForks, MAX_ATTEMPTS, type ForkDeps } from '../../electron/main/forks/chatForks.js';
import type { ReviewService } from '../../electron/main/review/reviewService.js';

const temp = new TempDirs();
let store: Store;
let forks: ChatForks;

function message(chatId: string, id: string, role: 'user' | 'assistant', content: string, createdAt: number): AgentMessage {
  return { id, chatId, taskId: null, parentCallId: null, role, content, toolCalls: [], done: true, createdAt };
}

function chat(id: string, title: string): string {
  store.chats.insert({ id, profile: 'default', title, image: null, createdAt: Number(id.replace(/\D/g, '')) || 1 });
  store.agentMessages.save(message(id, `${id}-u`, 'user', 'write an answer', 1));
  store.agentMessages.save(message(id, `${id}-a`, 'assistant', 'Done.', 2));
  return id;
}

/** What the remote home copy does in a test: nothing (a local profile), or fail. */
let homeCopy: () => void;

beforeEach(() => {
  homeCopy = () => undefined;
  const dataDir = temp.make();
  store = createStore(openDatabase(dataDir));
  store.profiles.insert({ name: 'default', settings: ProfileSettings.parse({}), createdAt: 1 });
  let n = 100;
  const review = { copyFor: () => null, removeChat: () => {} } as unknown as ReviewService;
  forks = new ChatForks({
    dataDir, store, clock: new ManualClock(), review,
    sessions: {
      requireChat: (id: string) => store.chats.get(id)!,
      createChat: (req: { profile: string; title?: string }) => {
        const c = { id: `fork${++n}`, profile: req.profile, title: req.title ?? 'fork', image: null, createdAt: n };
        store.chats.insert(c);
        return c;
      },
      requireProfile: (name: string) => store.profiles.get(name)!,
    } as unknown as ForkDeps['sessions'],
    remoteHomes: { copy: async () => homeCopy() },
    homes: { homeFor: (profile: string, key: string) => path.join(dataDir, 'homes', profile, key) } as ForkDeps['homes'],
    agent: {
      history: async () => ({ running: false }),
      send: (chatId: string, text: string) => ({ message: message(chatId, `${chatId}-again`, 'user', text, 3) }),
    } as unknown as ForkDeps['agent'],
  });
});
afterEach(() => {
  if (store.db.open) store.close();
  temp.removeAll();
});

describe('Try again: the attempt count follows the fork lineage', () => {
  it('a renamed attempt still counts, at the original and at the attempt', async () => {
    const original = chat('c1', 'attempts');
    const second = await forks.retry(original);
    expect(second.chat.title).toBe('attempts (attempt 2)');
    store.chats.rename(second.chat.id, 'the keeper');
    const third = await forks.retry(original);
    expect(third.chat.title).toBe('attempts (attempt 3)');
    await expect(forks.retry(original)).rejects.toThrow(`tried in ${MAX_ATTEMPTS} chats already`);
    await expect(forks.retry(second.chat.id)).rejects.toThrow(`tried in ${MAX_ATTEMPTS} chats already`);
    expect(store.chats.list('default')).toHaveLength(MAX_ATTEMPTS);
  });

  it('another chat with the same title takes no place, and closing an attempt frees one', async () => {
    const original = chat('c1', 'attempts');
    chat('c2', 'attempts');
    chat('c3', 'attempts (attempt 2)');
    const second = await forks.retry(original);
    await forks.retry(original);
    await expect(forks.retry(original)).rejects.toThrow(`tried in ${MAX_ATTEMPTS} chats already`);
    store.chats.delete(second.chat.id);
    expect((await forks.retry(original)).chat.id).toMatch(/^fork/);
  });
});

describe('a fork whose remote home cannot be copied', () => {
  it('is not made: the failure says so and no chat is left of it', async () => {
    const original = chat('c1', 'remote');
    homeCopy = () => {
      throw new Error('the remote engine did not answer');
    };
    await expect(forks.retry(original)).rejects.toThrow('the remote engine did not answer');
    expect(store.chats.list('default').map((c) => c.id)).toEqual([original]);
  });
});
