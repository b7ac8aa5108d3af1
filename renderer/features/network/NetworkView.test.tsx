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

  it('says why each request was refused, and offers "Allow" for every host name, never for an address', async () => {
    const { api, pending } = setup();
    await act(async () => {
      for (const run of pending.splice(0)) run();
    });
    screen.getByRole('button', { name: /Network/ }).click();
    const request = (host: string, port: number | null) => ({ chatId: 'alpha', time: Date.now(), host, port, method: 'GET', allowed: false, bytesOut: 10, bytesIn: 0 });
    await act(async () => {
      // deb.de and cafe.be are spelled with hex digits only, but they are host names.
      for (const [host, port] of [['1.1.1.1', 80], ['[2001:db8::1]', 443], ['deb.de', 443], ['cafe.be', 8443], ['blocked.test', 80]] as const) {
        api.emit('network.request', request(host, port));
      }
    });
    const row = (host: string) => screen.getByRole('row', { name: new RegExp(` ${host.replace(/[.[\]]/g, '\\$&')} `) });
    for (const ip of ['1.1.1.1', '[2001:db8::1]']) {
      expect(row(ip).textContent).toContain('refused: an IP address; only host names can be allowed');
      expect(row(ip).querySelector('button')).toBeNull();
    }
    for (const host of ['deb.de', 'cafe.be', 'blocked.test']) {
      // The name starts with the words on the button (WCAG 2.5.3, label in name: what a voice user says), then names the host.
      expect(screen.getByRole('button', { name: `Allow this host for the profile: ${host}` })).toBeTruthy();
    }
    expect(row('blocked.test').textContent).toContain("refused: not on the profile's list");
    expect(row('cafe.be').textContent).toContain("refused: not on the profile's list with port 8443");
  });
});
