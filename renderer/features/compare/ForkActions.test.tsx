import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChatView } from '../../../shared/contract';
import { agentMessage, chatView, copyChanges, createFakeApi, fileChange, profileView, reviewInfo } from '../../test/fakeApi';
import { renderWithApp } from '../../test/render';
import { MESSAGES } from '../../ui/messages';
import { RestorePoints } from '../changes/RestorePoints';
import { ConversationPane } from '../conversation/ConversationPane';

const REPO = '/home/me/site';
const MODEL = { baseUrl: 'https://api.example.test/v1', model: 'small', approval: 'auto' as const };

function reviewChat(id: string, title: string, attemptOf: string | null = null): ChatView {
  return chatView({
    id, title, attemptOf,
    attachments: [{ hostPath: REPO, containerPath: '/workspace/site', readOnly: false, mode: 'review', review: reviewInfo(id), attachedAt: 1, writeWarning: null }],
  });
}

beforeEach(() => {
  vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockReturnValue(60);
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(600);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
  HTMLElement.prototype.scrollTo = () => {};
});
afterEach(() => {
  vi.restoreAllMocks();
});

function setup(chats: ChatView[]) {
  const api = createFakeApi({
    chats,
    profiles: [profileView('default', { agent: MODEL })],
    conversations: {
      c1: {
        messages: [
          agentMessage({ id: 'u1', chatId: 'c1', role: 'user', content: 'Write it', createdAt: 1 }),
          agentMessage({ id: 'r1', chatId: 'c1', content: 'Wrote it.', createdAt: 2 }),
          agentMessage({ id: 'u2', chatId: 'c1', role: 'user', content: 'Again', createdAt: 3 }),
          agentMessage({ id: 'r2', chatId: 'c1', content: 'Wrote again.', createdAt: 4 }),
        ],
        running: false,
        approvals: [],
      },
    },
  });
  const rendered = renderWithApp(<ConversationPane chat={chats[0]!} onOpenProfile={() => {}} />, api);
  return { ...rendered, api };
}

describe('Fork from here and Try again', () => {
  it('forks at the chosen turn and lands in the new chat; Try again is offered at the last turn only', async () => {
    const { api, stores } = setup([reviewChat('c1', 'Site')]);
    const groups = await screen.findAllByRole('group', { name: 'Fork this turn' });
    expect(groups).toHaveLength(2);
    expect(within(groups[0]!).queryByRole('button', { name: MESSAGES.tryAgain })).toBeNull();
    fireEvent.click(within(groups[0]!).getByRole('button', { name: MESSAGES.forkHere }));
    await waitFor(() => expect(api.callsTo('chats.fork')).toEqual([{ chatId: 'c1', messageId: 'u1', at: 'after' }]));
    await waitFor(() => expect(stores.chats.getState().chats.find((c) => c.id === stores.chats.getState().selectedId)?.title).toBe('Site (fork)'));

    fireEvent.click(within(groups[1]!).getByRole('button', { name: MESSAGES.tryAgain }));
    await waitFor(() => expect(api.callsTo('chats.retry')).toEqual([{ chatId: 'c1' }]));
  });

  it('shows a refusal in main’s words', async () => {
    const { api } = setup([reviewChat('c1', 'Site')]);
    api.fail('chats.fork', 'invalid_request', 'This chat writes "/x" directly (read-write).', 'Attach it in Review mode.');
    const groups = await screen.findAllByRole('group', { name: 'Fork this turn' });
    fireEvent.click(within(groups[0]!).getByRole('button', { name: MESSAGES.forkHere }));
    expect((await within(groups[0]!).findByRole('alert')).textContent).toContain('directly (read-write)');
  });
});

describe('Compare attempts', () => {
  it('shows each attempt’s files side by side, applies the one kept and closes the other', async () => {
    const { api, stores } = setup([reviewChat('c1', 'Site'), reviewChat('c2', 'Site (attempt 2)', 'c1')]);
    await waitFor(() => expect(stores.chats.getState().loaded).toBe(true));
    act(() => stores.chats.getState().select('c1'));
    api.reviewCopies['c1'] = [copyChanges(REPO, [fileChange({ path: 'a.txt', diff: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+first\n' })])];
    api.reviewCopies['c2'] = [copyChanges(REPO, [fileChange({ path: 'b.txt', status: 'added', diff: '--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+second\n' })])];
    const groups = await screen.findAllByRole('group', { name: 'Fork this turn' });
    fireEvent.click(within(groups[1]!).getByRole('button', { name: MESSAGES.compareAttempts }));
    const dialog = await screen.findByRole('dialog', { name: 'Compare attempts' });
    const a = await within(dialog).findByRole('row', { name: 'a.txt' });
    const cells = Array.from(a.children);
    expect(cells[0]!.textContent).toContain('first');
    expect(cells[1]!.textContent).toContain(MESSAGES.compareUnchanged);
    expect(within(dialog).getByRole('row', { name: 'b.txt' }).children[1]!.textContent).toContain('second');

    fireEvent.click(within(dialog).getByRole('button', { name: `${MESSAGES.keepAttempt}: Site (attempt 2)` }));
    fireEvent.click(within(dialog).getByRole('button', { name: MESSAGES.keepAttemptConfirm }));
    await waitFor(() => expect(api.callsTo('review.apply')).toEqual([{ chatId: 'c2', hostPath: REPO, mode: 'files' }]));
    await waitFor(() => expect(api.callsTo('chats.delete')).toEqual([{ chatId: 'c1' }]));
  });

  it('closes only the attempts at this message, named before anything is closed; another chat on the folder is kept', async () => {
    const { api, stores } = setup([reviewChat('c1', 'Site'), reviewChat('c2', 'Site (attempt 2)', 'c1'), reviewChat('c3', 'Notes on the site')]);
    await waitFor(() => expect(stores.chats.getState().loaded).toBe(true));
    act(() => stores.chats.getState().select('c1'));
    api.reviewCopies['c1'] = [copyChanges(REPO, [fileChange({ path: 'a.txt' })])];
    api.reviewCopies['c2'] = [copyChanges(REPO, [fileChange({ path: 'a.txt' })])];
    api.reviewCopies['c3'] = [copyChanges(REPO, [fileChange({ path: 'notes.md' })])];
    const groups = await screen.findAllByRole('group', { name: 'Fork this turn' });
    fireEvent.click(within(groups[1]!).getByRole('button', { name: MESSAGES.compareAttempts }));
    const dialog = await screen.findByRole('dialog', { name: 'Compare attempts' });
    // The unrelated chat is not an attempt: not offered, not compared.
    expect(within(dialog).queryByRole('combobox')).toBeNull();
    fireEvent.click(await within(dialog).findByRole('button', { name: `${MESSAGES.keepAttempt}: Site (attempt 2)` }));
    const confirm = await within(dialog).findByRole('group', { name: 'Confirm closing attempts' });
    expect(within(confirm).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Site']);
    expect(api.callsTo('review.apply')).toEqual([]);
    fireEvent.click(within(confirm).getByRole('button', { name: MESSAGES.keepAttemptConfirm }));
    await waitFor(() => expect(api.callsTo('chats.delete')).toEqual([{ chatId: 'c1' }]));
    expect(api.callsTo('review.apply')).toEqual([{ chatId: 'c2', hostPath: REPO, mode: 'files' }]);
    expect(stores.chats.getState().chats.map((c) => c.id)).toEqual(expect.arrayContaining(['c2', 'c3']));
  });
});

describe('Fork from a restore point', () => {
  it('forks from just before the turn a restore point precedes; other points cannot fork', async () => {
    const api = createFakeApi({ chats: [reviewChat('c1', 'Site')] });
    api.checkpoints['c1'] = [
      { id: 'cp1', chatId: 'c1', reason: 'turn', messageId: 'u1', label: 'Before an agent turn', createdAt: 1, changedFiles: [] },
      { id: 'cp2', chatId: 'c1', reason: 'manual', messageId: null, label: 'Checkpoint', createdAt: 2, changedFiles: [] },
    ];
    const { stores } = renderWithApp(<RestorePoints chatId="c1" />, api);
    await act(() => stores.review.getState().loadCheckpoints('c1'));
    const fork = await screen.findByRole('button', { name: MESSAGES.forkHere });
    fireEvent.change(screen.getByRole('combobox', { name: 'Restore point' }), { target: { value: 'cp2' } });
    expect((fork as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByRole('combobox', { name: 'Restore point' }), { target: { value: 'cp1' } });
    fireEvent.click(fork);
    await waitFor(() => expect(api.callsTo('chats.fork')).toEqual([{ chatId: 'c1', messageId: 'u1', at: 'before' }]));
  });
});
