import { waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { chatView, createFakeApi } from '../test/fakeApi';
import { drafts } from './drafts';
import { createStores, startSync } from './index';

afterEach(() => window.localStorage.clear());

describe('message drafts', () => {
  it('go with their chat when it is deleted, and at start for chats deleted while no page was open', async () => {
    window.localStorage.setItem('berth.draft.gone', 'deleted while Berth ran without a page');
    window.localStorage.setItem('berth.selectedChat', 'c2');
    drafts.set('c1', 'one');
    drafts.set('c2', 'two');
    const api = createFakeApi({ chats: [chatView({ id: 'c1', title: 'One', createdAt: 1 }), chatView({ id: 'c2', title: 'Two', createdAt: 2 })] });
    const stores = createStores(api, api.connection);
    const stop = startSync(stores, api, api.connection, { autoOpenTerminal: false, refetchDelayMs: 0 });
    try {
      await waitFor(() => expect(stores.chats.getState().loaded).toBe(true));
      expect(window.localStorage.getItem('berth.draft.gone')).toBeNull();
      expect([drafts.get('c1'), drafts.get('c2')]).toEqual(['one', 'two']);
      await stores.chats.getState().remove('c1');
      await waitFor(() => expect(drafts.get('c1')).toBeUndefined());
      expect(drafts.get('c2')).toBe('two');
    } finally {
      stop();
    }
  });
});
