/**
 * Berth writing into a chat's Review copies (Undo this turn, Restore, Discard, Refresh) while its
 * sandbox runs.
 *
 * On this computer the container mounts the copy's own folder (review/reviewCopy `work/`, or the
 * slot folder it fills), and Berth changes the files inside that folder: the folder itself is
 * never replaced, so it keeps the device and inode the bind was made with (policy/mountProof)
 * and the container shows the new content at once. Nothing restarts: the terminals, their
 * shells' variables and the servers started in them keep running. Nothing the running sandbox
 * does can turn the write elsewhere: git checks out into Berth's own shadow of the copy, and
 * each changed path is written into the copy with review/linkSafe (every component opened
 * with O_NOFOLLOW relative to its parent), owned by the sandbox user (reviewRace.test.ts swaps a
 * folder for a link to a host folder throughout Restore and Discard).
 *
 * On a remote engine the container sees volumes there, filled from the copies here when it
 * starts (sandbox/remoteSandbox): those cannot change in place from here, so the sandbox and its
 * copy volumes go, and its terminals start again in place in the new one, saying why.
 */
import { toDisposable } from '../base/disposables.js';
import type { Disposable, MainEvents } from '../events.js';
import type { SandboxService } from '../sandbox/sandboxService.js';
import type { TerminalService } from './terminalService.js';

export const REMOTE_REWRITE_NOTE =
  'The chat’s copy was changed from outside (undo, restore, discard or refresh) and its sandbox runs on a remote engine, which holds its own copy: the sandbox was started again with the new one, and this terminal with it.';

/**
 * Follows review/'s writes into a chat's copies (it emits `copies.willRewrite`, waits, writes,
 * then emits `copies.rewritten`): for a remote sandbox, its terminals let go of it, it stops and
 * its copy volumes go before the write, and the terminals start again after it, done or failed.
 */
export function followCopyRewrites(mainEvents: MainEvents, sandbox: SandboxService, terminals: TerminalService): Disposable {
  /** Per chat under a rewrite: how its terminals start again. */
  const letGo = new Map<string, (note: string) => void>();
  const before = mainEvents.on('copies.willRewrite', async ({ chatId }) => {
    if (!sandbox.runsRemotely(chatId)) return;
    letGo.set(chatId, terminals.letGo(chatId));
    await sandbox.stop(chatId);
    await sandbox.dropRemoteCopies(chatId);
  });
  const after = mainEvents.on('copies.rewritten', ({ chatId }) => {
    const startAgain = letGo.get(chatId);
    letGo.delete(chatId);
    startAgain?.(REMOTE_REWRITE_NOTE);
  });
  return toDisposable(() => {
    before.dispose();
    after.dispose();
  });
}
