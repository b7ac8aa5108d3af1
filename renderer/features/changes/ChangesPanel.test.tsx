import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChatView } from '../../../shared/contract';
import { chatView, copyChanges, createFakeApi, fileChange, reviewInfo } from '../../test/fakeApi';
import { renderWithApp } from '../../test/render';
import { Sidebar } from '../sidebar/Sidebar';
import { ChangesPanel } from './ChangesPanel';
import { LARGE_DIFF_CHARS } from './diffModel';

const REPO = '/home/me/site';

function reviewChat(id = 'c1', changedCount = 0): ChatView {
  return chatView({
    id,
    title: `Chat ${id}`,
    attachments: [
      { hostPath: REPO, containerPath: '/workspace/site', readOnly: false, mode: 'review', review: { ...reviewInfo(id), changedCount }, attachedAt: 1, writeWarning: null },
    ],
  });
}

const APP_DIFF = `diff --git a/src/app.ts b/src/app.ts
index 1111111..2222222 100644
--- a/src/app.ts
+++ b/src/app.ts
@@ -1,2 +1,2 @@
 const a = 1;
-const b = 2;
+const b = 3;
`;

/** Over the size limit in characters (few lines, so jsdom draws it quickly once expanded). */
function bigDiff(): string {
  const row = (i: number) => `+row ${i} ${'x'.repeat(LARGE_DIFF_CHARS / 2)}`;
  return `--- /dev/null\n+++ b/data.csv\n@@ -0,0 +1,3 @@\n${[0, 1, 2].map(row).join('\n')}\n`;
}

function files() {
  return [
    fileChange({ path: 'src/app.ts', diff: APP_DIFF }),
    fileChange({ path: 'notes.md', status: 'added', additions: 1, deletions: 0, diff: '--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1 @@\n+# Notes\n' }),
    fileChange({ path: 'old.txt', status: 'deleted', additions: 0, deletions: 1, diff: '--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n' }),
    fileChange({ path: 'lib/new-name.ts', oldPath: 'lib/old-name.ts', status: 'renamed', additions: 0, deletions: 0, diff: null }),
    fileChange({ path: 'logo.png', binary: true, additions: null, deletions: null, diff: null }),
    fileChange({ path: 'data.csv', status: 'added', additions: 3, deletions: 0, diff: bigDiff() }),
    fileChange({ path: 'later.txt', diff: null, diffOmitted: true }),
  ];
}

function setup() {
  const api = createFakeApi({ chats: [reviewChat('c1', 7)] });
  api.reviewCopies['c1'] = [copyChanges(REPO, files(), { branch: 'berth/c1' })];
  const r = renderWithApp(<ChangesPanel chatId="c1" onClose={() => {}} />, api);
  return r;
}

beforeEach(() => {
  // jsdom has no layout: give the file list a height and each row one, so the virtualizer shows rows.
  vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockReturnValue(28);
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(600);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
  localStorage.clear();
});

afterEach(() => {
  vi.restoreAllMocks();
});

const fileButton = (name: RegExp) => screen.getByRole('button', { name });

describe('ChangesPanel', () => {
  it('lists added, modified, deleted and renamed files and shows the first diff, highlighted', async () => {
    setup();
    const list = await screen.findByRole('list', { name: `Changed files in ${REPO}` });
    const names = within(list).getAllByRole('button').map((b) => b.getAttribute('aria-label'));
    expect(names).toEqual([
      'src/app.ts (modified)',
      'notes.md (added)',
      'old.txt (deleted)',
      'lib/new-name.ts (renamed)',
      'logo.png (modified)',
      'data.csv (added)',
      'later.txt (modified)',
    ]);
    expect(within(list).getByText('lib/old-name.ts → lib/new-name.ts')).toBeTruthy();
    const diff = screen.getByRole('region', { name: 'Diff of src/app.ts' });
    expect(diff.textContent).toContain('const b = 3;');
    expect(diff.querySelector('.hljs-keyword')).not.toBeNull();
    expect(screen.getByText('7 changed files')).toBeTruthy();
  });

  it('switches between unified and side by side, and keeps the choice', async () => {
    setup();
    const diff = await screen.findByRole('region', { name: 'Diff of src/app.ts' });
    expect(diff.querySelector('.diff-unified')).not.toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Side by side' }));
    await waitFor(() => expect(screen.getByRole('region', { name: 'Diff of src/app.ts' }).querySelector('.diff-split')).not.toBeNull());
    expect(localStorage.getItem('berth.changes.layout')).toBe('split');
  });

  it('says a binary file changed, collapses a very large diff until asked, and fetches an omitted diff', async () => {
    const { api } = setup();
    await screen.findByRole('list', { name: `Changed files in ${REPO}` });
    fireEvent.click(fileButton(/^logo\.png/));
    expect(await screen.findByText('Binary file changed: no text diff to show.')).toBeTruthy();

    fireEvent.click(fileButton(/^data\.csv/));
    expect(await screen.findByText(/Large diff collapsed: 3 lines/)).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'Diff of data.csv' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Show diff' }));
    expect((await screen.findByRole('region', { name: 'Diff of data.csv' })).textContent).toContain('row 2 xxx');

    api.handle('review.diff', ({ path }) => fileChange({ path, diff: `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-was\n+fetched later\n` }));
    fireEvent.click(fileButton(/^later\.txt/));
    expect((await screen.findByRole('region', { name: 'Diff of later.txt' })).textContent).toContain('fetched later');
    expect(api.callsTo('review.diff')).toEqual([{ chatId: 'c1', hostPath: REPO, path: 'later.txt' }]);
  });

  it('applies all, or only the selected files, as uncommitted changes in a git repository, or as a branch there', async () => {
    const { api } = setup();
    await screen.findByRole('list', { name: `Changed files in ${REPO}` });
    // One file-writing action, named for what it does in a repository: no second button that does the same.
    expect(screen.queryByRole('button', { name: 'Apply all' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Apply as uncommitted changes' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Apply all as uncommitted changes' }));
    await screen.findByText('Applied 7 files.');
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select notes.md' }));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select old.txt' }));
    fireEvent.click(screen.getByRole('button', { name: 'Apply 2 selected files as uncommitted changes' }));
    await screen.findByText('Applied 2 files.');
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select notes.md' }));
    fireEvent.click(screen.getByRole('button', { name: 'Create branch in my repository with 1 selected file' }));
    await screen.findByText('Created branch berth/the-chat.');
    // A successful apply clears the selection: the branch button is for all files again, and moves the branch on.
    fireEvent.click(await screen.findByRole('button', { name: 'Update branch berth/the-chat' }));
    await waitFor(() => expect(api.callsTo('review.apply')).toHaveLength(4));
    expect(api.callsTo('review.apply')).toEqual([
      { chatId: 'c1', hostPath: REPO, mode: 'files' },
      { chatId: 'c1', hostPath: REPO, mode: 'files', files: ['notes.md', 'old.txt'] },
      { chatId: 'c1', hostPath: REPO, mode: 'branch', files: ['notes.md'] },
      { chatId: 'c1', hostPath: REPO, mode: 'branch' },
    ]);
  });

  it('pushes the branch it made with the user\'s git, and opens the pull request page or says why the push was refused', async () => {
    const { api } = setup();
    await screen.findByRole('list', { name: `Changed files in ${REPO}` });
    // Nothing to push before the branch exists.
    expect(screen.queryByRole('button', { name: /^Push/ })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Create branch in my repository' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Push berth/the-chat' }));
    const pushed = await screen.findByRole('status', { name: 'Pushed' });
    expect(pushed.textContent).toContain('Pushed berth/the-chat to origin.');
    expect(screen.getByRole('link', { name: 'Open pull request' }).getAttribute('href')).toBe('https://github.com/acme/site/compare/main...berth%2Fthe-chat?expand=1');
    expect(api.callsTo('review.push')).toEqual([{ chatId: 'c1', hostPath: REPO }]);

    api.handle('review.push', () => ({
      ok: false, branch: 'berth/the-chat', remote: 'origin', remoteUrl: '/srv/git/site.git', pullRequestUrl: null,
      output: ' ! [rejected]        berth/the-chat -> berth/the-chat (non-fast-forward)\n',
      message: 'origin already has a different berth/the-chat (not a fast-forward); Berth does not force a push.',
    }));
    fireEvent.click(screen.getByRole('button', { name: 'Push berth/the-chat' }));
    const refused = await screen.findByRole('alert', { name: 'Push refused' });
    expect(refused.textContent).toContain('not a fast-forward');
    expect(refused.textContent).toContain('[rejected]');
    expect(screen.queryByRole('link', { name: 'Open pull request' })).toBeNull();
  });

  it('in a plain folder applies all or the selected files, and offers no branch', async () => {
    const api = createFakeApi({ chats: [reviewChat('c1', 7)] });
    api.reviewCopies['c1'] = [copyChanges(REPO, files(), { kind: 'folder', branch: null })];
    renderWithApp(<ChangesPanel chatId="c1" onClose={() => {}} />, api);
    await screen.findByRole('list', { name: `Changed files in ${REPO}` });
    expect(screen.queryByRole('button', { name: /Create branch|uncommitted/ })).toBeNull();
    const apply = screen.getByRole('button', { name: 'Apply all' });
    apply.focus();
    fireEvent.click(apply);
    // Disabled while it runs, the button loses the focus to the page body (as in Chromium; jsdom
    // keeps it, so the test drops it as the browser does): it goes on to what came of the apply.
    const dropped = document.body.appendChild(document.createElement('input'));
    dropped.focus();
    dropped.remove();
    await screen.findByText('Applied 7 files.');
    await waitFor(() => expect(document.activeElement?.textContent).toBe('Applied 7 files.'));
    expect(api.callsTo('review.apply')).toEqual([{ chatId: 'c1', hostPath: REPO, mode: 'files' }]);
  });

  it('lists the conflicting files of a refused apply and says nothing was applied', async () => {
    const { api } = setup();
    api.handle('review.apply', () => ({
      ok: false,
      applied: [],
      problems: [
        { path: 'src/app.ts', kind: 'conflict', message: 'changed in your folder since the copy was made' },
        { path: 'link', kind: 'unsafe_symlink', message: 'a link to /etc is never followed' },
      ],
      branch: null,
      message: '2 files cannot be applied.',
    }));
    await screen.findByRole('list', { name: `Changed files in ${REPO}` });
    fireEvent.click(screen.getByRole('button', { name: 'Apply all as uncommitted changes' }));
    const alert = await screen.findByRole('alert', { name: 'Nothing was applied' });
    expect(alert.textContent).toContain('Nothing was applied. 2 files in the way:');
    expect(alert.textContent).toContain('src/app.ts: changed in your folder since the copy was made');
    expect(alert.textContent).toContain('link: a link to /etc is never followed');
    expect(alert.textContent).toContain('Refresh from my folder');
    // The conflicting file is marked in the list too.
    expect(screen.getByRole('button', { name: 'src/app.ts (modified, conflict)' })).toBeTruthy();
  });

  it('offers Undo last apply after an apply: it takes the apply back, or names the files the user changed since and undoes nothing', async () => {
    const { api } = setup();
    await screen.findByRole('list', { name: `Changed files in ${REPO}` });
    expect(screen.queryByRole('button', { name: /Undo last apply/ })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Apply all as uncommitted changes' }));
    await screen.findByText('Applied 7 files.');
    fireEvent.click(await screen.findByRole('button', { name: 'Undo last apply (7 files)' }));
    await screen.findByText(`Undid the apply: 7 files in ${REPO} are back as they were.`);
    expect(api.callsTo('review.undoApply')).toEqual([{ chatId: 'c1', hostPath: REPO }]);
    // Reloaded: nothing left to undo.
    await waitFor(() => expect(screen.queryByRole('button', { name: /Undo last apply/ })).toBeNull());

    fireEvent.click(screen.getByRole('button', { name: 'Apply all as uncommitted changes' }));
    await screen.findByText('Applied 7 files.');
    api.handle('review.undoApply', () => ({
      ok: false,
      restored: [],
      problems: [{ path: 'src/app.ts', kind: 'conflict', message: 'changed in your folder after the apply; Berth leaves your version as it is.' }],
      message: 'Nothing was undone: one applied file changed in your folder since (src/app.ts).',
    }));
    fireEvent.click(await screen.findByRole('button', { name: 'Undo last apply (7 files)' }));
    const alert = await screen.findByRole('alert', { name: 'Nothing was undone' });
    expect(alert.textContent).toContain('Nothing was undone. 1 file in the way:');
    expect(alert.textContent).toContain('src/app.ts: changed in your folder after the apply');
    // Not the apply's advice: refreshing the copy does not help an undo.
    expect(alert.textContent).not.toContain('Refresh from my folder');
  });

  it('discards only after the user confirms', async () => {
    const { api } = setup();
    await screen.findByRole('list', { name: `Changed files in ${REPO}` });
    fireEvent.click(screen.getByRole('button', { name: 'Discard…' }));
    const dialog = await screen.findByRole('dialog', { name: "Discard the chat's changes?" });
    expect(dialog.textContent).toContain('7 changed files will be lost');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(api.callsTo('review.discard')).toEqual([]);

    fireEvent.click(screen.getByRole('button', { name: 'Discard…' }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Discard changes' }));
    await screen.findByText('Discarded 7 changed files.');
    expect(api.callsTo('review.discard')).toEqual([{ chatId: 'c1', hostPath: REPO }]);
    // Reloaded: the copy has no changes now.
    await screen.findByText(/No changes: the chat's copy matches your folder/);
  });

  it('refreshes from the folder and lists the files both sides changed', async () => {
    const { api } = setup();
    api.handle('review.refresh', () => ({ updated: ['readme.md'], merged: [], conflicts: ['src/app.ts'], message: 'Brought in 1 newer file from your folder; 1 conflict.' }));
    await screen.findByRole('list', { name: `Changed files in ${REPO}` });
    fireEvent.click(screen.getByRole('button', { name: 'Refresh from my folder' }));
    await screen.findByText('Brought in 1 newer file from your folder; 1 conflict.');
    expect(within(screen.getByRole('list', { name: 'Conflicts' })).getByText('src/app.ts')).toBeTruthy();
  });

  it('records a checkpoint for terminal work', async () => {
    const { api } = setup();
    await screen.findByRole('list', { name: `Changed files in ${REPO}` });
    fireEvent.click(screen.getByRole('button', { name: 'Checkpoint' }));
    await screen.findByText(/Checkpoint saved at/);
    expect(api.callsTo('review.checkpoint')).toEqual([{ chatId: 'c1', label: 'Checkpoint' }]);
  });

  it('restores a restore point after the user confirms', async () => {
    const api = createFakeApi({ chats: [reviewChat('c1', 7)] });
    api.reviewCopies['c1'] = [copyChanges(REPO, files())];
    api.checkpoints['c1'] = [
      { id: 'cp-1', chatId: 'c1', reason: 'turn', messageId: 'u1', label: 'Before an agent turn', createdAt: 1, changedFiles: ['a.txt'] },
      { id: 'cp-2', chatId: 'c1', reason: 'manual', messageId: null, label: 'Checkpoint', createdAt: 2, changedFiles: [] },
    ];
    api.handle('review.restore', ({ checkpointId }) => ({ restored: ['a.txt'], message: `Restored ${checkpointId}.` }));
    renderWithApp(<ChangesPanel chatId="c1" onClose={() => {}} />, api);
    const select = (await screen.findByRole('combobox', { name: 'Restore point' })) as HTMLSelectElement;
    // Newest first, after the prompt.
    expect([...select.options].map((o) => o.value)).toEqual(['', 'cp-2', 'cp-1']);
    expect(select.options[2]!.text).toContain('Before an agent turn');
    expect((screen.getByRole('button', { name: 'Restore…' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(select, { target: { value: 'cp-1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Restore…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Restore this point?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Restore' }));
    await screen.findByText('Restored cp-1.');
    expect(api.callsTo('review.restore')).toEqual([{ chatId: 'c1', checkpointId: 'cp-1' }]);
  });

  it('follows a file changed again with the count unchanged: the list and the shown diffs are the new ones', async () => {
    const api = createFakeApi({ chats: [reviewChat('c1', 7)] });
    api.reviewCopies['c1'] = [copyChanges(REPO, files(), { version: 'v1' })];
    const { stores } = renderWithApp(<ChangesPanel chatId="c1" onClose={() => {}} />, api);
    act(() => stores.chats.getState().select('c1'));
    expect((await screen.findByRole('region', { name: 'Diff of src/app.ts' })).textContent).toContain('const b = 3;');
    let fetchedText = 'first edit';
    api.handle('review.diff', ({ path }) => fileChange({ path, diff: `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-was\n+${fetchedText}\n` }));
    fireEvent.click(fileButton(/^later\.txt/));
    expect((await screen.findByRole('region', { name: 'Diff of later.txt' })).textContent).toContain('first edit');

    // The chat writes both files again: still 7 changed files, so only the version tells.
    fetchedText = 'second edit';
    const again = files().map((f) => (f.path === 'src/app.ts' ? { ...f, diff: APP_DIFF.replace('const b = 3;', 'const b = 4;') } : f));
    api.reviewCopies['c1'] = [copyChanges(REPO, again, { version: 'v2' })];
    act(() => api.emit('review.changed', { chatId: 'c1', count: 7, version: 'v2' }));
    await waitFor(() => expect(screen.getByRole('region', { name: 'Diff of later.txt' }).textContent).toContain('second edit'));
    fireEvent.click(fileButton(/^src\/app\.ts/));
    expect((await screen.findByRole('region', { name: 'Diff of src/app.ts' })).textContent).toContain('const b = 4;');
    expect(api.callsTo('review.diff')).toEqual([
      { chatId: 'c1', hostPath: REPO, path: 'later.txt' },
      { chatId: 'c1', hostPath: REPO, path: 'later.txt' },
    ]);
  });

  it('shows an error from review.changes and loads again', async () => {
    const api = createFakeApi({ chats: [reviewChat()] });
    api.fail('review.changes', 'review_failed', 'The copy of /home/me/site could not be read.', 'Detach and attach the folder again.');
    renderWithApp(<ChangesPanel chatId="c1" onClose={() => {}} />, api);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('could not be read');
    api.unfail('review.changes');
    api.reviewCopies['c1'] = [copyChanges(REPO, files())];
    fireEvent.click(within(alert).getByRole('button', { name: 'Load again' }));
    await screen.findByRole('list', { name: `Changed files in ${REPO}` });
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe('the changed-file count in the sidebar', () => {
  it('starts from the attachments and follows review.changed live', async () => {
    const api = createFakeApi({ chats: [reviewChat('c1', 2), reviewChat('c2', 0)] });
    renderWithApp(<Sidebar header={null} footer={null} />, api);
    expect(await screen.findByRole('status', { name: '2 changed files' })).toBeTruthy();
    act(() => api.emit('review.changed', { chatId: 'c2', count: 1, version: 'a' }));
    expect(await screen.findByRole('status', { name: '1 changed file' })).toBeTruthy();
    act(() => api.emit('review.changed', { chatId: 'c1', count: 0, version: 'b' }));
    await waitFor(() => expect(screen.queryByRole('status', { name: '2 changed files' })).toBeNull());
  });
});
