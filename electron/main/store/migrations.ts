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
  `
  -- The agent's conversation: one row per message, its tool calls inside it (JSON).
  CREATE TABLE agent_messages (
    id TEXT PRIMARY KEY,
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    task_id TEXT,
    parent_call_id TEXT,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'error')),
    content TEXT NOT NULL,
    tool_calls TEXT NOT NULL,
    results TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX agent_messages_chat ON agent_messages(chat_id, seq);
  -- A profile's provider key, encrypted, bound to the profile and to the origin it is sent to.
  CREATE TABLE provider_keys (
    profile TEXT PRIMARY KEY REFERENCES profiles(name) ON DELETE CASCADE,
    origin TEXT NOT NULL,
    ciphertext BLOB NOT NULL,
    updated_at INTEGER NOT NULL
  );
  `,
  `
  -- Attach modes (read-only, read-write, review): existing attachments keep what they were; new ones default to review.
  ALTER TABLE attachments ADD COLUMN mode TEXT NOT NULL DEFAULT 'readwrite' CHECK (mode IN ('review', 'readwrite', 'readonly'));
  UPDATE attachments SET mode = 'readonly' WHERE read_only = 1;
  `,
  `
  -- Warm sandboxes: a chat id reserved for a profile whose container is already started. The
  -- row says whose the container is until a new chat takes the id (then the row goes).
  CREATE TABLE warm_slots (
    chat_id TEXT PRIMARY KEY,
    profile TEXT NOT NULL REFERENCES profiles(name) ON DELETE CASCADE,
    created_at INTEGER NOT NULL
  );
  `,
  `
  -- Egress modes: 'network' became 'egress'. Existing profiles keep what they had: 'isolated' (the
  -- internet and the host open) is 'open', 'none' stays 'none'; new profiles get 'allowlist'.
  UPDATE profiles
     SET settings = json_set(json_remove(settings, '$.network'), '$.egress',
                             CASE json_extract(settings, '$.network') WHEN 'none' THEN 'none' ELSE 'open' END)
   WHERE json_extract(settings, '$.egress') IS NULL;
  `,
  `
  -- Review comments on lines of a chat's changes (review/reviewComments): a draft until sent to
  -- the chat's agent, then sent, then resolved. The quote keeps the lines as they were written on
  -- (a JSON array), so a comment whose lines changed since is shown as outdated.
  CREATE TABLE review_comments (
    id TEXT PRIMARY KEY,
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    host_path TEXT NOT NULL,
    path TEXT NOT NULL,
    side TEXT NOT NULL CHECK (side IN ('new', 'old')),
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    quote TEXT NOT NULL,
    body TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('draft', 'sent', 'resolved')),
    created_at INTEGER NOT NULL,
    sent_at INTEGER
  );
  CREATE INDEX review_comments_chat ON review_comments(chat_id, created_at);
  `,
  `
  -- The agent's second round: Berth's own notices in the conversation (AGENTS.md in use, earlier
  -- turns summarised) and the provider's token usage per answer, as JSON; and a chat's own
  -- agent options (AGENTS.md on or off, its model).
  ALTER TABLE agent_messages ADD COLUMN notice TEXT;
  ALTER TABLE agent_messages ADD COLUMN usage TEXT;
  CREATE TABLE agent_chat_options (
    chat_id TEXT PRIMARY KEY REFERENCES chats(id) ON DELETE CASCADE,
    instructions INTEGER NOT NULL DEFAULT 1,
    model TEXT
  );
  `,
  `
  -- Fork lineage (review/forkChat): the chat a fork was made from, and for "Try again in a new
  -- chat" the first chat of the attempts, so the attempt limit and Compare's "close the others"
  -- follow the lineage, not titles. No reference on the parent: a fork outlives its original.
  CREATE TABLE chat_forks (
    chat_id TEXT PRIMARY KEY REFERENCES chats(id) ON DELETE CASCADE,
    forked_from TEXT NOT NULL,
    attempt_of TEXT
  );
  `,
];
