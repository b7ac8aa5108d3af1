/**
 * One-use tokens that confirm an attach or detach main judged beforehand
 * (`workspace.attachPreview`): a token is good once, for the client it was given to, for the
 * same chat, action, folder and mode, and for FOLDER_CHOICE_TTL_MS, long enough to read the stop
 * dialog, not to come back to it another day.
 */
import { randomUUID } from 'node:crypto';
import type { AttachMode } from '../../../shared/contract.js';
import { FOLDER_CHOICE_TTL_MS } from '../../../shared/folderPicker.js';
import type { Clock } from '../base/clock.js';
import { FOLDER_MESSAGES, refusal } from '../messages.js';

/** What a token confirms. `path` is the folder as the client named it (none for an attach judged before its folder is chosen). */
export interface ConfirmedChange {
  chatId: string;
  action: 'attach' | 'detach';
  path?: string | undefined;
  mode?: AttachMode | undefined;
}

/** At most this many tokens wait (what a client that never answers can pile up). */
const MAX_WAITING = 64;

function sameChange(a: ConfirmedChange, b: ConfirmedChange): boolean {
  // An attach judged before its folder was chosen is confirmed for whichever folder is then chosen in that mode.
  const pathFits = a.path === undefined ? b.action === 'attach' : a.path === b.path;
  return a.chatId === b.chatId && a.action === b.action && pathFits && (a.action === 'detach' || (a.mode ?? 'review') === (b.mode ?? 'review'));
}

export class AttachConfirmations {
  private readonly waiting = new Map<string, { client: string | null; change: ConfirmedChange; expires: number }>();

  constructor(private readonly clock: Clock) {}

  issue(client: string | null, change: ConfirmedChange): string {
    const now = this.clock.now();
    for (const [token, w] of this.waiting) if (w.expires <= now) this.waiting.delete(token);
    while (this.waiting.size >= MAX_WAITING) this.waiting.delete(this.waiting.keys().next().value as string);
    const token = randomUUID();
    this.waiting.set(token, { client, change, expires: now + FOLDER_CHOICE_TTL_MS });
    return token;
  }

  /** Uses the token up, or refuses: unknown, already used, expired, another client's, or for another change. */
  redeem(client: string | null, token: string, change: ConfirmedChange): void {
    const w = this.waiting.get(token);
    if (w && w.client === client) this.waiting.delete(token);
    if (!w || w.client !== client || w.expires <= this.clock.now() || !sameChange(w.change, change)) {
      throw refusal('invalid_request', FOLDER_MESSAGES.confirmationRefused(change.action));
    }
  }
}
