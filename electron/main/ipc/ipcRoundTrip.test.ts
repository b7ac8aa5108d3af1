/**
 * The preload bridge and registerIpc together, over test doubles of ipcRenderer/ipcMain (the
 * Electron binary cannot run here), with a real core on a temp folder and no Docker.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChatView } from '../../../shared/contract.js';
import { createBridge, type BerthBridge, type BridgeError } from '../../preload/bridge.js';
import { createCore, type BerthCore } from '../core.js';
import { registerIpc, type IpcRegistration } from './registerIpc.js';
import { isTrustedSenderUrl } from './securityPolicy.js';
import { FakeIpcMain, FakeIpcRenderer, FakeWindow, fakeDialog, senderEvent, whileRunning } from './testDoubles.js';

let tmp: string;
let core: BerthCore;
let registration: IpcRegistration;
let bridge: BerthBridge;
let project: string;

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'berth-roundtrip-')));
  project = fs.mkdtempSync(path.join(tmp, 'project-'));
  core = createCore({ dataDir: path.join(tmp, 'data'), env: { DOCKER_HOST: 'unix:///nonexistent.sock' }, reapIntervalMs: 0 });
  const ipcMain = new FakeIpcMain();
  const win = new FakeWindow();
  const ipcRenderer = new FakeIpcRenderer((channel, ...args) => ipcMain.invoke(channel, senderEvent(win), ...args));
  win.renderer = ipcRenderer;
  registration = registerIpc({
    ipcMain,
    // As if something ran in the chat's terminals, so main holds a folder whose attach replaces the container.
    core: whileRunning(core),
    getWindow: () => win,
    dialog: fakeDialog({ canceled: false, filePaths: [project] }),
    isTrustedSender: (url) => isTrustedSenderUrl(url, { devServerOrigin: null }),
  });
  bridge = createBridge(ipcRenderer);
});

afterEach(async () => {
  registration.dispose();
  await core.dispose();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/**
 * pickFolder, then the page's yes when main holds the folder (no Docker here: whether a container
 * runs is unknown, so main says attaching may replace it and, something running, waits for the page's answer).
 */
async function pickAndAttach(...args: Parameters<BerthBridge['pickFolder']>) {
  const picked = await bridge.pickFolder(...args);
  return picked.confirm ? bridge.confirmFolder(picked.confirm.token, true) : picked;
}

describe('window.berth over IPC', () => {
  it('creates a chat, hears chats.changed, attaches a picked folder, and stops hearing after unsubscribe', async () => {
    const changed = vi.fn();
    const off = bridge.on('chats.changed', changed);

    const chat = await bridge.call('chats.create', { title: 'Round trip' });
    expect(chat).toMatchObject({ title: 'Round trip', attachments: [] });
    expect(changed).toHaveBeenCalledWith({ chatId: chat.id });

    const held = await bridge.pickFolder(chat.id, true);
    expect(held).toMatchObject({ attached: null, confirm: { token: expect.any(String) } });
    expect((await bridge.call('chats.list', {})).chats[0]?.attachments).toEqual([]);
    const picked = await bridge.confirmFolder(held.confirm?.token as string, true);
    expect(picked.attached).toMatchObject({ hostPath: project, readOnly: true });
    const { chats } = await bridge.call('chats.list', {});
    expect(chats[0]?.attachments).toMatchObject([{ hostPath: project }]);

    off();
    const calls = changed.mock.calls.length;
    await bridge.call('chats.delete', { chatId: chat.id });
    expect(changed).toHaveBeenCalledTimes(calls);
  });

  it('attaches in Review mode with the files the user chose: ignored ones, and a secret-looking one named to include', async () => {
    fs.writeFileSync(path.join(project, 'main.txt'), 'hello\n');
    fs.writeFileSync(path.join(project, '.env.local'), 'TOKEN=1\n');
    fs.writeFileSync(path.join(project, '.env.production'), 'TOKEN=2\n');
    const chat = await bridge.call('chats.create', {});
    const picked = await pickAndAttach(chat.id, false, 'review', { ignored: true, include: ['.env.local'] });
    expect(picked.attached).toMatchObject({ hostPath: project, mode: 'review', review: { contents: { ignored: true, include: ['.env.local'] }, excludedSecrets: ['.env.production'] } });

    let error: BridgeError | undefined;
    await bridge.pickFolder(chat.id, false, 'review', { include: ['x'.repeat(5000)] } as never).catch((e: BridgeError) => (error = e));
    expect(error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('Which files the copy holds is not valid') });
    expect((await bridge.call('chats.list', {})).chats[0]?.attachments).toHaveLength(1);
  });

  it('rejects workspace.attach with a coded error and attaches nothing', async () => {
    const chat = (await bridge.call('chats.create', {})) as ChatView;
    let error: BridgeError | undefined;
    await bridge.call('workspace.attach', { chatId: chat.id, path: project }).catch((e: BridgeError) => (error = e));
    expect(error).toMatchObject({ code: 'invalid_request', message: 'workspace.attach is not available in the desktop app.' });
    expect((await bridge.call('chats.list', {})).chats[0]?.attachments).toEqual([]);
  });

  it('rejects a bad request with the core\'s words', async () => {
    let error: BridgeError | undefined;
    await bridge.call('chats.rename', { chatId: '', title: '' }).catch((e: BridgeError) => (error = e));
    expect(error?.code).toBe('invalid_request');
    expect(error?.message).toMatch(/^The request for chats.rename is not valid/);
  });
});
