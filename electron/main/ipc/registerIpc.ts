/**
 * Electron IPC for the core (docs/transport.md): every contract method is reachable through
 * `berth:call`, except `workspace.attach` and `workspace.browse`: the desktop app never takes
 * a host path from the renderer. A folder is attached through `berth:pickFolder`, which shows
 * the native dialog in main; when attaching it would stop what runs in the chat's terminals
 * (workspace.attachPreview says so), the path stays here behind a one-use token (FolderChoices)
 * with the preview's confirmation, and the page, having asked the user, answers on
 * `berth:confirmFolder`. Core events go to the
 * window on `berth:event`. *
 * Every handler first checks its sender: the main window's own webContents, its top frame,
 * at one of the app's own URLs. A refused sender gets a thrown error and nothing else happens;
 * everything else gets an `IpcReply`, with failures as plain `{ code, message, hint }`.
 *
 * Electron is passed in (ipcMain, dialog, the window), so this runs and is tested under Node.
 */
import { randomUUID } from 'node:crypto';
import { methods, type AttachMode, type CopyContents, type MethodName, type Response } from '../../../shared/contract.js';
import { BerthError, toErrorPayload } from '../../../shared/errors.js';
import { ConfirmFolderRequest, FOLDER_CHOICE_TTL_MS, PickFolderRequest } from '../../../shared/folderPicker.js';
import type { BerthCore } from '../core.js';
import { CALL_CHANNEL, CONFIRM_FOLDER_CHANNEL, EVENT_CHANNEL, PICK_FOLDER_CHANNEL, type EventMessage, type IpcReply, type PickFolderResult } from './protocol.js';

/** Not reachable over IPC: they take a host path, which in the desktop app only main picks. */
export const IPC_EXCLUDED_METHODS: readonly MethodName[] = ['workspace.attach', 'workspace.browse'];
/** Every contract method the renderer may call, one handler each. */
export const IPC_METHODS: readonly MethodName[] = (Object.keys(methods) as MethodName[]).filter((m) => !IPC_EXCLUDED_METHODS.includes(m));

export const REFUSED_SENDER_MESSAGE = 'Berth refused a request from a page that is not its own.';

export const PICK_FOLDER_DIALOG = {
  properties: ['openDirectory', 'createDirectory'] as Array<'openDirectory' | 'createDirectory'>,
  title: 'Attach a folder to this chat',
};

/** What the handlers read of Electron's IpcMainInvokeEvent. */
export interface IpcInvokeEventLike {
  readonly sender: { readonly id: number };
  readonly senderFrame: { readonly url: string; readonly parent: unknown } | null;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcInvokeEventLike, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

export interface WebContentsLike {
  readonly id: number;
  isDestroyed(): boolean;
  getURL(): string;
  send(channel: string, ...args: unknown[]): void;
}

export interface WindowLike {
  readonly webContents: WebContentsLike;
  isDestroyed(): boolean;
}

export interface DialogLike<W> {
  showOpenDialog(window: W, options: typeof PICK_FOLDER_DIALOG): Promise<{ canceled: boolean; filePaths: string[] }>;
}

export interface RegisterIpcOptions<W extends WindowLike> {
  ipcMain: IpcMainLike;
  core: Pick<BerthCore, 'call' | 'connectClient' | 'onEvent'>;
  /** The main window, or null while there is none. */
  getWindow: () => W | null;
  dialog: DialogLike<W>;
  /** Whether a frame at this URL is the app's own (securityPolicy.isTrustedSenderUrl). */
  isTrustedSender: (frameUrl: string) => boolean;
  /** The time, for folder choices' expiry (tests move it). */
  now?: () => number;
}

export interface IpcRegistration {
  /** Removes the handlers and stops forwarding events. */
  dispose(): void;
}

/** A folder chosen in the dialog, waiting for the page's answer. */
interface FolderChoice {
  /** The webContents it was given to: another never redeems it. */
  sender: number;
  chatId: string;
  path: string;
  mode: AttachMode;
  contents: CopyContents | undefined;
  expires: number;
  /** workspace.attachPreview's token for this attach: the attach passes it as the user's yes. */
  confirm: string | null;
}

/** At most this many choices wait per window (one per chat is kept; these are what a page that never answers can pile up). */
const MAX_WAITING_CHOICES = 16;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function reply<T>(work: () => Promise<T>): Promise<IpcReply<T>> {
  try {
    return { ok: true, result: await work() };
  } catch (error) {
    return { ok: false, error: toErrorPayload(error) };
  }
}

export function registerIpc<W extends WindowLike>(options: RegisterIpcOptions<W>): IpcRegistration {
  const { ipcMain, core, getWindow, dialog, isTrustedSender } = options;

  const liveWindow = (): W | null => {
    const win = getWindow();
    return win && !win.isDestroyed() && !win.webContents.isDestroyed() ? win : null;
  };

  const senderIsTrusted = (event: IpcInvokeEventLike): boolean => {
    const win = liveWindow();
    if (!win || event.sender.id !== win.webContents.id) return false;
    let frame: IpcInvokeEventLike['senderFrame'];
    try {
      frame = event.senderFrame; // null (or a throw) once the frame navigated away or is gone
    } catch {
      return false;
    }
    return frame !== null && frame.parent === null && isTrustedSender(frame.url);
  };

  const assertTrusted = (event: IpcInvokeEventLike): void => {
    if (!senderIsTrusted(event)) throw new Error(REFUSED_SENDER_MESSAGE);
  };

  // The window is one screen: its calls are a client's, and terminals pace output to it.
  const client = core.connectClient();
  const handlers = new Map<string, (params: unknown) => Promise<unknown>>(
    IPC_METHODS.map((method) => [method, (params: unknown) => client.call(method, params)]),
  );

  const channels: string[] = [];
  const handle = (channel: string, listener: (event: IpcInvokeEventLike, ...args: unknown[]) => unknown) => {
    ipcMain.handle(channel, listener);
    channels.push(channel);
  };

  handle(CALL_CHANNEL, async (event, request): Promise<IpcReply> => {
    assertTrusted(event);
    return reply(async () => {
      if (!isRecord(request) || typeof request.method !== 'string') {
        throw new BerthError('invalid_request', 'A call needs a method name and its parameters.');
      }
      const { method, params } = request;
      const handler = handlers.get(method);
      if (handler) return handler(params);
      if ((IPC_EXCLUDED_METHODS as readonly string[]).includes(method)) {
        throw new BerthError('invalid_request', `${method} is not available in the desktop app.`, {
          hint: 'Attach a folder with the folder picker instead.',
        });
      }
      throw new BerthError('invalid_request', `Unknown method "${method.slice(0, 100)}".`);
    });
  });

  const now = options.now ?? Date.now;
  const choices = new Map<string, FolderChoice>();
  const forgetExpired = () => {
    for (const [token, c] of choices) if (c.expires <= now()) choices.delete(token);
  };

  const attach = async (c: FolderChoice): Promise<PickFolderResult> => {
    // Whether this folder may be attached is the core's decision (workspace validation), and so
    // is whether it needs the user's yes: asked as the window's client, which holds the token.
    const result = (await client.call('workspace.attach', {
      chatId: c.chatId, path: c.path, mode: c.mode, ...(c.contents ? { contents: c.contents } : {}), ...(c.confirm ? { confirm: c.confirm } : {}),
    })) as {
      attachment: PickFolderResult['attached'];
      notice: string | null;
    };
    return { attached: result.attachment, notice: result.notice, confirm: null };
  };

  handle(PICK_FOLDER_CHANNEL, async (event, request): Promise<IpcReply<PickFolderResult>> => {
    assertTrusted(event);
    return reply(async () => {
      const parsed = PickFolderRequest.safeParse(request ?? {});
      if (!parsed.success) {
        const contentsIssue = parsed.error.issues.find((i) => i.path[0] === 'contents');
        throw new BerthError(
          'invalid_request',
          contentsIssue
            ? `Which files the copy holds is not valid: ${contentsIssue.path.slice(1).join('.') || 'contents'}: ${contentsIssue.message}.`
            : 'Choosing a folder needs the chat it is for.',
        );
      }
      const win = liveWindow();
      if (!win) throw new BerthError('internal', 'Berth has no window to show the folder dialog in.');
      const choice = await dialog.showOpenDialog(win, PICK_FOLDER_DIALOG);
      const folder = choice.canceled ? undefined : choice.filePaths[0];
      if (!folder) return { attached: null, notice: null, confirm: null };
      const { chatId, mode, contents } = parsed.data;
      // What the page asks about before a folder chosen in its own browser (workspace.attachPreview),
      // asked here now that the folder is known: a git history too large for a warm sandbox's slot, say.
      // It fails only as the attach would (no such chat): that error, said once.
      const preview = (await client.call('workspace.attachPreview', { chatId, action: 'attach', mode, path: folder })) as Response<'workspace.attachPreview'>;
      const c: FolderChoice = {
        sender: event.sender.id, chatId, path: folder, mode, contents, expires: now() + FOLDER_CHOICE_TTL_MS, confirm: preview.token,
      };
      if (!preview.needsConfirmation) return attach(c);
      forgetExpired();
      // One waiting choice per chat: choosing again replaces the last.
      for (const [token, w] of choices) if (w.chatId === chatId) choices.delete(token);
      while (choices.size >= MAX_WAITING_CHOICES) choices.delete(choices.keys().next().value as string);
      const token = randomUUID();
      choices.set(token, c);
      return { attached: null, notice: null, confirm: { token, reason: preview.reason, running: preview.running } };
    });
  });

  handle(CONFIRM_FOLDER_CHANNEL, async (event, request): Promise<IpcReply<PickFolderResult>> => {
    assertTrusted(event);
    return reply(async () => {
      const parsed = ConfirmFolderRequest.safeParse(request ?? {});
      if (!parsed.success) throw new BerthError('invalid_request', 'Answering a folder choice needs its token and whether to attach.');
      forgetExpired();
      const { token, attach: yes } = parsed.data;
      const c = choices.get(token);
      // Good once, and only for the window it was given to.
      if (c?.sender === event.sender.id) choices.delete(token);
      if (!c || c.sender !== event.sender.id) {
        if (!yes) return { attached: null, notice: null, confirm: null };
        throw new BerthError('invalid_request', `The folder you chose was not attached: its choice expired (after ${FOLDER_CHOICE_TTL_MS / 60_000} minutes) or was already answered.`, {
          hint: 'Choose the folder again.',
        });
      }
      return yes ? attach(c) : { attached: null, notice: null, confirm: null };
    });
  });

  // The page's URL is checked on every event (terminal output, streamed tokens): its verdict is
  // kept until the URL changes.
  let checkedUrl: string | null = null;
  let trusted = false;
  const isTrustedPage = (url: string) => {
    if (url !== checkedUrl) {
      checkedUrl = url;
      trusted = isTrustedSender(url);
    }
    return trusted;
  };
  const subscription = core.onEvent((event, payload) => {
    const win = liveWindow();
    // Never hand events to a page that is not the app's own.
    if (!win || !isTrustedPage(win.webContents.getURL())) return;
    const message: EventMessage = { event, payload };
    win.webContents.send(EVENT_CHANNEL, message);
  });

  let disposed = false;
  return {
    dispose() {
      if (disposed) return;
      disposed = true;
      subscription.dispose();
      client.dispose();
      choices.clear();
      for (const channel of channels) ipcMain.removeHandler(channel);
    },
  };
}
