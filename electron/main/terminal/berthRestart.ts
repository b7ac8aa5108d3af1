/**
 * Which chats had terminals running when Berth last stopped. A terminal's shell is an exec in
 * the chat's container, joined to Berth's connection to the engine: it ends when Berth does
 * (quit, crash or kill), and Berth keeps no output across runs. The user's next terminal in such
 * a chat says so once (messages.ts TERMINAL_MESSAGES.berthRestarted), instead of an empty screen
 * that looks like nothing was ever there.
 *
 * Kept in the settings table as it changes, not written at quit: a Berth that was killed never
 * gets to write anything then.
 */
import { TERMINAL_MESSAGES } from '../messages.js';

/** Where the chat ids are kept between runs (a settings row). */
export interface RestartMarkStore {
  load(): string | undefined;
  save(value: string): void;
}

export const RESTART_MARK_KEY = 'terminal.open_chats';

export class BerthRestartMarks {
  /** Chats whose terminals the last stop ended, not yet told (their next terminal is). */
  private readonly pending: Set<string>;
  /** Chats with a running terminal in this run. */
  private readonly running = new Set<string>();
  /** Berth is quitting: the terminals it closes now end with the restart, so they stay marked. */
  private frozen = false;

  constructor(private readonly store: RestartMarkStore) {
    this.pending = new Set(parse(store.load()));
  }

  /** A terminal of the chat started: the line it shows first, or null (said once per chat and stop). */
  opened(chatId: string): string | null {
    const told = this.pending.delete(chatId);
    const added = !this.running.has(chatId);
    this.running.add(chatId);
    if (told || added) this.save();
    return told ? TERMINAL_MESSAGES.berthRestarted : null;
  }

  /** The chat has no running terminal any more (closed, exited, its chat deleted). */
  ended(chatId: string): void {
    if (this.frozen || !this.running.delete(chatId)) return;
    this.save();
  }

  /** The chat is deleted: nothing to tell. */
  forget(chatId: string): void {
    if (this.frozen) return;
    this.pending.delete(chatId);
    this.running.delete(chatId);
    this.save();
  }

  /** Berth quits: what is marked now is what the next run tells. */
  freeze(): void {
    this.frozen = true;
  }

  private save(): void {
    try {
      this.store.save(JSON.stringify([...new Set([...this.pending, ...this.running])]));
    } catch {
      // The line is a courtesy: a store that cannot be written (closing) costs the user nothing else.
    }
  }
}

function parse(value: string | undefined): string[] {
  if (value === undefined) return [];
  try {
    const list: unknown = JSON.parse(value);
    return Array.isArray(list) ? list.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}
