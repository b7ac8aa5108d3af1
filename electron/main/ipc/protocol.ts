/**
 * The wire protocol between the preload bridge and main, written once for both sides. Pure
 * data: no Electron, no Node, so the preload bundle can include it.
 *
 * Channels (all `ipcMain.handle` / `ipcRenderer.invoke` except the event channel):
 * - `berth:call` `{ method, params }` → `IpcReply`: one handler per contract method, looked up
 *   by name in main (never a channel name built from renderer input);
 * - `berth:pickFolder` `{ chatId, readOnly, mode?, contents? }` → `IpcReply<PickFolderResult>`:
 *   main checks the request (shared/folderPicker.ts), shows the native folder dialog and
 *   attaches what the user chose; or, when that would replace the chat's running container,
 *   keeps the folder behind a one-use token and answers `confirm: { token, reason }`;
 * - `berth:confirmFolder` `{ token, attach }` → `IpcReply<PickFolderResult>`: attaches the folder
 *   chosen under that token (same window, within FOLDER_CHOICE_TTL_MS, once), or lets it go;
 * - `berth:event` (main → renderer, `webContents.send`) `{ event, payload }`: core events.
 *
 * Failures the user should see come back as `{ ok: false, error }` replies, never as thrown
 * IPC errors (Electron reduces those to a prefixed message). Only a refused sender throws.
 */
import type { ErrorPayload } from '../../../shared/errors.js';
import type { PickFolderRequest, PickFolderResult, ConfirmFolderRequest } from '../../../shared/folderPicker.js';

export type { ConfirmFolderRequest, PickFolderRequest, PickFolderResult };

export const CALL_CHANNEL = 'berth:call';
export const PICK_FOLDER_CHANNEL = 'berth:pickFolder';
export const CONFIRM_FOLDER_CHANNEL = 'berth:confirmFolder';
export const EVENT_CHANNEL = 'berth:event';

export type IpcReply<T = unknown> = { ok: true; result: T } | { ok: false; error: ErrorPayload };

export interface EventMessage {
  event: string;
  payload: unknown;
}
