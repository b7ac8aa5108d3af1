import { waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { chatView, createFakeApi } from '../test/fakeApi';
import { createStores, startSync } from './index';

/** The per-chat records of every store that keeps some: each is keyed by the chat's id. */
function keysOf(stores: ReturnType<typeof createStores>): string[] {
  const records: object[] = [];
  for (const store of [stores.sandbox, stores.agent, stores.review, stores.attention, stores.terminals]) {
    for (const value of Object.values(store.getState())) {
      if (value && typeof value === 'object' && !Array.isArray(value) && typeof value !== 'function') records.push(value);
    }
  }
  return records.flatMap((r) => Object.keys(r));
}

describe('a deleted chat', () => {
  it('leaves nothing keyed by its id in any store, a failed sandbox load included; the other chat keeps its own', async () => {
    const api = createFakeApi({ chats: [chatView({ id: 'c1', title: 'One', createdAt: 1 }), chatView({ id: 'c2', title: 'Two', createdAt: 2 })] });
    const stores = createStores(api, api.connection);
    const stop = startSync(stores, api, api.connection, { autoOpenTerminal: false, refetchDelayMs: 0 });
    try {
      await waitFor(() => expect(stores.chats.getState().loaded).toBe(true));
      // The engine was down when c1's sandbox was asked for: its error is kept for c1's header.
      api.fail('sandbox.status', 'engine_unavailable', 'Docker does not answer.');
      await stores.sandbox.getState().load('c1');
      api.unfail('sandbox.status');
      await stores.sandbox.getState().load('c2');
      await stores.agent.getState().load('c1');
      expect(keysOf(stores)).toContain('c1');

      await stores.chats.getState().remove('c1');
      await waitFor(() => expect(keysOf(stores)).not.toContain('c1'));
      expect(keysOf(stores)).toContain('c2');
    } finally {
      stop();
    }
  });
});
