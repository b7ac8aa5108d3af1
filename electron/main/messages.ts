/**
 * The main process's user-facing sentences about a chat's folders (attaching, detaching, what
 * that does to the sandbox), in one place so they read alike and a service never holds its own
 * wording. Counted with base/ by the layering table: every part of main may use them.
 */
import type { AttachMode } from '../../shared/contract.js';
import { BerthError, type ErrorCode } from '../../shared/errors.js';

export const FOLDER_MESSAGES = {
  /** A change of folders replaces the chat's running container at its next command. */
  recreateNotice:
    "The chat's sandbox is recreated the next time it runs a command, to apply the change (Docker cannot change a running container's mounts). The sandbox home and attached folders are kept; other container state, such as installed packages and running processes, is reset.",

  /** What a chat that took a warm sandbox is told when a change of folders makes it wait for a new one. */
  leavesWarmNotice(why: string): string {
    const reason = why.charAt(0).toUpperCase() + why.slice(1);
    return `${reason}, so this chat waits for a new sandbox at its next command instead of the ready one it started with (Docker cannot add a folder to a running container; only Review-mode copies, while all its folders are, appear in it as they are). The sandbox home is kept; other container state, such as installed packages and running processes, is reset.`;
  },

  /**
   * Why a chat that took a warm sandbox leaves it for one made with its folders. `history`: why a
   * Review-mode git copy borrows the user's history through a mount, if it does.
   */
  freshSandboxReason(mode: AttachMode, history: string | null): string {
    const what = mode === 'readwrite' ? 'a read-write folder' : mode === 'readonly' ? 'a read-only folder' : (history ?? 'a second folder');
    return `${what} must be mounted when Docker creates the container`;
  },

  cannotAddToRunning: 'Docker cannot add a folder to a running container',
  attachRecreates: (reason: string) => `Attaching recreates the chat's sandbox: ${reason}.`,
  detachRecreates: (hostPath: string) => `Detaching "${hostPath}" recreates the chat's sandbox: Docker cannot remove a folder from a running container.`,

  copyMissing: (hostPath: string) => ({
    message: `The chat's copy of "${hostPath}" is missing, so Berth will not mount the folder.`,
    hint: 'Detach the folder and attach it again in Review mode.',
  }),
  sharedContainer: (profile: string) => ({
    message: `The profile "${profile}" shares one container among all its chats, so a folder attached to one chat would be visible to every chat.`,
    hint: 'Switch the profile to one container per chat, give this chat its own image, or add the folder as a profile mount.',
  }),
  overlaps: (path: string, problem: string) => ({
    message: `Berth will not share "${path}" with this chat: ${problem}`,
    hint: 'Pick a folder that does not overlap another chat’s writable folder.',
  }),
  unappliedChanges: (hostPath: string, what: string) => ({
    message: `The chat's copy of "${hostPath}" has changes that are not applied; Berth will not ${what} and lose them.`,
    hint: 'Apply or discard the changes in the Changes panel first.',
  }),
  notAttached: (path: string) => `"${path}" is not attached to this chat.`,
  /** An attach or detach that stops what runs came without the user's yes (`summary`: policy/attachConfirmation's sentence). */
  confirmationNeeded: (action: 'attach' | 'detach', summary: string) => ({
    message: `The ${action} was not done, because it needs your confirmation first: ${summary}`,
    hint: `Confirm the ${action} when Berth asks (a client asks workspace.attachPreview and passes its token as confirm).`,
  }),
  confirmationRefused: (action: 'attach' | 'detach') => ({
    message: `The ${action} was not done: its confirmation was already used, expired or was given for another change.`,
    hint: `Try the ${action} again; Berth asks again if it still stops what runs.`,
  }),
} as const;

/** A sentence with its next step (the entries above that have one), as the error main answers with. */
export function refusal(code: ErrorCode, said: { message: string; hint: string }): BerthError {
  return new BerthError(code, said.message, { hint: said.hint });
}

/** Lines main writes into a terminal (terminal/). */
export const TERMINAL_MESSAGES = {
  /** The first terminal of a chat whose terminals were open when Berth last stopped: their shells ended with it. */
  berthRestarted: 'Berth was restarted: this chat’s earlier terminals ended with it, and their output is not kept; this is a new shell',
} as const;
