import { act, fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AppProvider } from '../../services/context';
import { createStores } from '../../stores';
import { chatView, createFakeApi } from '../../test/fakeApi';
import { PortsView } from './PortsView';

function setup() {
  const api = createFakeApi({ chats: [chatView({ id: 'alpha', title: 'Alpha chat' })] });
  api.ports.alpha = [{ port: 8000, hostPort: null }];
  const stores = createStores(api, api.connection);
  render(
    <AppProvider services={{ api, stores, reconnectNow: () => {}, later: (run) => run() }}>
      <PortsView chatId="alpha" />
    </AppProvider>,
  );
  return { api };
}

describe('PortsView', () => {
  it('asks for the ports only once opened, forwards one, and offers its link in a new tab and to copy', async () => {
    const { api } = setup();
    expect(api.callsTo('ports.list')).toEqual([]);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /Ports/ })));
    expect(await screen.findByText('Port 8000')).toBeTruthy();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Forward port 8000' })));
    const link = await screen.findByRole('link', { name: 'Open in browser' });
    expect(link.getAttribute('href')).toBe('http://127.0.0.1:48000/?berth_secret=fake');
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(screen.getByRole('button', { name: 'Copy URL' })).toBeTruthy();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Stop forwarding port 8000' })));
    expect(await screen.findByRole('button', { name: 'Forward port 8000' })).toBeTruthy();
  });

  it('says so when the sandbox is not running', async () => {
    const { api } = setup();
    delete api.ports.alpha;
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /Ports/ })));
    expect(await screen.findByText(/The sandbox is not running/)).toBeTruthy();
  });
});
