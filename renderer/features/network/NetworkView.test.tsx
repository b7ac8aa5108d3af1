import { act, render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AppProvider } from '../../services/context';
import { createStores } from '../../stores';
import { chatView, createFakeApi } from '../../test/fakeApi';
import { NetworkView } from './NetworkView';

function setup() {
  const api = createFakeApi({ chats: [chatView({ id: 'alpha', title: 'Alpha chat' })] });
  const stores = createStores(api, api.connection);
  const pending: Array<() => void> = [];
  const later = (run: () => void) => void pending.push(run);
  const view = render(
    <AppProvider services={{ api, stores, reconnectNow: () => {}, later }}>
      <NetworkView chatId="alpha" />
    </AppProvider>,
  );
  return { api, pending, view };
}

/** The view with its log loaded and its panel open. */
async function opened() {
  const { api, pending } = setup();
  await act(async () => {
    for (const run of pending.splice(0)) run();
  });
  screen.getByRole('button', { name: /Network/ }).click();
  return api;
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
    const api = await opened();
    await act(async () => {
      // deb.de and cafe.be are spelled with hex digits only, but they are host names.
      for (const [host, port] of [['1.1.1.1', 80], ['[2001:db8::1]', 443], ['deb.de', 443], ['cafe.be', 8443], ['blocked.test', 80]] as const) {
        api.emit('network.request', request(host, port));
      }
      api.emit('network.request', { ...request('intranet.test', 80), reason: 'local-address' });
    });
    const row = (host: string) => screen.getByRole('row', { name: new RegExp(` ${host.replace(/[.[\]]/g, '\\$&')} `) });
    for (const ip of ['1.1.1.1', '[2001:db8::1]']) {
      expect(row(ip).textContent).toContain('refused: an IP address; only host names can be allowed');
      expect(screen.queryByRole('button', { name: new RegExp(`Allow… ${ip.replace(/[.[\]]/g, '\\$&')}`) })).toBeNull();
    }
    for (const target of ['deb.de:443', 'cafe.be:8443', 'blocked.test:80']) {
      // The name starts with the words on the button (WCAG 2.5.3, label in name: what a voice user says), then names the host.
      expect(screen.getByRole('button', { name: `Allow… ${target}` })).toBeTruthy();
    }
    expect(row('intranet.test').textContent).toContain('refused: the name resolves to a local or private address');
    expect(screen.queryByRole('button', { name: 'Allow… intranet.test:80' })).toBeNull();
    expect(row('blocked.test').textContent).toContain("refused: not on the profile's list");
    expect(row('cafe.be').textContent).toContain("refused: not on the profile's list with port 8443");
  });

  it('groups repeated refusals by host and port, and asks how far and which port before allowing', async () => {
    const api = await opened();
    await act(async () => {
      for (let i = 0; i < 3; i++) api.emit('network.request', request('blocked.test', 443));
      api.emit('network.request', request('other.test', 443));
    });
    const groups = screen.getByRole('list', { name: 'Refused hosts' });
    expect(within(groups).getAllByRole('listitem').map((li) => li.textContent?.split(' refused')[0])).toEqual(['other.test:443', 'blocked.test:443']);
    expect(within(groups).getAllByRole('listitem')[1]?.textContent).toContain("blocked.test:443 refused: not on the profile's list (3 requests)");

    await act(async () => screen.getByRole('button', { name: 'Allow… blocked.test:443' }).click());
    // Nothing is allowed yet: the form asks first.
    expect(api.callsTo('network.allow')).toEqual([]);
    const form = screen.getByRole('form', { name: 'Allow blocked.test' });
    expect((within(form).getByRole('radio', { name: /Once/ }) as HTMLInputElement).checked).toBe(true);
    expect((within(form).getByRole('radio', { name: 'Port 443 only' }) as HTMLInputElement).checked).toBe(true);
    await act(async () => {
      within(form).getByRole('radio', { name: 'For this chat' }).click();
      within(form).getByRole('button', { name: 'Allow' }).click();
    });
    expect(api.callsTo('network.allow')).toEqual([{ chatId: 'alpha', host: 'blocked.test', port: 443, scope: 'chat' }]);
    const grants = await screen.findByRole('list', { name: 'Allowed for this chat' });
    expect(grants.textContent).toContain('blocked.test:443, for this chat');
    expect(screen.getByRole('status').textContent).toBe('Allowed blocked.test:443 for this chat.');

    await act(async () => screen.getByRole('button', { name: 'Revoke blocked.test:443' }).click());
    expect(api.callsTo('network.revoke')).toEqual([{ chatId: 'alpha', entry: 'blocked.test:443' }]);
    expect(screen.queryByRole('list', { name: 'Allowed for this chat' })).toBeNull();

    await act(async () => screen.getByRole('button', { name: 'Allow… other.test:443' }).click());
    const other = screen.getByRole('form', { name: 'Allow other.test' });
    await act(async () => {
      within(other).getByRole('radio', { name: /For the profile/ }).click();
      within(other).getByRole('radio', { name: 'Ports 80 and 443' }).click();
      within(other).getByRole('button', { name: 'Allow' }).click();
    });
    expect(api.callsTo('network.allow')[1]).toEqual({ chatId: 'alpha', host: 'other.test', port: null, scope: 'profile' });
    expect(screen.getByRole('status').textContent).toBe('Allowed other.test for the profile.');
  });

  it('suggests the preset that covers what was refused most here, and adds its hosts to the profile in one click', async () => {
    const api = await opened();
    await act(async () => {
      for (let i = 0; i < 2; i++) api.emit('network.request', request('pypi.org', 443));
      api.emit('network.request', request('registry.npmjs.org', 443));
    });
    expect(screen.getByText(/2 refused requests here would pass with the Python \(PyPI\) preset/)).toBeTruthy();
    await act(async () => screen.getByRole('button', { name: 'Add the Python (PyPI) preset to the profile' }).click());
    expect(api.callsTo('network.allow')).toEqual([
      { chatId: 'alpha', host: 'pypi.org', port: null, scope: 'profile' },
      { chatId: 'alpha', host: 'files.pythonhosted.org', port: null, scope: 'profile' },
    ]);
    expect(screen.getByRole('status').textContent).toBe('Added the Python (PyPI) preset to the profile.');
  });
});

function request(host: string, port: number | null) {
  return { chatId: 'alpha', time: Date.now(), host, port, method: 'GET', allowed: false, bytesOut: 10, bytesIn: 0 };
}
