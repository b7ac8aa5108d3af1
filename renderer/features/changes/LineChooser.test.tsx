import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { chatView, copyChanges, createFakeApi, fileChange, reviewInfo } from '../../test/fakeApi';
import { renderWithApp } from '../../test/render';
import { ChangesPanel } from './ChangesPanel';
import { twoHunkDiff } from '../../test/diffs';

const REPO = '/home/me/site';
const DIFF = twoHunkDiff('f.txt');

function setup() {
  const api = createFakeApi({
    chats: [
      chatView({
        id: 'c1',
        title: 'Chat c1',
        attachments: [{ hostPath: REPO, containerPath: '/workspace/site', readOnly: false, mode: 'review', review: { ...reviewInfo('c1'), changedCount: 1 }, attachedAt: 1, writeWarning: null }],
      }),
    ],
  });
  api.reviewCopies['c1'] = [copyChanges(REPO, [fileChange({ path: 'f.txt', diff: DIFF })], { version: 'v1' })];
  renderWithApp(<ChangesPanel chatId="c1" onClose={() => {}} />, api);
  return api;
}

beforeEach(() => {
  vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockReturnValue(28);
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(600);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
});
afterEach(() => vi.restoreAllMocks());

async function chooser() {
  fireEvent.click(await screen.findByRole('button', { name: 'Choose hunks and lines' }));
  return screen.getByRole('listbox', { name: 'Lines of f.txt' });
}

describe('choosing hunks and lines', () => {
  it('click, shift-click and the keyboard choose lines; Apply sends them by side and number', async () => {
    const api = setup();
    const list = await chooser();
    const option = (name: string) => within(list).getByRole('option', { name });
    fireEvent.click(option('added line 2: TWO'));
    fireEvent.click(option('removed line 11: eleven'), { shiftKey: true });
    expect(within(list).getAllByRole('option', { selected: true }).map((o) => o.getAttribute('aria-label'))).toEqual([
      'added line 2: TWO', 'added line 3: two and a half', 'removed line 11: eleven',
    ]);
    // Keyboard: from the last line clicked, down once, and Space chooses it.
    list.focus();
    fireEvent.keyDown(list, { key: 'ArrowDown' });
    fireEvent.keyDown(list, { key: ' ' });
    expect(option('added line 12: ELEVEN').getAttribute('aria-selected')).toBe('true');
    fireEvent.click(screen.getByRole('button', { name: 'Apply 4 selected lines' }));
    await waitFor(() => expect(api.callsTo('review.applyLines')).toHaveLength(1));
    expect(api.callsTo('review.applyLines')[0]).toEqual({ chatId: 'c1', hostPath: REPO, version: 'v1', files: [{ path: 'f.txt', removed: [11], added: [2, 3, 12] }] });
  });

  it('a hunk’s checkbox chooses all its lines', async () => {
    const api = setup();
    await chooser();
    fireEvent.click(screen.getByRole('checkbox', { name: /Hunk 2/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Apply 2 selected lines' }));
    await waitFor(() => expect(api.callsTo('review.applyLines')[0]).toMatchObject({ files: [{ path: 'f.txt', removed: [11], added: [12] }] }));
  });

  it('a comment on chosen lines joins the review draft, which is sent to the agent', async () => {
    const api = setup();
    const list = await chooser();
    fireEvent.click(within(list).getByRole('option', { name: 'added line 2: TWO' }));
    fireEvent.click(screen.getByRole('button', { name: 'Comment on selected lines' }));
    fireEvent.change(screen.getByLabelText('Comment on line 2'), { target: { value: 'Why upper case?' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add to review' }));
    await screen.findByText('Review draft: 1 comment');
    expect(api.callsTo('review.comment')[0]).toEqual({ chatId: 'c1', hostPath: REPO, path: 'f.txt', side: 'new', startLine: 2, endLine: 2, body: 'Why upper case?' });
    expect(within(screen.getByRole('list', { name: 'Comments on f.txt' })).getByText('Why upper case?')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Send to the agent' }));
    await screen.findByText("Sent 1 comment to the chat's agent.");
    expect(api.callsTo('review.sendComments')).toEqual([{ chatId: 'c1' }]);
  });

  it('a refused apply offers to resolve the file three ways, and applies the chosen side', async () => {
    const api = setup();
    api.handle('review.apply', () => ({ ok: false, applied: [], branch: null, problems: [{ path: 'f.txt', kind: 'conflict', message: '"f.txt" changed in your folder.' }], message: 'Nothing was applied.' }));
    fireEvent.click(await screen.findByRole('button', { name: /^Apply all/ }));
    fireEvent.click(await screen.findByRole('button', { name: 'Resolve f.txt…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Resolve f.txt' });
    expect(await within(dialog).findByText('my line')).toBeTruthy();
    expect(within(dialog).getByText('chat line')).toBeTruthy();
    expect(within(dialog).getByText('base line')).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('radio', { name: "Take the chat's" }));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Apply resolution' }));
    await screen.findByText('Resolved "f.txt".');
    expect(api.callsTo('review.resolve')).toEqual([{ chatId: 'c1', hostPath: REPO, path: 'f.txt', choices: ['chat'] }]);
  });
});
