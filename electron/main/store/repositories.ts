/** One small repository per table; plain rows in, plain records out. */
import { ProfileSettings, type AttachMode } from '../../../shared/contract.js';
import { ChatForksRepo } from './chatForksRepo.js';
import { ReviewCommentsRepo } from './reviewCommentsRepo.js';
import type { CwdRecord } from '../policy/commandCwd.js';
import type { TaskOverride } from '../policy/containerKey.js';
import type { Provenance } from '../policy/mountPlan.js';
import { AgentChatOptionsRepo, AgentMessagesRepo, ProviderKeysRepo } from './agentRepositories.js';
import type { Db } from './database.js';

export interface ProfileRecord {
  name: string;
  settings: ProfileSettings;
  createdAt: number;
}
export interface ChatRecord {
  id: string;
  profile: string;
  title: string;
  image: string | null;
  createdAt: number;
}
export interface AttachmentRecord {
  chatId: string;
  hostPath: string;
  /** The mount itself is read-only ('readonly'); a 'review' attachment mounts the chat's own copy. */
  readOnly: boolean;
  mode: AttachMode;
  provenance: Provenance;
  attachedAt: number;
}
export interface TaskRecord {
  qualifiedId: string;
  profile: string;
  chatId: string;
  rawId: string;
  parentId: string | null;
  override: TaskOverride | null;
}

/** Freezes a parsed value and everything in it: one object shared by every reader. */
function frozen<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) frozen(v);
  }
  return value;
}

/** Parsed profile settings by their stored text: a few profiles, each a few versions of its settings. */
const parsedSettings = new Map<string, ProfileSettings>();
const PARSED_SETTINGS_KEPT = 64;

/**
 * Settings saved by an older Berth lack newer fields: they read back with those fields' defaults.
 * Parsed once per stored text and shared, frozen (no reader changes them; a new version is a new
 * text): the parse took about 0.35 ms, and a Review operation reads its chat's profile two or
 * three times (bench:review --hunks-only, CPU profile).
 */
function storedSettings(json: string): ProfileSettings {
  let settings = parsedSettings.get(json);
  if (!settings) {
    settings = frozen(ProfileSettings.parse(JSON.parse(json)));
    if (parsedSettings.size >= PARSED_SETTINGS_KEPT) parsedSettings.delete(parsedSettings.keys().next().value!);
    parsedSettings.set(json, settings);
  }
  return settings;
}

export class ProfilesRepo {
  constructor(private readonly db: Db) {}
  list(): ProfileRecord[] {
    const rows = this.db.prepare('SELECT name, settings, created_at FROM profiles ORDER BY created_at, name').all() as {
      name: string; settings: string; created_at: number;
    }[];
    return rows.map((r) => ({ name: r.name, settings: storedSettings(r.settings), createdAt: r.created_at }));
  }
  get(name: string): ProfileRecord | undefined {
    const r = this.db.prepare('SELECT name, settings, created_at FROM profiles WHERE name = ?').get(name) as
      | { name: string; settings: string; created_at: number }
      | undefined;
    return r && { name: r.name, settings: storedSettings(r.settings), createdAt: r.created_at };
  }
  insert(record: ProfileRecord): void {
    this.db.prepare('INSERT INTO profiles (name, settings, created_at) VALUES (?, ?, ?)').run(
      record.name, JSON.stringify(record.settings), record.createdAt,
    );
  }
  updateSettings(name: string, settings: ProfileSettings): void {
    this.db.prepare('UPDATE profiles SET settings = ? WHERE name = ?').run(JSON.stringify(settings), name);
  }
  delete(name: string): void {
    this.db.prepare('DELETE FROM profiles WHERE name = ?').run(name);
  }
}

export class ChatsRepo {
  constructor(private readonly db: Db) {}
  private static map(r: { id: string; profile: string; title: string; image: string | null; created_at: number }): ChatRecord {
    return { id: r.id, profile: r.profile, title: r.title, image: r.image, createdAt: r.created_at };
  }
  list(profile?: string): ChatRecord[] {
    const rows = (profile === undefined
      ? this.db.prepare('SELECT * FROM chats ORDER BY created_at, id').all()
      : this.db.prepare('SELECT * FROM chats WHERE profile = ? ORDER BY created_at, id').all(profile)) as Parameters<typeof ChatsRepo.map>[0][];
    return rows.map(ChatsRepo.map);
  }
  get(id: string): ChatRecord | undefined {
    const r = this.db.prepare('SELECT * FROM chats WHERE id = ?').get(id) as Parameters<typeof ChatsRepo.map>[0] | undefined;
    return r && ChatsRepo.map(r);
  }
  insert(chat: ChatRecord): void {
    this.db.prepare('INSERT INTO chats (id, profile, title, image, created_at) VALUES (?, ?, ?, ?, ?)').run(
      chat.id, chat.profile, chat.title, chat.image, chat.createdAt,
    );
  }
  rename(id: string, title: string): void {
    this.db.prepare('UPDATE chats SET title = ? WHERE id = ?').run(title, id);
  }
  /** The chat's own image (a project environment's), or null for its profile's. */
  setImage(id: string, image: string | null): void {
    this.db.prepare('UPDATE chats SET image = ? WHERE id = ?').run(image, id);
  }
  delete(id: string): void {
    this.db.prepare('DELETE FROM chats WHERE id = ?').run(id);
  }
}

interface AttachmentRow { chat_id: string; host_path: string; read_only: number; mode: AttachMode; provenance: Provenance; attached_at: number }
const ATTACHMENT_COLUMNS = 'chat_id, host_path, read_only, mode, provenance, attached_at';

function toAttachment(r: AttachmentRow): AttachmentRecord {
  return { chatId: r.chat_id, hostPath: r.host_path, readOnly: r.read_only === 1, mode: r.mode, provenance: r.provenance, attachedAt: r.attached_at };
}

export class AttachmentsRepo {
  constructor(private readonly db: Db) {}
  forChat(chatId: string): AttachmentRecord[] {
    const rows = this.db.prepare(`SELECT ${ATTACHMENT_COLUMNS} FROM attachments WHERE chat_id = ? ORDER BY seq`).all(chatId) as AttachmentRow[];
    return rows.map(toAttachment);
  }
  all(): AttachmentRecord[] {
    const rows = this.db.prepare(`SELECT ${ATTACHMENT_COLUMNS} FROM attachments ORDER BY chat_id, seq`).all() as AttachmentRow[];
    return rows.map(toAttachment);
  }

  /** Adds the folder, or updates read-only and mode on an existing one; order of first attach is kept. */
  upsert(a: Omit<AttachmentRecord, 'mode'> & { mode?: AttachMode }): void {
    const mode: AttachMode = a.mode ?? (a.readOnly ? 'readonly' : 'readwrite');
    this.db
      .prepare(
        `INSERT INTO attachments (chat_id, host_path, read_only, mode, provenance, attached_at, seq)
         VALUES (?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM attachments WHERE chat_id = ?))
         ON CONFLICT (chat_id, host_path) DO UPDATE SET read_only = excluded.read_only, mode = excluded.mode`,
      )
      .run(a.chatId, a.hostPath, a.readOnly ? 1 : 0, mode, a.provenance, a.attachedAt, a.chatId);
  }
  remove(chatId: string, hostPath: string): boolean {
    return this.db.prepare('DELETE FROM attachments WHERE chat_id = ? AND host_path = ?').run(chatId, hostPath).changes > 0;
  }
}

export class TasksRepo {
  constructor(private readonly db: Db) {}
  get(qualifiedId: string): TaskRecord | undefined {
    const r = this.db.prepare('SELECT * FROM tasks WHERE qualified_id = ?').get(qualifiedId) as
      | { qualified_id: string; profile: string; chat_id: string; raw_id: string; parent_id: string | null; override: string | null }
      | undefined;
    return r && {
      qualifiedId: r.qualified_id, profile: r.profile, chatId: r.chat_id, rawId: r.raw_id, parentId: r.parent_id,
      override: r.override ? (JSON.parse(r.override) as TaskOverride) : null,
    };
  }
  upsert(t: TaskRecord): void {
    this.db
      .prepare(
        `INSERT INTO tasks (qualified_id, profile, chat_id, raw_id, parent_id, override) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (qualified_id) DO UPDATE SET parent_id = excluded.parent_id, override = excluded.override, chat_id = excluded.chat_id`,
      )
      .run(t.qualifiedId, t.profile, t.chatId, t.rawId, t.parentId, t.override ? JSON.stringify(t.override) : null);
  }
  deleteForChat(chatId: string): string[] {
    const ids = (this.db.prepare('SELECT qualified_id FROM tasks WHERE chat_id = ?').all(chatId) as { qualified_id: string }[]).map(
      (r) => r.qualified_id,
    );
    this.db.prepare('DELETE FROM tasks WHERE chat_id = ?').run(chatId);
    return ids;
  }
}

export class CwdRepo {
  constructor(private readonly db: Db) {}
  get(qualifiedId: string): CwdRecord | null {
    const r = this.db.prepare('SELECT path, location FROM cwd_records WHERE qualified_id = ?').get(qualifiedId) as
      | { path: string; location: 'container' | 'host' }
      | undefined;
    return r ? { path: r.path, location: r.location } : null;
  }
  set(qualifiedId: string, record: CwdRecord, now: number): void {
    this.db
      .prepare(
        `INSERT INTO cwd_records (qualified_id, path, location, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (qualified_id) DO UPDATE SET path = excluded.path, location = excluded.location, updated_at = excluded.updated_at`,
      )
      .run(qualifiedId, record.path, record.location, now);
  }
  clear(qualifiedId: string): void {
    this.db.prepare('DELETE FROM cwd_records WHERE qualified_id = ?').run(qualifiedId);
  }
}

export class SettingsRepo {
  constructor(private readonly db: Db) {}
  get(key: string): string | undefined {
    return (this.db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }
  set(key: string, value: string): void {
    this.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }
}

/** Chat ids reserved for warm sandboxes (sandbox/warmPool.ts); the table keeps the name it was made with, warm_slots. */
export class WarmReservationsRepo {
  constructor(private readonly db: Db) {}
  list(profile?: string): { chatId: string; profile: string }[] {
    const rows = (profile === undefined
      ? this.db.prepare('SELECT chat_id, profile FROM warm_slots ORDER BY created_at').all()
      : this.db.prepare('SELECT chat_id, profile FROM warm_slots WHERE profile = ? ORDER BY created_at').all(profile)) as { chat_id: string; profile: string }[];
    return rows.map((r) => ({ chatId: r.chat_id, profile: r.profile }));
  }
  has(chatId: string): boolean {
    return this.db.prepare('SELECT 1 FROM warm_slots WHERE chat_id = ?').get(chatId) !== undefined;
  }
  insert(chatId: string, profile: string, createdAt: number): void {
    this.db.prepare('INSERT INTO warm_slots (chat_id, profile, created_at) VALUES (?, ?, ?)').run(chatId, profile, createdAt);
  }
  /** True when the row was there (so this caller, and no other, took it). */
  delete(chatId: string): boolean {
    return this.db.prepare('DELETE FROM warm_slots WHERE chat_id = ?').run(chatId).changes > 0;
  }
  clear(): void {
    this.db.prepare('DELETE FROM warm_slots').run();
  }
}

export interface Store {
  db: Db;
  profiles: ProfilesRepo;
  chats: ChatsRepo;
  attachments: AttachmentsRepo;
  tasks: TasksRepo;
  cwd: CwdRepo;
  settings: SettingsRepo;
  agentMessages: AgentMessagesRepo;
  agentChatOptions: AgentChatOptionsRepo;
  providerKeys: ProviderKeysRepo;
  warmReservations: WarmReservationsRepo;
  reviewComments: ReviewCommentsRepo;
  chatForks: ChatForksRepo;
  /** Runs fn in one transaction: all of it lands, or none. */
  transaction<T>(fn: () => T): T;
  close(): void;
}

export function createStore(db: Db): Store {
  return {
    db,
    profiles: new ProfilesRepo(db),
    chats: new ChatsRepo(db),
    attachments: new AttachmentsRepo(db),
    tasks: new TasksRepo(db),
    cwd: new CwdRepo(db),
    settings: new SettingsRepo(db),
    agentMessages: new AgentMessagesRepo(db),
    agentChatOptions: new AgentChatOptionsRepo(db),
    providerKeys: new ProviderKeysRepo(db),
    warmReservations: new WarmReservationsRepo(db),
    reviewComments: new ReviewCommentsRepo(db),
    chatForks: new ChatForksRepo(db),
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),
    close: () => db.close(),
  };
}
