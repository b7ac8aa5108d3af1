/**
 * The renderer's only door to main (docs/transport.md): `call`, `on`, `pickFolder` and `confirmFolder`, nothing
 * else. Never hands out ipcRenderer, an IPC event or any Electron object; checks argument
 * types before anything crosses to main. A pure factory over an ipcRenderer-like object, so it
 * is tested under Node; index.ts exposes it with contextBridge.
 */
import { ATTACH_MODES, type AttachMode, type CopyContentsInput, type EventName, type EventPayload, type MethodName, type Request, type Response } from '../../shared/contract.js';
import type { ErrorCode, ErrorPayload } from '../../shared/errors.js';
import { CALL_CHANNEL, CONFIRM_FOLDER_CHANNEL, EVENT_CHANNEL, PICK_FOLDER_CHANNEL, type EventMessage, type IpcReply, type PickFolderResult } from '../main/ipc/protocol.js';

type IpcListener = (event: unknown, ...args: unknown[]) => void;

/** What the bridge uses of Electron's ipcRenderer. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: IpcListener): unknown;
  removeListener(channel: string, listener: IpcListener): unknown;
}

/**
 * What `call` and `pickFolder` reject with: a plain `{ name, code, message, hint }` object, not
 * an Error instance. contextBridge copies a rejected Error into the page as a new Error with
 * its message only (electron/electron#25596), which would lose `code` and `hint`; a plain
 * object crosses whole. Read `.message`, `.code` and `.hint` (renderer/api/errors.ts does).
 */
export interface BridgeError extends ErrorPayload {
  name: 'BerthError';
  code: ErrorCode;
}

/** `window.berth` in the renderer. */
export interface BerthBridge {
  call<M extends MethodName>(method: M, params?: Request<M>): Promise<Response<M>>;
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
  /**
   * `mode` (review, readwrite, readonly) wins over the older `readOnly` when given; `contents` is
   * what a Review-mode copy holds (ignored files, secret-looking files named to include), checked
   * by main against the contract's CopyContents. When attaching the chosen folder would replace
   * the chat's running container, nothing is attached yet: `confirm` carries a token and why.
   */
  pickFolder(chatId: string, readOnly?: boolean, mode?: AttachMode, contents?: CopyContentsInput): Promise<PickFolderResult>;
  /** Attaches the folder chosen under `token` (pickFolder's `confirm`), or lets it go: once, soon after. */
  confirmFolder(token: string, attach: boolean): Promise<PickFolderResult>;
}

const MAX_NAME = 128;
/** As the contract's ChatId (main checks it again). */
const MAX_CHAT_ID = 256;

function bridgeError(payload: ErrorPayload): BridgeError {
  const error: BridgeError = { name: 'BerthError', code: payload.code, message: payload.message };
  if (payload.hint !== undefined) error.hint = payload.hint;
  return error;
}

const invalid = (message: string) => bridgeError({ code: 'invalid_request', message });

async function unwrap<T>(sent: Promise<unknown>): Promise<T> {
  let reply: unknown;
  try {
    reply = await sent;
  } catch {
    // Main refused the sender, or has no handler: nothing the page can act on but retry.
    throw bridgeError({ code: 'internal', message: 'Berth could not reach its main process.', hint: 'Restart Berth.' });
  }
  const r = reply as IpcReply<T> | null;
  if (r && r.ok === true) return r.result;
  if (r && r.ok === false && r.error && typeof r.error.message === 'string') throw bridgeError(r.error);
  throw bridgeError({ code: 'internal', message: 'Berth received an answer it did not understand.' });
}

function isName(value: unknown, max = MAX_NAME): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}

export function createBridge(ipc: IpcRendererLike): BerthBridge {
  const call = async (method: unknown, params?: unknown): Promise<unknown> => {
    if (!isName(method)) throw invalid('A call needs a method name.');
    return unwrap(ipc.invoke(CALL_CHANNEL, { method, params: params ?? {} }));
  };

  const on = (event: unknown, listener: unknown): (() => void) => {
    // A programming error in the page: thrown synchronously as a TypeError (its message crosses).
    if (!isName(event)) throw new TypeError('berth.on needs an event name.');
    if (typeof listener !== 'function') throw new TypeError('berth.on needs a listener function.');
    // One ipcRenderer listener per subscription; the page never sees the IPC event.
    const forward: IpcListener = (_ipcEvent, message) => {
      const m = message as EventMessage | null;
      if (!m || m.event !== event) return;
      try {
        (listener as (payload: unknown) => void)(m.payload);
      } catch (error) {
        console.error(`A listener for ${event} failed:`, error);
      }
    };
    ipc.on(EVENT_CHANNEL, forward);
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      ipc.removeListener(EVENT_CHANNEL, forward);
    };
  };

  const pickFolder = async (chatId: unknown, readOnly?: unknown, mode?: unknown, contents?: unknown): Promise<PickFolderResult> => {
    if (!isName(chatId, MAX_CHAT_ID)) throw invalid('Choosing a folder needs the chat it is for.');
    if (readOnly !== undefined && typeof readOnly !== 'boolean') throw invalid('readOnly is true or false.');
    if (mode !== undefined && !(ATTACH_MODES as readonly unknown[]).includes(mode)) throw invalid(`mode is one of ${ATTACH_MODES.join(', ')}.`);
    // Only its shape here; what it may hold is main's to check (shared/review.ts CopyContents).
    if (contents !== undefined && (typeof contents !== 'object' || contents === null || Array.isArray(contents))) {
      throw invalid('contents is an object: { ignored, include }.');
    }
    const request: Record<string, unknown> = { chatId, readOnly: readOnly ?? false };
    if (mode !== undefined) request.mode = mode;
    if (contents !== undefined) request.contents = contents;
    return unwrap(ipc.invoke(PICK_FOLDER_CHANNEL, request));
  };

  const confirmFolder = async (token: unknown, attach: unknown): Promise<PickFolderResult> => {
    // Only types here (main checks the token is one it gave this window, unexpired, unused).
    if (!isName(token)) throw invalid('Answering a folder choice needs its token.');
    if (typeof attach !== 'boolean') throw invalid('attach is true or false.');
    return unwrap(ipc.invoke(CONFIRM_FOLDER_CHANNEL, { token, attach }));
  };

  return Object.freeze({ call, on, pickFolder, confirmFolder }) as BerthBridge;
}
