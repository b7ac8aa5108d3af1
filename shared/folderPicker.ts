/**
 * The desktop folder picker's two messages (docs/transport.md), checked by main like every
 * contract call. In the desktop app the page never names a host path: main shows the native
 * dialog, and when attaching the chosen folder would stop what runs in the chat's terminals
 * (workspace.attachPreview), it keeps the path behind a token and answers the page with why and
 * what runs, so the page can ask "Stop what runs in the terminals?" first; a second message naming the token
 * attaches or cancels. Tokens belong to the window they were given to, are good once, and
 * expire after FOLDER_CHOICE_TTL_MS.
 */
import { z } from 'zod';
import { AttachmentView, BusyTerminal, ChatId } from './contract.js';
import { AttachMode, CopyContents, attachModeOf } from './review.js';

/** How long a chosen folder waits for the page's answer: long enough to read the stop dialog, not to come back to it another day. */
export const FOLDER_CHOICE_TTL_MS = 2 * 60_000;

/** `berth:pickFolder`: which chat, and how; `mode` wins over the older `readOnly`. */
export const PickFolderRequest = z
  .object({ chatId: ChatId, readOnly: z.boolean().default(false), mode: AttachMode.optional(), contents: CopyContents.optional() })
  .strict()
  // Translated once: main holds a `mode` only.
  .transform(({ readOnly, ...r }) => ({ ...r, mode: attachModeOf(r.mode, readOnly) }));
export type PickFolderRequest = z.input<typeof PickFolderRequest>;

/** A chosen folder waiting for the page's answer: main's random id for it (crypto.randomUUID). */
export const FolderChoiceToken = z.string().uuid();

/** `berth:confirmFolder`: attach the folder chosen under this token, or let it go. */
export const ConfirmFolderRequest = z.object({ token: FolderChoiceToken, attach: z.boolean() }).strict();
export type ConfirmFolderRequest = z.input<typeof ConfirmFolderRequest>;

/** What both answer (inside an IpcReply). */
export const PickFolderResult = z.object({
  /** The folder attached, or null: the user cancelled, or the page is asked first (`confirm`). */
  attached: AttachmentView.nullable(),
  /** Something the user should know, e.g. the sandbox restarts to mount the folder. */
  notice: z.string().nullable(),
  /**
   * Attaching replaces the chat's running container and stops what runs in its terminals
   * (`running`): the page asks, then answers with this token; `reason` is main's word on why.
   */
  confirm: z.object({ token: FolderChoiceToken, reason: z.string().nullable(), running: z.array(BusyTerminal) }).nullable(),
});
export type PickFolderResult = z.infer<typeof PickFolderResult>;
