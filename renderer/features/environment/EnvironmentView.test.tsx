import { act, fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AppProvider } from '../../services/context';
import { createStores } from '../../stores';
import { chatView, createFakeApi, noEnvironment } from '../../test/fakeApi';
import { PortsView } from '../ports/PortsView';
import { EnvironmentView } from './EnvironmentView';

const chat = chatView({ id: 'alpha', title: 'Alpha chat' });

function setup(offers: { folder: string; configs: string[]; remembered: string | null }[]) {
  const api = createFakeApi({ chats: [chat] });
  api.environments.alpha = { offers, status: noEnvironment('alpha') };
  const stores = createStores(api, api.connection);
  render(
    <AppProvider services={{ api, stores, reconnectNow: () => {}, later: (run) => run() }}>
      <EnvironmentView chat={chat} />
      <PortsView chatId="alpha" />
    </AppProvider>,
  );
  return { api };
}

describe('EnvironmentView', () => {
  it('offers a folder’s devcontainer.json, with a choice when there are several, and uses the chosen one', async () => {
    const { api } = setup([{ folder: '/home/me/site', configs: ['.devcontainer/devcontainer.json', '.devcontainer/python/devcontainer.json'], remembered: null }]);
    const pick = await screen.findByRole('combobox', { name: 'Which devcontainer.json' });
    fireEvent.change(pick, { target: { value: '/home/me/site\n.devcontainer/python/devcontainer.json' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: "Use this project's environment" })));
    expect(api.callsTo('environment.use')).toEqual([{ chatId: 'alpha', folder: '/home/me/site', config: '.devcontainer/python/devcontainer.json' }]);
    expect(await screen.findByText('Environment: .devcontainer/python/devcontainer.json')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Rebuild' })).toBeTruthy();
  });

  it('uses the folder’s remembered choice by itself, and lists what was ignored and why', async () => {
    const { api } = setup([{ folder: '/home/me/site', configs: ['.devcontainer.json'], remembered: '.devcontainer.json' }]);
    expect(await screen.findByText('Environment: .devcontainer.json')).toBeTruthy();
    expect(api.callsTo('environment.use')).toHaveLength(1);
    act(() =>
      api.emit('environment.status', {
        ...noEnvironment('alpha'), state: 'ready', folder: '/home/me/site', source: '.devcontainer.json', image: 'berth-env:x', preparedAt: 1, sizeBytes: 5 * 1024 * 1024,
        ignored: [{ key: 'privileged', reason: 'a privileged container could reach this computer' }], ports: [{ port: 3000, label: 'Web app' }],
      }),
    );
    expect(screen.getByText(/5\.0 MiB/)).toBeTruthy();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Environment details' })));
    expect(screen.getByRole('list', { name: 'Ignored settings' }).textContent).toContain('privileged: a privileged container could reach this computer');
    api.environments.alpha = { offers: [], status: { ...noEnvironment('alpha'), state: 'ready', ports: [{ port: 3000, label: 'Web app' }] } };
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /Ports/ })));
    expect(await screen.findByText(/forwards 3000 \(Web app\)/)).toBeTruthy();
  });

  it('shows nothing for a chat whose folders have no devcontainer.json', async () => {
    const { api } = setup([]);
    await act(async () => undefined);
    expect(api.callsTo('environment.detect')).toHaveLength(1);
    expect(screen.queryByRole('region', { name: 'Project environment' })).toBeNull();
  });
});
