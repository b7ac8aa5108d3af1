/**
 * What the renderer may ask of main, and hear from it. Components and stores depend on this
 * interface only; whether it runs over the preload bridge (desktop) or JSON-RPC over WebSocket
 * (browser host) is decided once, in ./index.ts.
 */
import type { AttachMode, CopyContentsInput, EventName, EventPayload, MethodName, Request, Response } from '../../shared/contract';

export type { EventName, EventPayload, MethodName, Request, Response };

/** How a folder is to be attached: its mode and, for Review, what the chat's copy holds. */
export interface AttachChoice {
  mode: AttachMode;
  contents?: CopyContentsInput;
}

/**
 * 'confirm': the desktop chose a folder whose attach would replace the chat's running container
 * and stop what runs in its terminals (`running`, as main judged: workspace.attachPreview);
 * nothing is attached until the page answers `confirmFolder` with the token, after asking the
 * user. `reason` is main's word on why.
 */
export type PickFolderResult = Picked | 'cancelled' | 'browse' | { confirm: { token: string; reason: string | null; running: Response<'terminal.busy'>['terminals'] } };

/** The desktop attached the folder: with main's notice when there is one (e.g. the sandbox is recreated, and why). */
export type Picked = 'picked' | { notice: string };

export interface BerthApi {
  call<M extends MethodName>(method: M, params: Request<M>): Promise<Response<M>>;
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
  /**
   * Lets the user choose a folder for a chat and attaches it. The desktop opens the native dialog
   * and attaches in main ('picked' or 'cancelled'); the browser host answers 'browse', and the UI
   * shows its own folder browser (`workspace.browse`, then `workspace.attach`).
   */
  pickFolder(chatId: string, choice: AttachChoice): Promise<PickFolderResult>;
  /** Attaches the folder pickFolder chose under `token`, or lets it go (desktop only). */
  confirmFolder(token: string, attach: boolean): Promise<Picked | 'cancelled'>;
}

/** The link to main: always 'open' over the preload bridge; the WebSocket can drop and come back. */
/**
 * `expired`: the host refused this page's access token (it was restarted and has a new one);
 * retrying cannot help, only the new URL it printed can.
 */
export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'closed' | 'expired';

export interface ConnectionInfo {
  transport: 'ipc' | 'ws';
  state: ConnectionState;
  /** Counts successful (re)connections; a change after the first means events may have been missed. */
  epoch: number;
  /** When the next reconnect attempt is due (ms since the epoch), while reconnecting. */
  retryAt: number | null;
}

export interface ConnectionSource {
  get(): ConnectionInfo;
  subscribe(listener: (info: ConnectionInfo) => void): () => void;
}
