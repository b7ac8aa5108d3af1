/**
 * The wire protocol between the preload bridge and main, written once for both sides. Pure
 * data: no Electron, no Node, so the preload bundle can include it.
 *
 * Channels (all `ipcMain.handle` / `ipcRenderer.invoke` except the event channel):
 * - `berth:call` `{ method, params }` → `IpcReply`: one handler per contract method, looked up
 *   by name in main (never a channel name built from renderer input);
 * - `berth:pickFolder` `{ chatId, readOnly, mode?, contents? }` → `IpcReply<PickFolderResult>`:
 *   main checks the request (contract schemas), shows the native folder dialog and attaches what
 *   the user chose;
 * - `berth:event` (main → renderer, `webContents.send`) `{ event, payload }`: core events.
 *
 * Failures the user should see come back as `{ ok: false, error }` replies, never as thrown
 * IPC errors (Electron reduces those to a prefixed message). Only a refused sender throws.
 */
import type { AttachmentView, CopyContentsInput } from '../../../shared/contract.js';
import type { ErrorPayload } from '../../../shared/errors.js';

export const CALL_CHANNEL = 'berth:call';
export const PICK_FOLDER_CHANNEL = 'berth:pickFolder';
export const EVENT_CHANNEL = 'berth:event';

export interface PickFolderRequest {
  chatId: string;
  readOnly: boolean;
  /** review, readwrite or readonly; wins over readOnly when given. */
  mode?: 'review' | 'readwrite' | 'readonly';
  /** What a Review-mode copy holds (shared/review.ts CopyContents); main validates it. */
  contents?: CopyContentsInput;
}

export interface PickFolderResult {
  /** The folder attached, or null when the user cancelled the dialog. */
  attached: AttachmentView | null;
  /** Something the user should know, e.g. the sandbox restarts to mount the folder. */
  notice: string | null;
}

export type IpcReply<T = unknown> = { ok: true; result: T } | { ok: false; error: ErrorPayload };

export interface EventMessage {
  event: string;
  payload: unknown;
}
