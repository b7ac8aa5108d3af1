import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createFakeApi, profileView } from '../../test/fakeApi';
import { renderWithApp } from '../../test/render';
import { Sidebar } from '../sidebar/Sidebar';
import { StartingPointQuestion } from './StartingPointQuestion';

/** A fresh data folder: main says to ask until it is answered. */
function freshApi() {
  const api = createFakeApi({ profiles: [profileView('default')], chats: [] });
  let answered = false;
  api.handle('network.startingPoint', () => ({ ask: !answered }));
  api.handle('network.chooseStartingPoint', ({ choice }) => {
    answered = true;
    return { applied: true, egress: choice === 'locked' ? 'none' : choice === 'open' ? 'open' : 'allowlist', egressAllow: [] };
  });
  return api;
}

const app = () => (
  <>
    <Sidebar />
    <StartingPointQuestion />
  </>
);

describe('the first chat asks how open the network should be', () => {
  it('asks at the first New chat, with one line for each choice, then makes the chat with the answer saved', async () => {
    const { api } = renderWithApp(app(), freshApi());
    fireEvent.click(screen.getByRole('button', { name: 'New chat' }));
    const dialog = await screen.findByRole('dialog', { name: "How open should your sandboxes' network be?" });
    expect(api.callsTo('chats.create')).toEqual([]);
    const radios = within(dialog).getAllByRole('radio') as HTMLInputElement[];
    expect(radios.map((r) => r.value)).toEqual(['locked', 'balanced', 'open']);
    expect(within(dialog).getByRole('radio', { name: /Balanced/ })).toHaveProperty('checked', true);
    expect(within(dialog).getByRole('radio', { name: /^Locked down No network at all/ })).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('radio', { name: /Locked down/ }));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Start the chat' }));
    await screen.findByRole('button', { name: 'Chat 1' });
    expect(api.callsTo('network.chooseStartingPoint')).toEqual([{ choice: 'locked' }]);
    expect(api.callsTo('chats.create')).toEqual([{ profile: 'default' }]);
    expect(screen.queryByRole('dialog')).toBeNull();
    // Never asked again. New chat is enabled again once the first create settled, a moment after its chat is listed.
    await waitFor(() => expect((screen.getByRole('button', { name: 'New chat' }) as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(screen.getByRole('button', { name: 'New chat' }));
    await screen.findByRole('button', { name: 'Chat 2' });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('Cancel makes no chat and leaves the question for the next New chat', async () => {
    const { api } = renderWithApp(app(), freshApi());
    fireEvent.click(screen.getByRole('button', { name: 'New chat' }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.callsTo('chats.create')).toEqual([]);
    expect(api.callsTo('network.chooseStartingPoint')).toEqual([]);
    await waitFor(() => expect((screen.getByRole('button', { name: 'New chat' }) as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(screen.getByRole('button', { name: 'New chat' }));
    expect(await screen.findByRole('dialog')).toBeTruthy();
  });

  it("shows main's refusal in the dialog and makes no chat until an answer is saved", async () => {
    const api = freshApi();
    api.fail('network.chooseStartingPoint', 'invalid_request', 'The allowlist runs on Docker on this computer only.', 'Choose Locked down or Open.');
    renderWithApp(app(), api);
    fireEvent.click(screen.getByRole('button', { name: 'New chat' }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Start the chat' }));
    expect((await within(dialog).findByRole('alert')).textContent).toContain('Choose Locked down or Open.');
    expect(api.callsTo('chats.create')).toEqual([]);
  });

  it('is not asked when main says not to (an answered question, chats made before)', async () => {
    const { api } = renderWithApp(app(), { profiles: [profileView('default')], chats: [] });
    fireEvent.click(screen.getByRole('button', { name: 'New chat' }));
    await screen.findByRole('button', { name: 'Chat 1' });
    expect(api.callsTo('network.startingPoint')).toEqual([{ profile: 'default' }]);
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
