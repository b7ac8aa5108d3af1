/** The agent's tables: conversation messages and encrypted provider keys. */
import type { AgentChatOptions, AgentMessage, AgentNotice, AgentToolCall, TokenUsage } from '../../../shared/contract.js';
import type { Db } from './database.js';

/** A message as stored: what the user sees, plus what each tool call told the model. */
export interface StoredAgentMessage {
  message: AgentMessage;
  /** Tool call id → the text the model received as that call's result. */
  results: Record<string, string>;
}

interface MessageRow {
  id: string; chat_id: string; task_id: string | null; parent_call_id: string | null; role: AgentMessage['role'];
  content: string; tool_calls: string; results: string; created_at: number; notice: string | null; usage: string | null;
}

function fromRow(r: MessageRow): StoredAgentMessage {
  return {
    message: {
      id: r.id, chatId: r.chat_id, taskId: r.task_id, parentCallId: r.parent_call_id, role: r.role, content: r.content,
      toolCalls: JSON.parse(r.tool_calls) as AgentToolCall[], done: true, createdAt: r.created_at,
      ...(r.notice === null ? {} : { notice: JSON.parse(r.notice) as AgentNotice }),
      ...(r.usage === null ? {} : { usage: JSON.parse(r.usage) as TokenUsage }),
    },
    results: JSON.parse(r.results) as Record<string, string>,
  };
}

export class AgentMessagesRepo {
  constructor(private readonly db: Db) {}

  forChat(chatId: string): StoredAgentMessage[] {
    return (this.db.prepare('SELECT * FROM agent_messages WHERE chat_id = ? ORDER BY seq').all(chatId) as MessageRow[]).map(fromRow);
  }

  /** Whether the user has written in the chat yet. */
  hasUserMessage(chatId: string): boolean {
    return this.db.prepare("SELECT 1 FROM agent_messages WHERE chat_id = ? AND role = 'user' LIMIT 1").get(chatId) !== undefined;
  }

  /** When the user last wrote in each chat that has messages (its activity, for the chat list's order). */
  lastUserMessageAt(): Map<string, number> {
    const rows = this.db.prepare("SELECT chat_id, MAX(created_at) AS at FROM agent_messages WHERE role = 'user' GROUP BY chat_id").all() as {
      chat_id: string;
      at: number;
    }[];
    return new Map(rows.map((r) => [r.chat_id, r.at]));
  }

  /** When the user last wrote in this one chat (one chat's view needs no scan of every chat). */
  lastUserMessageOf(chatId: string): number | undefined {
    const row = this.db.prepare("SELECT MAX(created_at) AS at FROM agent_messages WHERE chat_id = ? AND role = 'user'").get(chatId) as { at: number | null };
    return row.at ?? undefined;
  }

  /**
   * Adds the message, or replaces it (same id) keeping its place in the conversation. Without
   * `results`, a replaced message keeps the results it has (a new one starts with none).
   */
  save(x: AgentMessage, results?: Record<string, string>): void {
    const json = results === undefined ? null : JSON.stringify(results);
    this.db
      .prepare(
        `INSERT INTO agent_messages (id, chat_id, seq, task_id, parent_call_id, role, content, tool_calls, results, created_at, notice, usage)
         VALUES (?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM agent_messages WHERE chat_id = ?), ?, ?, ?, ?, ?, COALESCE(?, '{}'), ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET content = excluded.content, tool_calls = excluded.tool_calls, notice = excluded.notice, usage = excluded.usage,
           results = CASE WHEN ? IS NULL THEN agent_messages.results ELSE excluded.results END`,
      )
      .run(
        x.id, x.chatId, x.chatId, x.taskId, x.parentCallId, x.role, x.content, JSON.stringify(x.toolCalls), json, x.createdAt,
        x.notice === undefined ? null : JSON.stringify(x.notice), x.usage === undefined ? null : JSON.stringify(x.usage), json,
      );
  }
}

const DEFAULT_CHAT_OPTIONS: AgentChatOptions = { instructions: true, model: null };

/** A chat's own agent options; a chat without a row has the defaults. */
export class AgentChatOptionsRepo {
  constructor(private readonly db: Db) {}
  get(chatId: string): AgentChatOptions {
    const r = this.db.prepare('SELECT instructions, model FROM agent_chat_options WHERE chat_id = ?').get(chatId) as { instructions: number; model: string | null } | undefined;
    return r ? { instructions: r.instructions !== 0, model: r.model } : { ...DEFAULT_CHAT_OPTIONS };
  }
  set(chatId: string, options: AgentChatOptions): void {
    this.db
      .prepare(
        `INSERT INTO agent_chat_options (chat_id, instructions, model) VALUES (?, ?, ?)
         ON CONFLICT (chat_id) DO UPDATE SET instructions = excluded.instructions, model = excluded.model`,
      )
      .run(chatId, options.instructions ? 1 : 0, options.model);
  }
}

export interface ProviderKeyRecord {
  profile: string;
  origin: string;
  ciphertext: Buffer;
}

export class ProviderKeysRepo {
  constructor(private readonly db: Db) {}
  get(profile: string): ProviderKeyRecord | undefined {
    const r = this.db.prepare('SELECT profile, origin, ciphertext FROM provider_keys WHERE profile = ?').get(profile) as
      | { profile: string; origin: string; ciphertext: Buffer }
      | undefined;
    return r && { profile: r.profile, origin: r.origin, ciphertext: r.ciphertext };
  }
  set(record: ProviderKeyRecord, now: number): void {
    this.db
      .prepare(
        `INSERT INTO provider_keys (profile, origin, ciphertext, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (profile) DO UPDATE SET origin = excluded.origin, ciphertext = excluded.ciphertext, updated_at = excluded.updated_at`,
      )
      .run(record.profile, record.origin, record.ciphertext, now);
  }
  delete(profile: string): boolean {
    return this.db.prepare('DELETE FROM provider_keys WHERE profile = ?').run(profile).changes > 0;
  }
}
