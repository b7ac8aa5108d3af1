import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/errors';
import { chatView, createFakeApi } from '../../test/fakeApi';
import { renderWithApp } from '../../test/render';
import { StatusBar } from '../status/StatusBar';
import { SelectedHeader, chooseFolder, chooseThisFolder, openAttach, setup } from './testDoubles';

describe('ChatHeader attachments', () => {
  it('shows attached folders with their access and detaches one', async () => {
    const { api } = setup();
    const list = await screen.findByRole('list', { name: 'Attached folders' });
    expect(within(list).getByText('/home/me/notes')).toBeTruthy();
    expect(within(list).getByText('read-only')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Detach /home/me/notes' }));
    await waitFor(() => expect(screen.queryByRole('list', { name: 'Attached folders' })).toBeNull());
    expect(api.callsTo('workspace.detach')).toEqual([{ chatId: 'c1', path: '/home/me/notes', confirm: expect.any(String) }]);
  });

  it('browses folders in the page when the host cannot open a dialog, then attaches the chosen one', async () => {
    const { api } = setup();
    fireEvent.click(await screen.findByRole('button', { name: 'Attach folder…' }));
    const how = await screen.findByRole('dialog', { name: 'Attach a folder' });
    fireEvent.click(within(how).getByRole('radio', { name: /^Read-only/ }));
    fireEvent.click(within(how).getByRole('button', { name: 'Choose folder…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Choose a folder to attach' });
    fireEvent.click(await within(dialog).findByRole('button', { name: 'projects' }));
    fireEvent.click(await within(dialog).findByRole('button', { name: 'site' }));
    await waitFor(() => expect((within(dialog).getByRole('textbox', { name: 'Folder path' }) as HTMLInputElement).value).toBe('/home/me/projects/site'));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Go up' }));
    await waitFor(() => expect((within(dialog).getByRole('textbox', { name: 'Folder path' }) as HTMLInputElement).value).toBe('/home/me/projects'));
    await chooseThisFolder(dialog);

    await screen.findByRole('button', { name: 'Detach /home/me/projects' });
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(api.callsTo('workspace.attach')).toContainEqual({ chatId: 'c1', path: '/home/me/projects', mode: 'readonly', confirm: expect.any(String) });
  });

  it('keeps a path typed before the first listing arrives', async () => {
    const { api } = setup();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    api.handle('workspace.browse', async () => {
      await gate;
      return { path: '/home/me', parent: '/home', entries: [], refused: null };
    });
    await openAttach();
    const dialog = await screen.findByRole('dialog', { name: 'Choose a folder to attach' });
    const input = within(dialog).getByRole('textbox', { name: 'Folder path' }) as HTMLInputElement;
    fireEvent.change(input, { target: { value: '/srv/project' } });
    release();
    await waitFor(() => expect(within(dialog).getByText('No folders in here.')).toBeTruthy());
    expect(input.value).toBe('/srv/project');
  });

  it('shows a refused attach with main\'s message and hint, as is', async () => {
    const { api } = setup();
    api.fail('workspace.attach', 'workspace_refused', '/etc is a system folder; Berth does not mount it.', 'Attach a project folder instead.');
    // A folder the listing could not know attach refuses (it changed meanwhile): attach's own word is shown.
    api.folders['/etc'] = [];
    await openAttach();
    const dialog = await screen.findByRole('dialog', { name: 'Choose a folder to attach' });
    await chooseFolder(dialog, '/etc');

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('/etc is a system folder; Berth does not mount it.')).toBeTruthy();
    expect(within(alert).getByText('Attach a project folder instead.')).toBeTruthy();
    expect(api.callsTo('workspace.attach')).toContainEqual({ chatId: 'c1', path: '/etc', mode: 'review', contents: { ignored: false, include: [] }, confirm: expect.any(String) });
  });

  it('offers Choose only for a folder that exists and attach accepts, says why not, and starts at the last folder chosen', async () => {
    window.localStorage.clear();
    const { api } = setup();
    api.refusedFolders['/home/me'] = 'Berth does not attach /home/me: it holds credentials (.ssh).';
    await openAttach();
    let dialog = await screen.findByRole('dialog', { name: 'Choose a folder to attach' });
    // Where the picker starts is not the user's choice: why it cannot be chosen is a note, not an error.
    const note = await within(dialog).findByText(/it holds credentials/);
    expect(within(dialog).queryByRole('alert')).toBeNull();
    expect(note.closest('[role="note"]')?.textContent).toMatch(/Open a folder below, or type its path above\.$/);
    const choose = within(dialog).getByRole('button', { name: 'Choose this folder' }) as HTMLButtonElement;
    expect(choose.disabled).toBe(true);
    // The icons are drawn, not characters a font may lack.
    expect(dialog.textContent).not.toMatch(/\p{Extended_Pictographic}/u);
    expect(dialog.querySelectorAll('svg.folder-icon').length).toBeGreaterThan(0);

    // A typed path that is not there: said, nothing attached.
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Folder path' }), { target: { value: '/home/me/gone' } });
    fireEvent.click(choose);
    expect(await within(dialog).findByText('/home/me/gone is not a folder.')).toBeTruthy();
    const attaches = () => api.callsTo('workspace.attach').filter((c) => !('via' in (c as object)));
    expect(attaches()).toEqual([]);

    fireEvent.click(within(dialog).getByRole('button', { name: /projects/ }));
    await waitFor(() => expect((within(dialog).getByRole('textbox', { name: 'Folder path' }) as HTMLInputElement).value).toBe('/home/me/projects'));
    await chooseThisFolder(dialog);
    await waitFor(() => expect(attaches()).toHaveLength(1));

    // The next picker starts there.
    await openAttach();
    dialog = await screen.findByRole('dialog', { name: 'Choose a folder to attach' });
    await waitFor(() => expect((within(dialog).getByRole('textbox', { name: 'Folder path' }) as HTMLInputElement).value).toBe('/home/me/projects'));
    expect(api.callsTo('workspace.browse').at(-1)).toEqual({ path: '/home/me/projects' });
  });

  it('under a refused folder says only the refusal and what to do, never what the chat would see of it', async () => {
    window.localStorage.clear();
    const { api } = setup();
    api.folders['/etc'] = ['apt'];
    api.refusedFolders['/etc'] = 'Berth does not attach /etc: it is a system folder.';
    await openAttach();
    const dialog = await screen.findByRole('dialog', { name: 'Choose a folder to attach' });
    // The copy sentence is there for a folder attach accepts…
    await waitFor(() => expect(dialog.textContent).toContain('through its own copy'));
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Folder path' }), { target: { value: '/etc' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Go' }));
    const alert = await within(dialog).findByRole('alert');
    expect(alert.textContent).toContain('Berth does not attach /etc: it is a system folder.');
    expect(alert.textContent).toContain('Pick another folder');
    // …and gone under /etc: no "will see /etc through its own copy".
    expect(dialog.textContent).not.toMatch(/will see|through its own copy/);
    expect((within(dialog).getByRole('button', { name: 'Choose this folder' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('on the desktop, the native picker attaches in main; its refusal is shown the same way', async () => {
    const { api } = setup();
    api.pickFolderResult = new ApiError('workspace_refused', 'Your home folder itself cannot be attached.', 'Pick a folder inside it.');
    await openAttach();
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Your home folder itself cannot be attached.');
    expect(alert.textContent).toContain('Pick a folder inside it.');
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('ChatHeader attach modes', () => {
  it('offers Review first, one line per mode, and says what a git copy starts from', async () => {
    setup();
    fireEvent.click(await screen.findByRole('button', { name: 'Attach folder…' }));
    const how = await screen.findByRole('dialog', { name: 'Attach a folder' });
    const radios = within(how).getAllByRole('radio') as HTMLInputElement[];
    expect(radios.map((r) => r.value)).toEqual(['review', 'readwrite', 'readonly']);
    expect(radios[0]!.checked).toBe(true);
    expect(how.textContent).toContain("The chat works on its own copy; your folder changes only when you apply the chat's changes.");
    expect(how.textContent).toContain('The chat writes straight into your folder.');
    expect(how.textContent).toContain('current HEAD plus your uncommitted changes');
    // The copy's contents are Review's alone.
    expect(within(how).getByRole('checkbox', { name: /Ignored files too/ })).toBeTruthy();
    fireEvent.click(within(how).getByRole('radio', { name: /^Read-write/ }));
    expect(within(how).queryByRole('checkbox', { name: /Ignored files too/ })).toBeNull();
  });

  it('attaches in Review mode with ignored files and secret-looking files named by the user', async () => {
    const { api } = setup();
    fireEvent.click(await screen.findByRole('button', { name: 'Attach folder…' }));
    const how = await screen.findByRole('dialog', { name: 'Attach a folder' });
    fireEvent.click(within(how).getByRole('checkbox', { name: /Ignored files too/ }));
    fireEvent.change(within(how).getByRole('textbox', { name: /Secret-looking files/ }), { target: { value: '.env, config/dev.key' } });
    fireEvent.click(within(how).getByRole('button', { name: 'Choose folder…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Choose a folder to attach' });
    expect(dialog.textContent).toContain('through its own copy');
    await chooseFolder(dialog, '/home/me/projects/site');

    await screen.findByRole('button', { name: 'Detach /home/me/projects/site' });
    expect(api.callsTo('workspace.attach')).toContainEqual({
      chatId: 'c1',
      path: '/home/me/projects/site',
      mode: 'review',
      contents: { ignored: true, include: ['.env', 'config/dev.key'] },
      // Main's token for the change (the fake's chat has a container to replace), passed along.
      confirm: expect.any(String),
    });
    const list = screen.getByRole('list', { name: 'Attached folders' });
    expect(within(list).getByText('review')).toBeTruthy();
    expect(list.textContent).toContain('Copy of HEAD 0123456 (no uncommitted changes), on branch berth/c1');
  });

  it('on the desktop, shows the notice main gives with a folder attached at once', async () => {
    const { api } = setup();
    api.pickFolderResult = { notice: 'A read-write folder must be mounted when Docker creates the container, so this chat waits for a new sandbox.' };
    await openAttach();
    expect((await screen.findByRole('status')).textContent).toContain('waits for a new sandbox');
  });

  it("says the sandbox is recreated at its next command until it was, on a line of its own the user can dismiss", async () => {
    const { api } = setup();
    const running = { chatId: 'c1', state: 'running' as const, key: 'k', containerName: 'n', image: 'i', networkName: null, error: null };
    api.emit('sandbox.status', { ...running, containerId: 'old' });
    api.handle('workspace.detach', () => ({ attachments: [], notice: "The chat's sandbox is recreated the next time it runs a command." }));
    fireEvent.click(await screen.findByRole('button', { name: 'Detach /home/me/notes' }));
    const notice = await screen.findByRole('status');
    expect(notice.textContent).toContain('recreated the next time');
    // Its next command came: the chat runs in another container, and the notice is no news.
    api.emit('sandbox.status', { ...running, containerId: 'new' });
    await waitFor(() => expect(screen.queryByText(/recreated the next time/)).toBeNull());

    api.pickFolderResult = { notice: 'Recreated the next time.' };
    await openAttach();
    await screen.findByText('Recreated the next time.');
    fireEvent.click(screen.getByRole('button', { name: 'Dismiss this notice' }));
    expect(screen.queryByText('Recreated the next time.')).toBeNull();
  });

  it('on the desktop, passes the chosen mode to the native picker', async () => {
    const { api } = setup();
    api.pickFolderResult = 'picked';
    await openAttach();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.callsTo('workspace.attach')).toEqual([{ via: 'pickFolder', chatId: 'c1', mode: 'review', contents: { ignored: false, include: [] } }]);
  });

  it('shows the progress of a copy being made', async () => {
    const { api } = setup();
    await screen.findByRole('list', { name: 'Attached folders' });
    api.emit('review.progress', { chatId: 'c1', hostPath: '/home/me/big', phase: 'copying', files: 1200, totalFiles: 4800, message: 'Copying ignored files…' });
    const bar = await screen.findByRole('progressbar', { name: 'Copying /home/me/big' });
    expect(bar.getAttribute('value')).toBe('1200');
    // Main's words, then the counts once (electron/main/review/reviewCopy.test.ts: no count in the words).
    expect(bar.closest('[role="status"]')?.textContent).toBe('Copying ignored files… (1,200 of 4,800 files)');
    // A step that is not a count of files: the words alone, and a bar without a value.
    api.emit('review.progress', { chatId: 'c1', hostPath: '/home/me/big', phase: 'copying', files: 0, totalFiles: null, message: 'Copying the repository’s history…' });
    await waitFor(() => expect(bar.closest('[role="status"]')?.textContent).toBe('Copying the repository’s history…'));
    expect(bar.hasAttribute('value')).toBe(false);
    api.emit('review.progress', { chatId: 'c1', hostPath: '/home/me/big', phase: 'done', files: 4800, totalFiles: 4800, message: 'Done' });
    await waitFor(() => expect(screen.queryByRole('progressbar', { name: 'Copying /home/me/big' })).toBeNull());
  });
});

describe('ChatHeader sandbox', () => {
  it('shows pull progress as a progressbar with its value', async () => {
    const { api } = setup();
    await screen.findByText('not started');
    api.emit('sandbox.progress', { chatId: 'c1', key: 'default:c1', phase: 'pulling', message: 'Pulling debian:bookworm-slim', fraction: 0.42 });
    const bar = await screen.findByRole('progressbar', { name: 'Pulling image' });
    expect(bar.getAttribute('aria-valuenow')).toBe('42');
    api.emit('sandbox.progress', { chatId: 'c1', key: 'default:c1', phase: 'ready', message: 'Ready', fraction: null });
    expect(await screen.findByText('running')).toBeTruthy();
    expect(screen.queryByRole('progressbar')).toBeNull();
  });

  it('shows an error with its message and retries with a no-op command', async () => {
    const { api } = setup();
    await screen.findByText('not started');
    const failed = {
      chatId: 'c1',
      state: 'error' as const,
      key: 'default:c1',
      containerId: null,
      containerName: 'berth-default-c1',
      image: 'debian:bookworm-slim',
      networkName: 'berth-default',
      error: { code: 'network_failed', message: 'The network berth-default could not be set up.' },
      engine: { id: 'ssh://me@box', kind: 'ssh' as const, label: 'ssh://me@box', remote: true },
    };
    api.sandbox.set('c1', failed);
    api.emit('sandbox.status', failed);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The network berth-default could not be set up.');
    fireEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(api.callsTo('sandbox.exec')).toEqual([{ chatId: 'c1', command: ':' }]));

    fireEvent.click(screen.getByRole('button', { name: 'Sandbox details' }));
    expect(screen.getByText('default:c1')).toBeTruthy();
    expect(screen.getByText('berth-default-c1')).toBeTruthy();
    expect(screen.getByText('berth-default')).toBeTruthy();
    // Which engine the chat runs on, and that its folders are copies there.
    expect(screen.getByText('ssh://me@box (remote: attached folders are copies)')).toBeTruthy();
  });

  it('the sandbox details have Stop, which asks first when commands run in the terminals', async () => {
    const { api } = setup();
    const running = { chatId: 'c1', state: 'running' as const, key: 'default:c1', containerId: 'abc', containerName: 'n', image: 'i', networkName: null, error: null };
    api.sandbox.set('c1', running);
    api.emit('sandbox.status', running);
    await screen.findByText('running');
    fireEvent.click(screen.getByRole('button', { name: 'Sandbox details' }));
    api.handle('terminal.busy', () => ({ terminals: [{ terminalId: 't1', title: 'Terminal 1', processes: ['npm run dev'] }] }));
    fireEvent.click(screen.getByRole('button', { name: 'Stop sandbox' }));
    const dialog = await screen.findByRole('dialog', { name: 'Stop what runs in the terminals?' });
    expect(dialog.textContent).toContain('npm run dev');
    expect(api.callsTo('sandbox.stop')).toEqual([]);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Stop them and the sandbox' }));
    await waitFor(() => expect(api.callsTo('sandbox.stop')).toEqual([{ chatId: 'c1' }]));
  });

  it('with the engine down, says so once, in the status bar: the chat does not repeat it', async () => {
    const down = 'The Docker engine at /var/run/docker.sock cannot be reached: nothing answered.';
    const api = createFakeApi({
      chats: [chatView({ id: 'c1', title: 'Site' })],
      engine: { state: 'unreachable', version: null, endpoint: 'unix:///var/run/docker.sock', message: down, hint: 'Start Docker; Berth reconnects by itself.' },
    });
    api.fail('sandbox.status', 'engine_unreachable', down, 'Start Docker; Berth reconnects by itself.');
    renderWithApp(
      <>
        <SelectedHeader />
        <StatusBar />
      </>,
      api,
    );
    await within(screen.getByRole('status', { name: 'Docker engine' })).findByText(new RegExp(down.replace(/[.*/]/g, '\\$&')));
    const failed = { chatId: 'c1', state: 'error' as const, key: 'default:c1', containerId: null, containerName: null, image: null, networkName: null, error: { code: 'engine_unreachable', message: down }, engine: null };
    api.emit('sandbox.status', failed);
    const sandbox = screen.getByRole('region', { name: 'Sandbox' });
    await within(sandbox).findByText(/waiting for the engine: see the status bar/);
    expect(sandbox.textContent).not.toContain(down);
    expect(screen.queryAllByText((_, el) => el?.children.length === 0 && (el.textContent ?? '').includes('cannot be reached')).length).toBe(1);
  });

  it('says when the sandbox runs on another engine than its profile now names, until it restarts', async () => {
    const { api } = setup();
    await screen.findByText('not started');
    const pinned = {
      chatId: 'c1', state: 'running' as const, key: 'default:c1', containerId: 'abc', containerName: 'berth-default-c1', image: 'debian:bookworm-slim', networkName: null, error: null,
      engine: { id: 'unix:///var/run/docker.sock', kind: 'default' as const, label: '/var/run/docker.sock', remote: false },
      profileEngine: { id: 'ssh://me@box', kind: 'ssh' as const, label: 'ssh://me@box', remote: true },
    };
    api.sandbox.set('c1', pinned);
    api.emit('sandbox.status', pinned);
    fireEvent.click(screen.getByRole('button', { name: 'Sandbox details' }));
    const moves = await screen.findByRole('note', { name: 'Engine differs from the profile' });
    expect(moves.textContent).toBe("Runs on /var/run/docker.sock; this chat's profile now uses ssh://me@box. It moves there when its sandbox stops (Stop, or idle stop); its home folder and installed packages stay behind.");
  });
});
