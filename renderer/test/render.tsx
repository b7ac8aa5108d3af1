/** Renders a component inside the app's providers, against the fake API. */
import { render, type RenderResult } from '@testing-library/react';
import type { ReactElement } from 'react';
import { AppProvider } from '../services/context';
import { createStores, startSync, type Stores } from '../stores';
import { createFakeApi, type FakeApi, type FakeSeed } from './fakeApi';

export interface Rendered extends RenderResult {
  api: FakeApi;
  stores: Stores;
}

/** Starts syncing the stores (no terminals are opened for chats) and renders `ui`. */
export function renderWithApp(ui: ReactElement, seed: FakeSeed | FakeApi = {}): Rendered {
  const api = 'call' in seed ? seed : createFakeApi(seed);
  const stores = createStores(api, api.connection);
  startSync(stores, api, api.connection, { autoOpenTerminal: false, refetchDelayMs: 0 });
  const result = render(
    <AppProvider services={{ api, stores, reconnectNow: () => {} }}>{ui}</AppProvider>,
  );
  return { ...result, api, stores };
}
