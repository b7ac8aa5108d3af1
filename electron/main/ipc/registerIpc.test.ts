import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { methods, type ChatView } from '../../../shared/contract.js';
import { createCore, type BerthCore } from '../core.js';
import { FOLDER_CHOICE_TTL_MS } from '../../../shared/folderPicker.js';
import { CALL_CHANNEL, CONFIRM_FOLDER_CHANNEL, EVENT_CHANNEL, PICK_FOLDER_CHANNEL, type IpcReply } from './protocol.js';
import { IPC_EXCLUDED_METHODS, IPC_METHODS, PICK_FOLDER_DIALOG, REFUSED_SENDER_MESSAGE, registerIpc, type IpcRegistration } from './registerIpc.js';
import { isTrustedSenderUrl } from './securityPolicy.js';
import { FakeIpcMain, FakeWindow, RUNNING, fakeDialog, senderEvent, whileRunning } from './testDoubles.js';

let tmp: string;
let core: BerthCore;
let ipcMain: FakeIpcMain;
let win: FakeWindow | null;
let registration: IpcRegistration;
let dialog: ReturnType<typeof fakeDialog>;
let clock = 1_000_000;

function setUp(dialogResult = { canceled: true, filePaths: [] as string[] }) {
  registration?.dispose();
  dialog = fakeDialog(dialogResult);
  registration = registerIpc({
    ipcMain,
    core: whileRunning(core),
    getWindow: () => win,
    dialog,
    isTrustedSender: (url) => isTrustedSenderUrl(url, { devServerOrigin: null }),
    now: () => clock,
  });
}

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'berth-ipc-')));
  core = createCore({ dataDir: path.join(tmp, 'data'), env: { DOCKER_HOST: 'unix:///nonexistent.sock' }, reapIntervalMs: 0 });
  ipcMain = new FakeIpcMain();
  win = new FakeWindow();
  setUp();
});

afterEach(async () => {
  registration.dispose();
  await core.dispose();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const call = (method: unknown, params?: unknown, event = senderEvent(win as FakeWindow)) =>
  ipcMain.invoke(CALL_CHANNEL, event, { method, params }) as Promise<IpcReply>;
const pick = (request: unknown, event = senderEvent(win as FakeWindow)) => ipcMain.invoke(PICK_FOLDER_CHANNEL, event, request) as Promise<IpcReply>;
const answer = (request: unknown, event = senderEvent(win as FakeWindow)) => ipcMain.invoke(CONFIRM_FOLDER_CHANNEL, event, request) as Promise<IpcReply>;
const attachmentsOf = async (chatId: string) => ((await core.call('chats.list', {})) as { chats: ChatView[] }).chats.find((c) => c.id === chatId)?.attachments;
/** The token of a folder main holds for the page's answer (pick's `confirm`). */
const tokenOf = (reply: IpcReply) => {
  if (!reply.ok) throw new Error(`expected a folder held for an answer, got ${JSON.stringify(reply.error)}`);
  const confirm = (reply.result as { confirm: { token: string; reason: string | null } | null }).confirm;
  if (!confirm) throw new Error(`expected a folder held for an answer, got ${JSON.stringify(reply.result)}`);
  return confirm.token;
};
const chatCount = async () => ((await core.call('chats.list', {})) as { chats: ChatView[] }).chats.length;
const errorOf = (reply: IpcReply) => {
  if (reply.ok) throw new Error(`expected an error reply, got ${JSON.stringify(reply.result)}`);
  return reply.error;
};

describe('registerIpc: the methods', () => {
  it('has one handler per contract method except workspace.attach and workspace.browse', () => {
    const expected = Object.keys(methods).filter((m) => m !== 'workspace.attach' && m !== 'workspace.browse');
    expect([...IPC_METHODS].sort()).toEqual(expected.sort());
    expect([...IPC_EXCLUDED_METHODS].sort()).toEqual(['workspace.attach', 'workspace.browse']);
    expect([...ipcMain.handlers.keys()].sort()).toEqual([CALL_CHANNEL, PICK_FOLDER_CHANNEL, CONFIRM_FOLDER_CHANNEL].sort());
  });

  it.each(IPC_METHODS.map((m) => [m]))('routes %s to the core, which checks the request', async (method) => {
    // Every request schema is strict: an unknown key reaches the core and is refused there.
    const error = errorOf(await call(method, { notAField: 1 }));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain(`The request for ${method} is not valid`);
  });

  it('creates a chat for the app window and returns plain data', async () => {
    const reply = await call('chats.create', { title: 'From the window' });
    expect(reply.ok).toBe(true);
    expect(reply).toMatchObject({ ok: true, result: { title: 'From the window', profile: 'default', attachments: [] } });
    expect(await chatCount()).toBe(1);
  });

  it.each(IPC_EXCLUDED_METHODS.map((m) => [m]))('does not reach %s, whatever the request', async (method) => {
    const chat = (await core.call('chats.create', {})) as ChatView;
    const folder = fs.mkdtempSync(path.join(tmp, 'folder-'));
    const params = method === 'workspace.attach' ? { chatId: chat.id, path: folder } : { path: tmp };
    const error = errorOf(await call(method, params));
    expect(error).toMatchObject({ code: 'invalid_request', message: `${method} is not available in the desktop app.` });
    expect(error.hint).toMatch(/folder picker/);
    const after = (await core.call('chats.list', {})) as { chats: ChatView[] };
    expect(after.chats[0]?.attachments).toEqual([]);
  });
});

describe('registerIpc: who may call', () => {
  const foreign: Array<[string, (w: FakeWindow) => Parameters<typeof call>[2]]> = [
    ['a page on the internet', (w) => senderEvent(w, 'https://evil.example/index.html')],
    ['a file:// page', (w) => senderEvent(w, 'file:///tmp/index.html')],
    ['another berth:// host', (w) => senderEvent(w, 'berth://evil/index.html')],
    ['a subframe of the app', (w) => senderEvent(w, 'berth://app/index.html', { url: 'berth://app/index.html' })],
    ['a frame that is gone (senderFrame null)', (w) => ({ sender: { id: w.webContents.id }, senderFrame: null })],
    ['another webContents at the app URL', () => senderEvent(new FakeWindow(2))],
  ];

  it.each(foreign)('refuses %s and nothing happens', async (_label, eventFor) => {
    const event = eventFor(win as FakeWindow);
    await expect(call('chats.create', { title: 'sneaky' }, event)).rejects.toThrow(REFUSED_SENDER_MESSAGE);
    await expect(pick({ chatId: 'x', readOnly: false }, event)).rejects.toThrow(REFUSED_SENDER_MESSAGE);
    await expect(answer({ token: crypto.randomUUID(), attach: true }, event)).rejects.toThrow(REFUSED_SENDER_MESSAGE);
    expect(await chatCount()).toBe(0);
    expect(dialog.calls).toHaveLength(0);
  });

  it('refuses everything while there is no window, or the window is destroyed', async () => {
    const event = senderEvent(win as FakeWindow);
    (win as FakeWindow).destroyed = true;
    await expect(call('chats.create', {}, event)).rejects.toThrow(REFUSED_SENDER_MESSAGE);
    win = null;
    await expect(call('chats.create', {}, event)).rejects.toThrow(REFUSED_SENDER_MESSAGE);
    expect(await chatCount()).toBe(0);
  });

  it('refuses a sender whose senderFrame cannot be read', async () => {
    const event = {
      sender: { id: (win as FakeWindow).webContents.id },
      get senderFrame(): never {
        throw new Error('Render frame was disposed');
      },
    };
    await expect(call('chats.create', {}, event)).rejects.toThrow(REFUSED_SENDER_MESSAGE);
  });

  it('trusts the dev server origin only when it is the one configured', async () => {
    registration.dispose();
    registration = registerIpc({
      ipcMain,
      core,
      getWindow: () => win,
      dialog,
      isTrustedSender: (url) => isTrustedSenderUrl(url, { devServerOrigin: 'http://localhost:5173' }),
    });
    expect((await call('chats.list', {}, senderEvent(win as FakeWindow, 'http://localhost:5173/'))).ok).toBe(true);
    await expect(call('chats.list', {}, senderEvent(win as FakeWindow, 'http://localhost:5174/'))).rejects.toThrow(REFUSED_SENDER_MESSAGE);
  });
});

describe('registerIpc: malformed requests', () => {
  it.each([
    ['no request at all', undefined],
    ['a string', 'chats.create'],
    ['an array', ['chats.create', {}]],
    ['a numeric method', { method: 5 }],
    ['no method', { params: {} }],
  ])('answers %s with invalid_request, without throwing across IPC', async (_label, request) => {
    const reply = (await ipcMain.invoke(CALL_CHANNEL, senderEvent(win as FakeWindow), request)) as IpcReply;
    expect(errorOf(reply)).toEqual({ code: 'invalid_request', message: 'A call needs a method name and its parameters.' });
  });

  it.each(['nope', '__proto__', 'constructor', 'toString', 'hasOwnProperty'])('answers the unknown method %j with invalid_request', async (method) => {
    expect(errorOf(await call(method, {}))).toMatchObject({ code: 'invalid_request', message: `Unknown method "${method}".` });
  });

  it('answers bad params with the core\'s invalid_request payload, a plain object', async () => {
    const error = errorOf(await call('chats.create', 'not an object'));
    expect(error.code).toBe('invalid_request');
    expect(Object.getPrototypeOf(error)).toBe(Object.prototype);
    expect(await chatCount()).toBe(0);
  });

  it('refuses host-level profile settings from the window: no local backend, no host mounts', async () => {
    expect(errorOf(await call('profiles.create', { name: 'evil', backend: 'local' }))).toMatchObject({ code: 'invalid_request' });
    expect(errorOf(await call('profiles.update', { name: 'default', settings: { backend: 'local' } })).message).toMatch(/cannot change backend/);
    expect(errorOf(await call('profiles.create', { name: 'm', staticMounts: [{ source: '/srv', target: '/data' }] })).message).toMatch(/staticMounts/);
  });

  it('passes a not_found from the core through with its words', async () => {
    const error = errorOf(await call('chats.rename', { chatId: 'missing', title: 'x' }));
    expect(error.code).toBe('not_found');
    expect(error.message.length).toBeGreaterThan(0);
  });
});

describe('registerIpc: pickFolder', () => {
  it('shows the native dialog on the main window and attaches nothing when it is cancelled', async () => {
    const chat = (await core.call('chats.create', {})) as ChatView;
    const reply = await pick({ chatId: chat.id, readOnly: true });
    expect(reply).toEqual({ ok: true, result: { attached: null, notice: null, confirm: null } });
    expect(dialog.calls).toEqual([{ window: win, options: PICK_FOLDER_DIALOG }]);
    expect(PICK_FOLDER_DIALOG).toEqual({ properties: ['openDirectory', 'createDirectory'], title: 'Attach a folder to this chat' });
    const after = (await core.call('chats.list', {})) as { chats: ChatView[] };
    expect(after.chats[0]?.attachments).toEqual([]);
  });

  it('attaches nothing when the dialog returns no path', async () => {
    setUp({ canceled: false, filePaths: [] });
    const chat = (await core.call('chats.create', {})) as ChatView;
    expect(await pick({ chatId: chat.id, readOnly: false })).toEqual({ ok: true, result: { attached: null, notice: null, confirm: null } });
  });

  it("returns the core's refusal when the user picks /etc", async () => {
    setUp({ canceled: false, filePaths: ['/etc'] });
    const chat = (await core.call('chats.create', {})) as ChatView;
    const direct = await core.call('workspace.attach', { chatId: chat.id, path: '/etc' }).then(
      () => null,
      (error: { code: string; message: string }) => error,
    );
    expect(direct).not.toBeNull();
    const error = errorOf(await pick({ chatId: chat.id, readOnly: false }));
    expect(error.code).toBe('workspace_refused');
    expect(error.message).toBe(direct?.message);
    const after = (await core.call('chats.list', {})) as { chats: ChatView[] };
    expect(after.chats[0]?.attachments).toEqual([]);
  });

  it('attaches the chosen folder at once, read-only as asked, when that replaces no running container', async () => {
    const folder = fs.mkdtempSync(path.join(tmp, 'project-'));
    setUp({ canceled: false, filePaths: [folder] });
    // A profile whose sandboxes mount no folders: attaching never replaces a container.
    await core.call('profiles.create', { name: 'nomount', mountWorkspace: false });
    const chat = (await core.call('chats.create', { profile: 'nomount' })) as ChatView;
    const reply = await pick({ chatId: chat.id, readOnly: true });
    expect(reply).toMatchObject({ ok: true, result: { attached: { hostPath: folder, readOnly: true }, confirm: null } });
    expect(await attachmentsOf(chat.id)).toMatchObject([{ hostPath: folder, readOnly: true }]);
  });

  it('holds a folder whose attach may replace the running container until the page answers: attached on yes, as chosen', async () => {
    const folder = fs.mkdtempSync(path.join(tmp, 'project-'));
    setUp({ canceled: false, filePaths: [folder] });
    const chat = (await core.call('chats.create', {})) as ChatView;
    // The engine does not answer here, so whether a container runs is unknown: main says it may be replaced.
    expect(await core.call('workspace.attachPreview', { chatId: chat.id, action: 'attach', mode: 'readonly', path: folder })).toMatchObject({ recreates: true });
    const held = await pick({ chatId: chat.id, readOnly: true });
    expect(held).toMatchObject({ ok: true, result: { attached: null, notice: null, confirm: { token: expect.any(String), reason: expect.any(String), running: RUNNING } } });
    // Nothing attached, and the page was never told the host path.
    expect(await attachmentsOf(chat.id)).toEqual([]);
    expect(JSON.stringify(held)).not.toContain(folder);
    const reply = await answer({ token: tokenOf(held), attach: true });
    expect(reply).toMatchObject({ ok: true, result: { attached: { hostPath: folder, readOnly: true }, confirm: null } });
    expect(await attachmentsOf(chat.id)).toMatchObject([{ hostPath: folder, readOnly: true }]);
  });

  it('a held folder is let go on no, is good once, and not at all after it expires', async () => {
    const folder = fs.mkdtempSync(path.join(tmp, 'project-'));
    setUp({ canceled: false, filePaths: [folder] });
    const chat = (await core.call('chats.create', {})) as ChatView;
    // No: nothing attached, and the token is spent.
    const declined = tokenOf(await pick({ chatId: chat.id, mode: 'readwrite' }));
    expect(await answer({ token: declined, attach: false })).toEqual({ ok: true, result: { attached: null, notice: null, confirm: null } });
    expect(errorOf(await answer({ token: declined, attach: true }))).toMatchObject({ code: 'invalid_request', hint: 'Choose the folder again.' });
    expect(await attachmentsOf(chat.id)).toEqual([]);
    // Expired: refused with why, nothing attached.
    const late = tokenOf(await pick({ chatId: chat.id, mode: 'readwrite' }));
    clock += FOLDER_CHOICE_TTL_MS;
    expect(errorOf(await answer({ token: late, attach: true })).message).toMatch(/expired/);
    expect(await attachmentsOf(chat.id)).toEqual([]);
    // Once: a second yes does not attach it again.
    const once = tokenOf(await pick({ chatId: chat.id, mode: 'readwrite' }));
    clock += FOLDER_CHOICE_TTL_MS - 1;
    expect((await answer({ token: once, attach: true })).ok).toBe(true);
    expect(errorOf(await answer({ token: once, attach: true })).code).toBe('invalid_request');
    expect(await attachmentsOf(chat.id)).toHaveLength(1);
  });

  it("a token is the window's it was given to, and choosing again for the chat replaces the one before", async () => {
    const folder = fs.mkdtempSync(path.join(tmp, 'project-'));
    setUp({ canceled: false, filePaths: [folder] });
    const chat = (await core.call('chats.create', {})) as ChatView;
    const first = tokenOf(await pick({ chatId: chat.id, mode: 'readwrite' }));
    const second = tokenOf(await pick({ chatId: chat.id, mode: 'readwrite' }));
    expect(second).not.toBe(first);
    expect(errorOf(await answer({ token: first, attach: true })).code).toBe('invalid_request');
    // The window is replaced (closed and opened again): the new one cannot redeem the old one's token.
    win = new FakeWindow(7);
    expect(errorOf(await answer({ token: second, attach: true })).code).toBe('invalid_request');
    expect(await attachmentsOf(chat.id)).toEqual([]);
  });

  it.each([
    ['no token', { attach: true }],
    ['a token that is not one main makes', { token: '../../etc', attach: true }],
    ['a path smuggled in', { token: crypto.randomUUID(), attach: true, path: '/home' }],
    ['a string attach', { token: crypto.randomUUID(), attach: 'yes' }],
    ['not an object', 'attach'],
  ])('refuses an answer with %s, attaching nothing', async (_label, request) => {
    const folder = fs.mkdtempSync(path.join(tmp, 'project-'));
    setUp({ canceled: false, filePaths: [folder] });
    const chat = (await core.call('chats.create', {})) as ChatView;
    const held = tokenOf(await pick({ chatId: chat.id, mode: 'readwrite' }));
    const error = errorOf(await answer(typeof request === 'object' && 'token' in request && request.token !== '../../etc' ? { ...request, token: held } : request));
    expect(error.code).toBe('invalid_request');
    expect(await attachmentsOf(chat.id)).toEqual([]);
    // The held choice is untouched by a malformed answer.
    expect((await answer({ token: held, attach: true })).ok).toBe(true);
  });

  it.each([
    ['no chat id', { readOnly: true }],
    ['a numeric chat id', { chatId: 5, readOnly: true }],
    ['a path smuggled in', { chatId: 'c', readOnly: true, path: '/home' }],
    ['a string readOnly', { chatId: 'c', readOnly: 'yes' }],
    ['contents that are not an object', { chatId: 'c', mode: 'review', contents: 'everything' }],
    ['contents with an unknown key', { chatId: 'c', mode: 'review', contents: { ignored: true, all: true } }],
    ['an empty name to include', { chatId: 'c', mode: 'review', contents: { include: [''] } }],
  ])('refuses %s before showing any dialog', async (_label, request) => {
    expect(errorOf(await pick(request)).code).toBe('invalid_request');
    expect(dialog.calls).toHaveLength(0);
  });

  it('answers not_found for a chat that does not exist, after the dialog', async () => {
    const folder = fs.mkdtempSync(path.join(tmp, 'project-'));
    setUp({ canceled: false, filePaths: [folder] });
    expect(errorOf(await pick({ chatId: 'no-such-chat', readOnly: false })).code).toBe('not_found');
  });
});

describe('registerIpc: events', () => {
  const chatEvents = (w: FakeWindow) =>
    w.sent.filter((s) => s.channel === EVENT_CHANNEL && (s.args[0] as { event: string }).event === 'chats.changed');

  it('forwards core events to the window on berth:event as {event, payload}', async () => {
    const chat = (await core.call('chats.create', {})) as ChatView;
    const sent = chatEvents(win as FakeWindow);
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(sent.at(-1)).toEqual({ channel: EVENT_CHANNEL, args: [{ event: 'chats.changed', payload: { chatId: chat.id } }] });
  });

  it('sends nothing to a window showing a page that is not the app', async () => {
    (win as FakeWindow).webContents.url = 'https://evil.example/';
    await core.call('chats.create', {});
    expect(chatEvents(win as FakeWindow)).toEqual([]);
  });

  it('sends nothing to a destroyed window', async () => {
    (win as FakeWindow).destroyed = true;
    await core.call('chats.create', {});
    expect(chatEvents(win as FakeWindow)).toEqual([]);
  });

  it('dispose stops forwarding and removes the handlers; a second dispose does nothing', async () => {
    registration.dispose();
    registration.dispose();
    await core.call('chats.create', {});
    expect(chatEvents(win as FakeWindow)).toEqual([]);
    expect(ipcMain.handlers.size).toBe(0);
    await expect(call('chats.list', {})).rejects.toThrow(/No handler registered/);
    // A fresh registration works again (no handler left behind to collide with).
    setUp();
    expect((await call('chats.list', {})).ok).toBe(true);
  });
});
