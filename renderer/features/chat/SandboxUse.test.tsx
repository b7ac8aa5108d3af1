import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { SandboxStatsSample } from '../../../shared/contract';
import { useChats } from '../../services/context';
import { chatView, createFakeApi, profileView, DEFAULT_SETTINGS } from '../../test/fakeApi';
import { renderWithApp } from '../../test/render';
import { Sidebar } from '../sidebar/Sidebar';
import { ChatHeader } from './ChatHeader';

function SelectedHeader() {
  const chat = useChats((s) => s.chats.find((c) => c.id === s.selectedId) ?? null);
  return chat ? <ChatHeader chat={chat} /> : null;
}

const MiB = 1024 * 1024;
const reading = (memoryMiB: number, pids: number, cpus: number | null = 0.25): SandboxStatsSample => ({
  at: Date.now(),
  cpus,
  memoryBytes: memoryMiB * MiB,
  memoryLimitBytes: 512 * MiB,
  pids,
  pidsLimit: 64,
});

function setup() {
  const api = createFakeApi({
    profiles: [profileView('default', { limits: { ...DEFAULT_SETTINGS.limits, memoryMb: 512, cpus: 2, pids: 64 } })],
    chats: [chatView({ id: 'c1', title: 'Site' }), chatView({ id: 'c2', title: 'Other' })],
  });
  api.sandbox.set('c1', { chatId: 'c1', state: 'running', key: 'default:c1', containerId: 'abc123', containerName: 'berth-c1', image: 'x', networkName: null, error: null });
  return renderWithApp(
    <>
      <Sidebar />
      <SelectedHeader />
    </>,
    api,
  );
}

describe('the sandbox’s use', () => {
  it('shows live CPU, memory against the limit and processes while the details are open, and stops watching when closed', async () => {
    const { api } = setup();
    fireEvent.click(await screen.findByRole('button', { name: 'Site' }));
    await screen.findByText('running');
    fireEvent.click(await screen.findByRole('button', { name: 'Sandbox details' }));
    const use = await screen.findByRole('group', { name: 'Sandbox use' });
    await waitFor(() => expect(api.callsTo('sandbox.watchStats')).toEqual([{ chatId: 'c1' }]));
    await within(use).findByText(/^Home folder/);
    expect(await within(use).findByText('4.0 KiB')).toBeTruthy();

    api.emit('sandbox.stats', { chatId: 'c1', sample: reading(100, 5, null) });
    api.emit('sandbox.stats', { chatId: 'c2', sample: reading(500, 60) });
    api.emit('sandbox.stats', { chatId: 'c1', sample: reading(128, 6) });
    expect(await within(use).findByText('128 MiB of 512 MiB (25 %)')).toBeTruthy();
    expect(within(use).getByText('6 of 64')).toBeTruthy();
    expect(within(use).getByText('0.25 of 2 cores')).toBeTruthy();
    const memory = within(use).getByRole('img', { name: 'Memory over the last 2 s' });
    expect(memory.querySelector('polyline')?.getAttribute('points')?.split(' ')).toHaveLength(2);

    fireEvent.click(screen.getByRole('button', { name: 'Sandbox details' }));
    await waitFor(() => expect(api.callsTo('sandbox.unwatchStats')).toEqual([{ chatId: 'c1' }]));
  });

  it('marks a chat in the sidebar whose sandbox is near its memory or process limit, until it is back below', async () => {
    const { api } = setup();
    const other = (await screen.findByRole('button', { name: 'Other' })).closest('li') as HTMLElement;
    api.emit('sandbox.pressure', { chatId: 'c2', memory: true, pids: false });
    expect(await within(other).findByRole('status', { name: 'Sandbox near its memory limit' })).toBeTruthy();
    api.emit('sandbox.pressure', { chatId: 'c2', memory: false, pids: true });
    expect(await within(other).findByRole('status', { name: 'Sandbox near its process limit' })).toBeTruthy();
    api.emit('sandbox.pressure', { chatId: 'c2', memory: false, pids: false });
    await waitFor(() => expect(within(other).queryByRole('status')).toBeNull());
  });
});
