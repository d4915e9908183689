/**
 * The migrations from 016 on, appended to the list in ./migrations.ts (same rules: append only, never edit a
 * released one; index + 1 there is the schema version). Kept apart only so that neither file grows past its size.
 */
export const LATER_MIGRATIONS: ReadonlyArray<{ name: string; sql: string }> = [
  {
    name: '016-heartbeat',
    sql: `
      -- What the heartbeat's probes have already reported (src/heartbeat/): a hash per item (a Message-ID, a task
      -- and its due day, a failed run), so a restart does not report it again. Pruned after 60 days.
      CREATE TABLE heartbeat_seen (
        probe TEXT NOT NULL,
        hash TEXT NOT NULL,
        seen_at INTEGER NOT NULL,
        PRIMARY KEY (probe, hash)
      );
      -- The heartbeat's own state: paused (why), stopped for the day, the last beat and change, the person's last
      -- message, and each local day's heartbeat tokens and model calls (the day's budget).
      CREATE TABLE heartbeat_state (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `,
  },
  {
    name: '017-triggers-and-intents',
    sql: `
      -- The trigger inbox (src/triggers/): every inbound trigger (a signed webhook, a new mail) written before it is
      -- acknowledged, once per id (source + delivery id, or the Message-ID). \`received_at\` is unique (a later
      -- trigger in the same millisecond takes the next one), so a trigger job's ledger row (job_id, scheduled_for)
      -- is one per trigger. \`dispatched_at\` is set once the jobs it matched have claimed their runs; \`jobs\` names them.
      CREATE TABLE trigger_inbox (
        id TEXT PRIMARY KEY,
        source TEXT NOT NULL,
        received_at INTEGER NOT NULL UNIQUE,
        summary TEXT NOT NULL,
        payload TEXT NOT NULL,
        dispatched_at INTEGER,
        jobs TEXT NOT NULL DEFAULT '[]'
      );
      CREATE INDEX trigger_inbox_pending ON trigger_inbox (dispatched_at, received_at);
      -- Where a mail watcher got to per account and folder: UIDVALIDITY and the last UID seen, for the catch-up.
      CREATE TABLE trigger_cursors (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
      -- A job run by a trigger (\`trigger:\` beside cron and run_at): its source and match, as JSON.
      ALTER TABLE jobs ADD COLUMN trigger TEXT;
      -- Standing intents (src/heartbeat/intents*.ts): made only by the person; matched without a model.
      CREATE TABLE intents (
        id TEXT PRIMARY KEY,
        match TEXT NOT NULL,
        remind TEXT NOT NULL,
        target TEXT,
        origin_channel TEXT,
        origin_chat TEXT,
        cooldown_s INTEGER NOT NULL,
        fires_left INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        last_fired_at INTEGER,
        fired INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        cancelled_at INTEGER
      );
    `,
  },
  {
    name: '018-memory-search',
    sql: `
      -- Memory search by entry, not by file (src/memory/search/search-index.ts): each list item or paragraph with its lines.
      -- Derived from the files: emptied here, and rebuilt on the next search or by \`familiar memory reindex\`.
      DROP TABLE memory_fts;
      DELETE FROM memory_files;
      CREATE TABLE memory_chunks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        path TEXT NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        heading TEXT NOT NULL,
        text TEXT NOT NULL,
        hash TEXT NOT NULL
      );
      CREATE INDEX memory_chunks_path ON memory_chunks (path);
      CREATE INDEX memory_chunks_hash ON memory_chunks (hash);
      -- rowid = memory_chunks.id. The name keeps the memory_fts_ prefix the backup manifest leaves out.
      CREATE VIRTUAL TABLE memory_fts USING fts5 (heading, text, tokenize = 'porter unicode61');
      -- One vector per entry text and model (a cache: an entry unchanged is never embedded twice, a reindex keeps them).
      CREATE TABLE memory_embeddings (
        model TEXT NOT NULL,
        hash TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (model, hash)
      );
      -- A consolidation writes several files as one change: its rows share a batch, undone together.
      ALTER TABLE memory_history ADD COLUMN batch TEXT;
      CREATE INDEX memory_history_batch ON memory_history (batch);
      -- Consolidations proposed to the person (src/memory/consolidation/): the new files, until applied or discarded.
      CREATE TABLE memory_proposals (
        token TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL,
        summary TEXT NOT NULL,
        files TEXT NOT NULL,
        target TEXT,
        status TEXT NOT NULL DEFAULT 'open',
        batch TEXT,
        decided_at INTEGER
      );
      CREATE TABLE memory_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    `,
  },
  {
    name: '019-push',
    sql: `
      -- The console's Web Push (src/console/push/): the VAPID key pair, made on first use (the private key never
      -- leaves the database), and each device's subscription: where its push service takes messages and the keys
      -- the payload is encrypted to (RFC 8291), whose login made it, and when a push last got through.
      CREATE TABLE IF NOT EXISTS push_keys (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        public_key TEXT NOT NULL,
        private_key TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS push_subscriptions (
        endpoint TEXT PRIMARY KEY,
        p256dh TEXT NOT NULL,
        auth TEXT NOT NULL,
        person TEXT NOT NULL,
        session_hash TEXT,
        user_agent TEXT,
        created_at INTEGER NOT NULL,
        last_success_at INTEGER
      );
    `,
  },
  {
    name: '020-memory-conversations',
    sql: `
      -- Past conversations in memory search (src/memory/search/conversation-index.ts): the person's and the assistant's
      -- messages of chats are entries beside the files' (path = the conversation, lines 0), found by the same FTS5
      -- and vectors. NULL: a file's entry. How far the messages were read is memory_state's 'search.messages_mark'.
      ALTER TABLE memory_chunks ADD COLUMN message_id INTEGER;
      CREATE INDEX memory_chunks_message ON memory_chunks (message_id) WHERE message_id IS NOT NULL;
    `,
  },
  {
    name: '021-household',
    sql: `
      -- A household (docs/household.md, people: in config): whom each turn, tool call and job was for. NULL: one
      -- person (no people: configured), or made before the household began, which is the owner's.
      ALTER TABLE turns ADD COLUMN person TEXT;
      CREATE INDEX turns_person ON turns (person, started_at) WHERE person IS NOT NULL;
      ALTER TABLE audit ADD COLUMN person TEXT;
      ALTER TABLE jobs ADD COLUMN person TEXT;
      -- The move of a single person's memory into people/<owner>/ when people: is first configured
      -- (memory/household-upgrade.ts): every file is written here before anything moves, and marked when it has, so
      -- a crash half-way resumes where it stopped and nothing is lost.
      CREATE TABLE household_moves (
        path TEXT PRIMARY KEY,
        target TEXT NOT NULL,
        moved_at INTEGER,
        planned_at INTEGER NOT NULL
      );
    `,
  },
  {
    name: '022-skill-makers',
    sql: `
      -- Who made each skill in a household (docs/household.md, Skills): its own runs (its schedule) run as them and
      -- deliver to them, and only they or the owner change it. SKILL.md stays the person's file (and a hub skill's
      -- hashed content), so this lives here. No row: the owner's (made at the terminal, or before the household).
      -- chat: where it was made (create_skill, install_skill from a chat), its results' place when SKILL.md names none.
      CREATE TABLE skill_makers (
        skill_id TEXT PRIMARY KEY,
        person TEXT NOT NULL,
        chat TEXT,
        made_at INTEGER NOT NULL
      );
    `,
  },
];
