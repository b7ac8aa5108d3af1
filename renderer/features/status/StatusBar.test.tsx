import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createFakeApi } from '../../test/fakeApi';
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
    expect(alert.textContent).toContain('link has expired');
    expect(alert.textContent).toContain('Open the new URL');
    expect(screen.getByRole('status', { name: 'Connection' }).textContent).toContain('Link expired');
    expect(screen.queryByRole('button', { name: 'Reconnect now' })).toBeNull();
  });
});
