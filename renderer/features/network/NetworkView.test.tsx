import { act, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AppProvider } from '../../app/context';
import { createStores } from '../../stores';
import { chatView, createFakeApi } from '../../test/fakeApi';
import { NetworkView } from './NetworkView';

function setup() {
  const api = createFakeApi({ chats: [chatView({ id: 'alpha', title: 'Alpha chat' })] });
  const stores = createStores(api, api.connection);
  const pending: Array<() => void> = [];
  const later = (run: () => void) => void pending.push(run);
  const view = render(
    <AppProvider services={{ api, stores, output: null, reconnectNow: () => {}, later }}>
      <NetworkView chatId="alpha" />
    </AppProvider>,
  );
  return { api, pending, view };
}

describe('NetworkView', () => {
  it("asks for the chat's network log only when told it may (after a switch's first frame)", async () => {
    const { api, pending } = setup();
    expect(screen.getByRole('button', { name: /Network/ })).toBeTruthy();
    expect(api.callsTo('network.log')).toEqual([]);
    await act(async () => {
      for (const run of pending.splice(0)) run();
    });
    expect(api.callsTo('network.log')).toEqual([{ chatId: 'alpha' }]);
  });

  it('never asks for the log of a chat the user already left', async () => {
    const { api, pending, view } = setup();
    view.unmount();
    for (const run of pending.splice(0)) run();
    expect(api.callsTo('network.log')).toEqual([]);
  });
});
