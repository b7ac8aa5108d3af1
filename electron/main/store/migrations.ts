/** Schema migrations, in order. Never edit a released one; append a new one. */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE profiles (
    name TEXT PRIMARY KEY,
    settings TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE chats (
    id TEXT PRIMARY KEY,
    profile TEXT NOT NULL REFERENCES profiles(name) ON DELETE CASCADE,
    title TEXT NOT NULL,
    image TEXT,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX chats_profile ON chats(profile);
  CREATE TABLE attachments (
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    host_path TEXT NOT NULL,
    read_only INTEGER NOT NULL,
    provenance TEXT NOT NULL CHECK (provenance IN ('session', 'process')),
    attached_at INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (chat_id, host_path)
  );
  -- Subagents and other tasks, by profile-qualified id; parent_id is raw, in the same profile.
  CREATE TABLE tasks (
    qualified_id TEXT PRIMARY KEY,
    profile TEXT NOT NULL REFERENCES profiles(name) ON DELETE CASCADE,
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    raw_id TEXT NOT NULL,
    parent_id TEXT,
    override TEXT
  );
  CREATE TABLE cwd_records (
    qualified_id TEXT PRIMARY KEY,
    path TEXT NOT NULL,
    location TEXT NOT NULL CHECK (location IN ('container', 'host')),
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
];
