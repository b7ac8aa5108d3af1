/** Review comments (migration "review_comments"), as review/reviewComments reads and writes them. */
import type { Db } from './database.js';

export interface StoredComment {
  id: string;
  chatId: string;
  hostPath: string;
  path: string;
  side: 'new' | 'old';
  startLine: number;
  endLine: number;
  quote: string[];
  body: string;
  state: 'draft' | 'sent' | 'resolved';
  createdAt: number;
  sentAt: number | null;
}

interface Row {
  id: string;
  chat_id: string;
  host_path: string;
  path: string;
  side: 'new' | 'old';
  start_line: number;
  end_line: number;
  quote: string;
  body: string;
  state: StoredComment['state'];
  created_at: number;
  sent_at: number | null;
}

const fromRow = (r: Row): StoredComment => ({
  id: r.id, chatId: r.chat_id, hostPath: r.host_path, path: r.path, side: r.side, startLine: r.start_line, endLine: r.end_line,
  quote: JSON.parse(r.quote) as string[], body: r.body, state: r.state, createdAt: r.created_at, sentAt: r.sent_at,
});

export class ReviewCommentsRepo {
  constructor(private readonly db: Db) {}
  /** The chat's comments that are not resolved, oldest first. */
  open(chatId: string): StoredComment[] {
    return (this.db.prepare("SELECT * FROM review_comments WHERE chat_id = ? AND state != 'resolved' ORDER BY created_at, rowid").all(chatId) as Row[]).map(fromRow);
  }
  get(chatId: string, id: string): StoredComment | null {
    const row = this.db.prepare('SELECT * FROM review_comments WHERE chat_id = ? AND id = ?').get(chatId, id) as Row | undefined;
    return row ? fromRow(row) : null;
  }
  insert(c: StoredComment): void {
    this.db
      .prepare('INSERT INTO review_comments (id, chat_id, host_path, path, side, start_line, end_line, quote, body, state, created_at, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(c.id, c.chatId, c.hostPath, c.path, c.side, c.startLine, c.endLine, JSON.stringify(c.quote), c.body, c.state, c.createdAt, c.sentAt);
  }
  setState(chatId: string, ids: readonly string[], state: StoredComment['state'], sentAt: number | null): void {
    const stmt = this.db.prepare('UPDATE review_comments SET state = ?, sent_at = COALESCE(?, sent_at) WHERE chat_id = ? AND id = ?');
    this.db.transaction(() => {
      for (const id of ids) stmt.run(state, sentAt, chatId, id);
    })();
  }
  delete(chatId: string, id: string): void {
    this.db.prepare('DELETE FROM review_comments WHERE chat_id = ? AND id = ?').run(chatId, id);
  }
}
