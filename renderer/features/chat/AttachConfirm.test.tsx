/** The chat header asks before an attach or detach stops what runs, as main's preview (workspace.attachPreview) says, and passes main's token. */
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/errors';
import { chatView, createFakeApi } from '../../test/fakeApi';
import { renderWithApp } from '../../test/render';
import { KEEPS, SelectedHeader, chooseFolder, openAttach, setup } from './testDoubles';

describe('ChatHeader: what attaching changes', () => {
  it('asks before a detach would stop what runs in the terminals, naming it; Cancel keeps the folder', async () => {
    const { api } = setup();
    api.handle('terminal.busy', () => ({ terminals: [{ terminalId: 't1', title: 'Terminal 1', processes: ['npm run dev'] }] }));
    fireEvent.click(await screen.findByRole('button', { name: 'Detach /home/me/notes' }));
    const ask = await screen.findByRole('dialog', { name: 'Stop what runs in the terminals?' });
    expect(within(ask).getByRole('list', { name: 'Running in the terminals' }).textContent).toContain('Terminal 1npm run dev');
    fireEvent.click(within(ask).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.callsTo('workspace.detach')).toEqual([]);
    fireEvent.click(screen.getByRole('button', { name: 'Detach /home/me/notes' }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Stop them and detach' }));
    // The token of the preview the user agreed to (the second: the first was cancelled) goes with the detach: main refuses it without.
    await waitFor(() => expect(api.callsTo('workspace.detach')).toEqual([{ chatId: 'c1', path: '/home/me/notes', confirm: 'confirm-2' }]));
  });

  it('asks before an attach only when something runs; the folder browser comes after agreeing', async () => {
    const { api } = setup();
    api.handle('terminal.busy', () => ({ terminals: [{ terminalId: 't1', title: 'Terminal 2', processes: ['sleep 600'] }] }));
    await openAttach();
    const ask = await screen.findByRole('dialog', { name: 'Stop what runs in the terminals?' });
    fireEvent.click(within(ask).getByRole('button', { name: 'Stop them and attach' }));
    const dialog = await screen.findByRole('dialog', { name: 'Choose a folder to attach' });
    // The folder chosen then is attached with the token of what the user agreed to, not asked about again.
    await chooseFolder(dialog, '/home/me/projects/site');
    await waitFor(() => expect(api.callsTo('workspace.attach')).toContainEqual(expect.objectContaining({ path: '/home/me/projects/site', confirm: 'confirm-1' })));
    expect(api.callsTo('workspace.attachPreview')).toHaveLength(1);
    expect(screen.queryByRole('dialog', { name: 'Stop what runs in the terminals?' })).toBeNull();
  });

  it('asks nothing when main says a pooled Review attach keeps the running container, though something runs', async () => {
    const { api } = setup();
    api.handle('terminal.busy', () => ({ terminals: [{ terminalId: 't1', title: 'Terminal 2', processes: ['sleep 600'] }] }));
    api.handle('workspace.attachPreview', () => KEEPS);
    await openAttach();
    const dialog = await screen.findByRole('dialog', { name: 'Choose a folder to attach' });
    expect(screen.queryByRole('dialog', { name: 'Stop what runs in the terminals?' })).toBeNull();
    expect(api.callsTo('workspace.attachPreview')).toEqual([{ chatId: 'c1', action: 'attach', mode: 'review' }]);
    await chooseFolder(dialog, '/home/me/projects/site');
    await waitFor(() => expect(api.callsTo('workspace.attach')).toContainEqual(expect.objectContaining({ path: '/home/me/projects/site' })));
    expect(screen.queryByRole('dialog', { name: 'Stop what runs in the terminals?' })).toBeNull();
  });

  it('asks once the chosen folder turns out to need a new container (a large git history), naming why; Cancel attaches nothing', async () => {
    const { api } = setup();
    api.handle('terminal.busy', () => ({ terminals: [{ terminalId: 't1', title: 'Terminal 2', processes: ['sleep 600'] }] }));
    const why = 'Attaching recreates the chat’s sandbox: a git repository whose history (80 MB) is more than the 64 MB a ready sandbox copies.';
    api.handle('workspace.attachPreview', (req) =>
      req.path === '/home/me/projects/site'
        ? { recreates: true, reason: why, running: [{ terminalId: 't1', title: 'Terminal 2', processes: ['sleep 600'] }], needsConfirmation: true, summary: 'Restarts the chat’s sandbox, stopping what runs in 1 terminal (sleep 600).', token: 'tok-site' }
        : KEEPS,
    );
    await openAttach();
    const dialog = await screen.findByRole('dialog', { name: 'Choose a folder to attach' });
    await chooseFolder(dialog, '/home/me/projects/site');
    const ask = await screen.findByRole('dialog', { name: 'Stop what runs in the terminals?' });
    expect(ask.textContent).toContain('history (80 MB)');
    fireEvent.click(within(ask).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Stop what runs in the terminals?' })).toBeNull());
    // Only the picker's own call (the browser host answers "browse"); no folder was attached.
    expect(api.callsTo('workspace.attach').filter((c) => (c as { path?: string }).path !== undefined)).toEqual([]);

    // Asked again and agreed: attached with main's token for that folder.
    await openAttach();
    const again = await screen.findByRole('dialog', { name: 'Choose a folder to attach' });
    await chooseFolder(again, '/home/me/projects/site');
    fireEvent.click(within(await screen.findByRole('dialog', { name: 'Stop what runs in the terminals?' })).getByRole('button', { name: 'Stop them and attach' }));
    await waitFor(() => expect(api.callsTo('workspace.attach')).toContainEqual(expect.objectContaining({ path: '/home/me/projects/site', confirm: 'tok-site' })));
  });

  it('asks nothing before a detach that main says keeps the running container (a copy leaving its slot)', async () => {
    const { api } = setup();
    api.handle('terminal.busy', () => ({ terminals: [{ terminalId: 't1', title: 'Terminal 1', processes: ['npm run dev'] }] }));
    api.handle('workspace.attachPreview', () => KEEPS);
    fireEvent.click(await screen.findByRole('button', { name: 'Detach /home/me/notes' }));
    await waitFor(() => expect(api.callsTo('workspace.detach')).toEqual([{ chatId: 'c1', path: '/home/me/notes' }]));
    expect(api.callsTo('workspace.attachPreview')).toEqual([{ chatId: 'c1', action: 'detach', path: '/home/me/notes' }]);
    expect(screen.queryByRole('dialog', { name: 'Stop what runs in the terminals?' })).toBeNull();
  });

  it('on the desktop, a chosen folder that needs a new container is asked about first, naming why; Cancel lets main drop it', async () => {
    const { api } = setup();
    api.handle('terminal.busy', () => ({ terminals: [{ terminalId: 't1', title: 'Terminal 2', processes: ['sleep 600'] }] }));
    // Before the dialog main judged the mode alone (it fits a warm sandbox's slot); the folder chosen does not.
    api.handle('workspace.attachPreview', () => KEEPS);
    const why = 'Attaching recreates the chat’s sandbox: a git repository whose history (80 MB) is more than the 64 MB a ready sandbox copies.';
    api.pickFolderResult = { confirm: { token: 'tok-1', reason: why, running: [{ terminalId: 't1', title: 'Terminal 2', processes: ['sleep 600'] }] } };
    await openAttach();
    const ask = await screen.findByRole('dialog', { name: 'Stop what runs in the terminals?' });
    expect(ask.textContent).toContain('history (80 MB)');
    expect(within(ask).getByRole('list', { name: 'Running in the terminals' }).textContent).toContain('sleep 600');
    // Nothing answered yet: main still holds the folder.
    expect(api.callsTo('workspace.attach').filter((c) => (c as { via?: string }).via === 'confirmFolder')).toEqual([]);
    fireEvent.click(within(ask).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(api.callsTo('workspace.attach')).toContainEqual({ via: 'confirmFolder', token: 'tok-1', attach: false }));
    expect(api.callsTo('workspace.attach')).not.toContainEqual(expect.objectContaining({ via: 'confirmFolder', attach: true }));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('on the desktop, agreeing attaches the folder main holds; with nothing running it attaches without asking', async () => {
    const { api } = setup();
    const running = [{ terminalId: 't1', title: 'Terminal 2', processes: ['npm run dev'] }];
    api.handle('workspace.attachPreview', () => KEEPS);
    api.pickFolderResult = { confirm: { token: 'tok-2', reason: null, running } };
    api.confirmFolderResult = { notice: "The chat's sandbox is recreated the next time it runs a command." };
    await openAttach();
    const ask = await screen.findByRole('dialog', { name: 'Stop what runs in the terminals?' });
    fireEvent.click(within(ask).getByRole('button', { name: 'Stop them and attach' }));
    await waitFor(() => expect(api.callsTo('workspace.attach')).toContainEqual({ via: 'confirmFolder', token: 'tok-2', attach: true }));
    // Main's notice is said, as for an attach on the browser host.
    expect((await screen.findByRole('status')).textContent).toContain('sandbox is recreated');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Attach folder…' }).hasAttribute('disabled')).toBe(false));

    // Main holds a folder only when something runs: one held with nothing running is attached without asking.
    api.pickFolderResult = { confirm: { token: 'tok-3', reason: null, running: [] } };
    await openAttach();
    await waitFor(() => expect(api.callsTo('workspace.attach')).toContainEqual({ via: 'confirmFolder', token: 'tok-3', attach: true }));
    expect(screen.queryByRole('dialog', { name: 'Stop what runs in the terminals?' })).toBeNull();
  });

  it('on the desktop, a held folder that expired says so and what to do', async () => {
    const { api } = setup();
    api.pickFolderResult = { confirm: { token: 'tok-4', reason: null, running: [] } };
    api.confirmFolderResult = new ApiError('invalid_request', 'The folder you chose was not attached: its choice expired (after 2 minutes) or was already answered.', 'Choose the folder again.');
    await openAttach();
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('its choice expired');
    expect(alert.textContent).toContain('Choose the folder again.');
  });

  it("shows a read-write folder's write warning with it", async () => {
    const api = createFakeApi({
      chats: [
        chatView({
          id: 'c1',
          title: 'Site',
          attachments: [{ hostPath: '/srv/r', containerPath: '/workspace', readOnly: false, mode: 'readwrite', review: null, attachedAt: 1, writeWarning: 'The sandbox cannot write to this folder: it belongs to root.' }],
        }),
      ],
    });
    renderWithApp(<SelectedHeader />, api);
    const list = await screen.findByRole('list', { name: 'Attached folders' });
    expect(within(list).getByRole('alert').textContent).toContain('cannot write to this folder');
  });
});
