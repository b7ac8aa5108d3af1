import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { OK_ENGINE, createFakeApi } from '../../test/fakeApi';
import { renderWithApp } from '../../test/render';
import { ConnectionBanner } from './ConnectionBanner';
import { StatusBar } from './StatusBar';

describe('StatusBar', () => {
  it('shows the engine version when Docker answers', async () => {
    renderWithApp(<StatusBar />);
    const engine = screen.getByRole('status', { name: 'Docker engine' });
    expect(await within(engine).findByText(/Docker 24\.0\.7/)).toBeTruthy();
  });

  it('shows why Docker is unreachable and what to do', async () => {
    const api = createFakeApi({
      engine: {
        state: 'unreachable',
        version: null,
        endpoint: 'unix:///var/run/docker.sock',
        message: 'Docker is not answering at unix:///var/run/docker.sock.',
        hint: 'Start Docker, then try again.',
      },
    });
    renderWithApp(<StatusBar />, api);
    const engine = screen.getByRole('status', { name: 'Docker engine' });
    expect(await within(engine).findByText(/Docker is not answering at unix:\/\/\/var\/run\/docker\.sock\./)).toBeTruthy();
    expect(within(engine).getByText(/Start Docker, then try again\./)).toBeTruthy();
    expect(within(engine).getByRole('button', { name: 'Check Docker again' })).toBeTruthy();
  });

  it('follows engine.status events', async () => {
    const { api } = renderWithApp(<StatusBar />);
    const engine = screen.getByRole('status', { name: 'Docker engine' });
    await within(engine).findByText(/Docker 24\.0\.7/);
    api.emit('engine.status', { state: 'checking', version: null, endpoint: 'x', message: null, hint: null });
    expect(await within(engine).findByText('Docker: checking…')).toBeTruthy();
  });

  it('shows each engine in use with its own health, and follows each one\'s events', async () => {
    const ssh = { id: 'ssh://me@box', kind: 'ssh' as const, label: 'ssh://me@box', remote: true };
    const local = { id: 'unix:///var/run/docker.sock', kind: 'default' as const, label: '/var/run/docker.sock', remote: false };
    const api = createFakeApi({ engine: { ...OK_ENGINE, engine: local } });
    api.handle('engine.list', () => ({
      engines: [
        { ...OK_ENGINE, engine: local },
        { state: 'ok', version: '27.1.1', endpoint: 'ssh://me@box', message: null, hint: null, engine: ssh },
      ],
    }));
    renderWithApp(<StatusBar />, api);
    const far = await screen.findByRole('status', { name: 'Engine ssh://me@box' });
    expect(far.textContent).toContain('ssh://me@box');
    expect(far.textContent).toContain('ok');
    // The remote engine goes away: its own item says so; the default one stays ok.
    api.emit('engine.status', { state: 'unreachable', version: null, endpoint: 'ssh://me@box', message: 'No answer from the SSH engine at box:22.', hint: 'Check the server.', engine: ssh });
    await waitFor(() => expect(far.textContent).toContain('No answer from the SSH engine at box:22.'));
    expect(screen.getByRole('status', { name: 'Docker engine' }).textContent).toContain('Docker 24.0.7');
  });

  it('says when the WebSocket is reconnecting', async () => {
    const { api } = renderWithApp(<StatusBar />);
    expect(screen.getByRole('status', { name: 'Connection' }).textContent).toContain('Connected');
    api.connection.set({ state: 'reconnecting', retryAt: Date.now() + 3000 });
    expect((await screen.findByRole('status', { name: 'Connection' })).textContent).toContain('Reconnecting…');
    expect(screen.getByRole('button', { name: 'Reconnect now' })).toBeTruthy();
  });

  it('says the link expired, once, with what to do, and offers no reconnect', async () => {
    const { api } = renderWithApp(
      <>
        <ConnectionBanner />
        <StatusBar />
      </>,
    );
    expect(screen.queryByRole('alert')).toBeNull();
    api.connection.set({ state: 'expired', retryAt: null });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Berth was restarted: open the address it printed');
    expect(alert.textContent).toContain('link has expired');
    // The host that refused the token is at this page's origin: the address is said.
    expect(alert.textContent).toContain(`Open the new URL that Berth printed when it started: ${location.origin}/?token=`);
    expect(screen.getByRole('status', { name: 'Connection' }).textContent).toContain('Link expired');
    expect(screen.queryByRole('button', { name: 'Reconnect now' })).toBeNull();
  });
});
