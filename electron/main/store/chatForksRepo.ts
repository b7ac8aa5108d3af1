/** Fork lineage (migration "chat_forks"): which chat each fork came from, and whose attempt it is. */
import type { Db } from './database.js';

export interface ChatFork {
  chatId: string;
  forkedFrom: string;
  /** The first chat of the attempts at one message ("Try again"); null for a plain fork. */
  attemptOf: string | null;
}

export class ChatForksRepo {
  constructor(private readonly db: Db) {}
  record(f: ChatFork): void {
    this.db.prepare('INSERT OR REPLACE INTO chat_forks (chat_id, forked_from, attempt_of) VALUES (?, ?, ?)').run(f.chatId, f.forkedFrom, f.attemptOf);
  }
  get(chatId: string): ChatFork | undefined {
    const r = this.db.prepare('SELECT chat_id, forked_from, attempt_of FROM chat_forks WHERE chat_id = ?').get(chatId) as
      | { chat_id: string; forked_from: string; attempt_of: string | null }
      | undefined;
    return r && { chatId: r.chat_id, forkedFrom: r.forked_from, attemptOf: r.attempt_of };
  }
}
