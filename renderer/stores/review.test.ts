import { describe, expect, it } from 'vitest';
import { copyChanges, createFakeApi, fileChange } from '../test/fakeApi';
import { createReviewStore } from './review';

describe('review store', () => {
  it('loads a chat\'s changes and takes their count; a load asked for meanwhile runs once after it', async () => {
    const api = createFakeApi();
    api.reviewCopies['c1'] = [copyChanges('/home/me/site', [fileChange({ path: 'a.txt' })])];
    let release: () => void = () => {};
    let calls = 0;
    api.handle('review.changes', async () => {
      calls++;
      if (calls === 1) await new Promise<void>((r) => (release = r));
      return { copies: api.reviewCopies['c1'] ?? [] };
    });
    const store = createReviewStore(api);
    const first = store.getState().load('c1');
    void store.getState().load('c1');
    void store.getState().load('c1');
    await Promise.resolve();
    expect(store.getState().changes['c1']?.loading).toBe(true);
    api.reviewCopies['c1'] = [copyChanges('/home/me/site', [fileChange({ path: 'a.txt' }), fileChange({ path: 'b.txt' })])];
    release();
    await first;
    await new Promise((r) => setTimeout(r, 0));
    expect(calls).toBe(2);
    expect(store.getState().changes['c1']?.copies[0]?.files.map((f) => f.path)).toEqual(['a.txt', 'b.txt']);
    expect(store.getState().counts['c1']).toBe(2);
  });

  it('keeps copy progress per folder until it is done, and forgets a chat', () => {
    const store = createReviewStore(createFakeApi());
    store.getState().setProgress({ chatId: 'c1', hostPath: '/a', phase: 'copying', files: 1, totalFiles: 2, message: '' });
    store.getState().setProgress({ chatId: 'c1', hostPath: '/b', phase: 'scanning', files: 0, totalFiles: null, message: '' });
    expect(Object.keys(store.getState().progress['c1'] ?? {})).toEqual(['/a', '/b']);
    store.getState().setProgress({ chatId: 'c1', hostPath: '/a', phase: 'done', files: 2, totalFiles: 2, message: '' });
    expect(Object.keys(store.getState().progress['c1'] ?? {})).toEqual(['/b']);
    store.getState().setCount('c1', 3);
    store.getState().forgetChat('c1');
    expect(store.getState().progress['c1']).toBeUndefined();
    expect(store.getState().counts['c1']).toBeUndefined();
  });
});
