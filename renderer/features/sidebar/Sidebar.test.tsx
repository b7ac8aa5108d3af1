import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { chatView, profileView, reviewInfo } from '../../test/fakeApi';
import { renderWithApp } from '../../test/render';
import { Sidebar } from './Sidebar';

const seed = {
  profiles: [profileView('default'), profileView('work'), profileView('scratch')],
  chats: [
    chatView({ id: 'a', title: 'Fix the build', profile: 'default', createdAt: 1 }),
    chatView({ id: 'b', title: 'Write docs', profile: 'work', createdAt: 2 }),
    chatView({ id: 'c', title: 'Build a site', profile: 'work', createdAt: 3 }),
  ],
};

describe('Sidebar', () => {
  it('lists chats grouped by profile inside the Chats navigation', async () => {
    renderWithApp(<Sidebar />, seed);
    const nav = screen.getByRole('navigation', { name: 'Chats' });
    const work = await within(nav).findByRole('list', { name: 'Chats in work' });
    expect(within(work).getAllByRole('button').map((b) => b.textContent)).toEqual(['Build a site', 'Write docs']);
    const def = within(nav).getByRole('list', { name: 'Chats in default' });
    expect(within(def).getByRole('button', { name: 'Fix the build' })).toBeTruthy();
    // A profile with no chats still has its group, so a chat can be created in it.
    expect(within(nav).getByRole('heading', { name: 'scratch' })).toBeTruthy();
  });

  it('filters chats by name', async () => {
    renderWithApp(<Sidebar />, seed);
    const nav = screen.getByRole('navigation', { name: 'Chats' });
    await within(nav).findByRole('button', { name: 'Write docs' });
    fireEvent.change(screen.getByRole('searchbox', { name: 'Filter chats' }), { target: { value: 'build' } });
    expect(within(nav).getByRole('button', { name: 'Fix the build' })).toBeTruthy();
    expect(within(nav).getByRole('button', { name: 'Build a site' })).toBeTruthy();
    expect(within(nav).queryByRole('button', { name: 'Write docs' })).toBeNull();
    expect(within(nav).queryByRole('heading', { name: 'scratch' })).toBeNull();
    fireEvent.change(screen.getByRole('searchbox', { name: 'Filter chats' }), { target: { value: 'nothing like it' } });
    expect(within(nav).getByText(/No chat matches/)).toBeTruthy();
  });

  it('selects a chat and creates new chats in its profile', async () => {
    const { api, stores } = renderWithApp(<Sidebar />, seed);
    fireEvent.click(await screen.findByRole('button', { name: 'Write docs' }));
    expect(stores.chats.getState().selectedId).toBe('b');
    expect(screen.getByRole('button', { name: 'Write docs' }).getAttribute('aria-current')).toBe('true');
    expect((screen.getByRole('combobox', { name: 'Profile for new chats' }) as HTMLSelectElement).value).toBe('work');
    fireEvent.click(screen.getByRole('button', { name: 'New chat' }));
    const created = await screen.findByRole('button', { name: 'Chat 1' });
    expect(api.callsTo('chats.create')).toEqual([{ profile: 'work' }]);
    expect(created.getAttribute('aria-current')).toBe('true');
  });

  it('renames the selected chat inline', async () => {
    const { api } = renderWithApp(<Sidebar />, seed);
    fireEvent.click(await screen.findByRole('button', { name: 'Write docs' }));
    fireEvent.click(screen.getByRole('button', { name: 'Rename chat' }));
    const field = screen.getByRole('textbox', { name: 'Chat title' });
    fireEvent.change(field, { target: { value: 'Write better docs' } });
    fireEvent.keyDown(field, { key: 'Enter' });
    expect(await screen.findByRole('button', { name: 'Write better docs' })).toBeTruthy();
    expect(api.callsTo('chats.rename')).toEqual([{ chatId: 'b', title: 'Write better docs' }]);
  });

  it('asks before deleting, naming the container and home that go with the chat', async () => {
    const { api } = renderWithApp(<Sidebar />, seed);
    fireEvent.click(await screen.findByRole('button', { name: 'Write docs' }));
    fireEvent.click(screen.getByRole('button', { name: 'Delete chat' }));

    const dialog = screen.getByRole('dialog', { name: 'Delete “Write docs”?' });
    expect(dialog.textContent).toMatch(/container/);
    expect(dialog.textContent).toMatch(/home folder/);
    expect(api.callsTo('chats.delete')).toEqual([]);
    // The rest of the page is out of reach while it asks.
    expect(screen.queryByRole('navigation', { name: 'Chats' })).toBeNull();

    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(api.callsTo('chats.delete')).toEqual([]);

    fireEvent.click(screen.getByRole('button', { name: 'Delete chat' }));
    fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete chat' }));
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Write docs' })).toBeNull());
    expect(api.callsTo('chats.delete')).toEqual([{ chatId: 'b' }]);
    // The dialog closes once the deletion has answered (a microtask after the list dropped the chat).
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('warns that Review changes not yet applied to the folder go with the chat', async () => {
    const review = (changedCount: number) => [
      { hostPath: '/home/me/site', containerPath: '/workspace/site', readOnly: false, mode: 'review' as const, review: { ...reviewInfo('r'), changedCount }, attachedAt: 1, writeWarning: null },
    ];
    renderWithApp(<Sidebar />, {
      ...seed,
      chats: [chatView({ id: 'r', title: 'Reviewed', createdAt: 4, attachments: review(3) }), chatView({ id: 's', title: 'Clean', createdAt: 5, attachments: review(0) })],
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Reviewed' }));
    fireEvent.click(screen.getByRole('button', { name: 'Delete chat' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete “Reviewed”?' });
    expect(dialog.textContent).toContain('3 changed files in its Review copy are not applied to your folder and will be lost');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));

    fireEvent.click(screen.getByRole('button', { name: 'Clean' }));
    fireEvent.click(screen.getByRole('button', { name: 'Delete chat' }));
    expect(screen.getByRole('dialog', { name: 'Delete “Clean”?' }).textContent).not.toMatch(/not applied/);
  });

  it('closes the confirmation with Escape, wherever the focus is', async () => {
    renderWithApp(<Sidebar />, seed);
    fireEvent.click(await screen.findByRole('button', { name: 'Write docs' }));
    fireEvent.click(screen.getByRole('button', { name: 'Delete chat' }));
    expect(screen.getByRole('dialog')).toBeTruthy();
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.getByRole('navigation', { name: 'Chats' })).toBeTruthy();
  });

  it('forgets deleted profiles: two deleted in a row leave neither in the list nor as the profile for new chats', async () => {
    const { api, stores } = renderWithApp(<Sidebar />, seed);
    // The user picks "work" for new chats, then deletes it and another in the Profiles dialog.
    await screen.findByRole('button', { name: 'Write docs' });
    fireEvent.change(screen.getByRole('combobox', { name: 'Profile for new chats' }), { target: { value: 'work' } });
    await api.call('profiles.delete', { name: 'work' });
    await api.call('profiles.delete', { name: 'scratch' });
    const nav = screen.getByRole('navigation', { name: 'Chats' });
    await waitFor(() => expect(within(nav).queryByRole('heading', { name: 'scratch' })).toBeNull());
    const select = screen.getByRole('combobox', { name: 'Profile for new chats' }) as HTMLSelectElement;
    expect([...select.options].map((o) => o.value)).toEqual(['default']);
    expect(within(nav).queryByRole('heading', { name: 'work' })).toBeNull();
    expect(stores.chats.getState().newChatProfile).toBe('default');
    fireEvent.click(screen.getByRole('button', { name: 'New chat' }));
    await screen.findByRole('button', { name: 'Chat 1' });
    expect(api.callsTo('chats.create')).toEqual([{ profile: 'default' }]);
  });

  it('refetches when main says chats changed', async () => {
    const { api } = renderWithApp(<Sidebar />, seed);
    await screen.findByRole('button', { name: 'Write docs' });
    api.chats = [...api.chats, chatView({ id: 'z', title: 'From elsewhere', profile: 'default' })];
    api.emit('chats.changed', { chatId: 'z' });
    expect(await screen.findByRole('button', { name: 'From elsewhere' })).toBeTruthy();
  });

  it('marks a chat waiting for approval and one whose agent finished while another was open, until it is opened', async () => {
    const { api } = renderWithApp(<Sidebar />, seed);
    fireEvent.click(await screen.findByRole('button', { name: 'Write docs' }));
    const item = (title: string) => screen.getByRole('button', { name: title }).closest('li') as HTMLElement;

    api.pushAgent('agent.approval', { approvalId: 'p1', chatId: 'a', taskId: null, callId: 'k1', tool: 'terminal', command: 'make', cwd: null, detail: null });
    expect(await within(item('Fix the build')).findByRole('status', { name: 'Waiting for your approval' })).toBeTruthy();
    expect(within(item('Write docs')).queryByRole('status')).toBeNull();
    api.pushAgent('agent.approvalDone', { chatId: 'a', approvalId: 'p1' });
    await waitFor(() => expect(within(item('Fix the build')).queryByRole('status', { name: 'Waiting for your approval' })).toBeNull());

    // Its turn ends while "Write docs" is open: it is marked done; the open chat's own end is not.
    api.pushAgent('agent.state', { chatId: 'a', running: false, error: null });
    api.pushAgent('agent.state', { chatId: 'b', running: false, error: null });
    expect(await within(item('Fix the build')).findByRole('status', { name: 'The agent finished' })).toBeTruthy();
    expect(within(item('Write docs')).queryByRole('status')).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Fix the build' }));
    await waitFor(() => expect(within(item('Fix the build')).queryByRole('status', { name: 'The agent finished' })).toBeNull());
  });

  it('badges a chat that was already waiting for approval when the page loaded, before it is opened', async () => {
    const waiting = { approvalId: 'p9', chatId: 'c', taskId: null, callId: 'k9', tool: 'terminal' as const, command: 'npm test', cwd: null, detail: null };
    const { api } = renderWithApp(<Sidebar />, { ...seed, conversations: { c: { messages: [], running: true, approvals: [waiting] } } });
    const item = (await screen.findByRole('button', { name: 'Build a site' })).closest('li') as HTMLElement;
    expect(await within(item).findByRole('status', { name: 'Waiting for your approval' })).toBeTruthy();
    expect(api.callsTo('agent.history')).not.toContainEqual({ chatId: 'c' });
  });
});
