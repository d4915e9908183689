import { LATER_MIGRATIONS } from './migrations-later.js';

/**
 * Numbered migrations: index + 1 is the schema version stored in PRAGMA user_version.
 * Append only; never edit a released migration.
 */
export interface Migration {
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    name: '001-core',
    sql: `
      CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        channel TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        archived_at INTEGER
      );
      CREATE INDEX conversations_chat ON conversations (channel, chat_id, archived_at);

      CREATE TABLE messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL,
        turn_id TEXT,
        role TEXT NOT NULL,
        body TEXT NOT NULL,
        tokens INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX messages_conversation ON messages (conversation_id, id);

      CREATE TABLE turns (
        id TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL,
        source TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        status TEXT NOT NULL DEFAULT 'running',
        model TEXT,
        llm_calls INTEGER NOT NULL DEFAULT 0,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        error TEXT
      );
      CREATE INDEX turns_started ON turns (started_at);
      CREATE INDEX turns_conversation ON turns (conversation_id, started_at);

      CREATE TABLE audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        call_id TEXT NOT NULL,
        conversation_id TEXT,
        turn_id TEXT,
        tool TEXT NOT NULL,
        input TEXT NOT NULL,
        output TEXT,
        error TEXT,
        success INTEGER NOT NULL,
        duration_ms REAL NOT NULL,
        decision TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX audit_created ON audit (created_at);
      CREATE INDEX audit_tool ON audit (tool, created_at);

      CREATE TABLE memory_files (
        path TEXT PRIMARY KEY,
        mtime_ms REAL NOT NULL,
        size INTEGER NOT NULL
      );
      CREATE VIRTUAL TABLE memory_fts USING fts5 (path UNINDEXED, content, tokenize = 'porter unicode61');
    `,
  },
  {
    name: '002-channels',
    sql: `
      -- Every accepted chat message, keyed by its platform id: a redelivered update is answered once, also after a restart.
      CREATE TABLE channel_inbox (
        channel TEXT NOT NULL,
        message_key TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'received',
        received_at INTEGER NOT NULL,
        done_at INTEGER,
        PRIMARY KEY (channel, message_key)
      );
      CREATE INDEX channel_inbox_received ON channel_inbox (received_at);

      -- Users let in by pairing (in addition to channels.<name>.allowed_users in the config).
      CREATE TABLE channel_users (
        channel TEXT NOT NULL,
        user_id TEXT NOT NULL,
        user_name TEXT NOT NULL DEFAULT '',
        added_at INTEGER NOT NULL,
        PRIMARY KEY (channel, user_id)
      );

      CREATE TABLE pairing_codes (
        code TEXT PRIMARY KEY,
        channel TEXT NOT NULL,
        user_id TEXT NOT NULL,
        user_name TEXT NOT NULL DEFAULT '',
        chat_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending'
      );
      CREATE INDEX pairing_codes_user ON pairing_codes (channel, user_id);
    `,
  },
  {
    name: '003-scheduler',
    sql: `
      CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        cron TEXT,
        run_at INTEGER,
        spec TEXT NOT NULL,
        prompt TEXT NOT NULL,
        catch_up TEXT NOT NULL DEFAULT 'once',
        origin_channel TEXT,
        origin_chat TEXT,
        origin_user TEXT,
        deliver_to TEXT,
        approve TEXT NOT NULL DEFAULT '[]',
        enabled INTEGER NOT NULL DEFAULT 1,
        source TEXT NOT NULL,
        tz TEXT NOT NULL,
        next_run_at INTEGER,
        last_scheduled_at INTEGER,
        done_at INTEGER,
        config_hash TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX jobs_due ON jobs (enabled, next_run_at);

      CREATE TABLE job_runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
        scheduled_for INTEGER NOT NULL,
        trigger TEXT NOT NULL,
        status TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        duration_ms INTEGER,
        error TEXT,
        output TEXT,
        delivered_to TEXT,
        UNIQUE (job_id, scheduled_for)
      );
      CREATE INDEX job_runs_status ON job_runs (status);
    `,
  },
  {
    name: '004-memory-history',
    sql: `
      CREATE TABLE memory_history (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        path TEXT NOT NULL,
        previous TEXT,
        content TEXT,
        conversation_id TEXT,
        kind TEXT NOT NULL,
        reverts_id INTEGER,
        undone_at INTEGER,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX memory_history_path ON memory_history (path, id);
      CREATE INDEX memory_history_conversation ON memory_history (conversation_id, id);
    `,
  },
  {
    name: '005-skills',
    sql: `
      CREATE TABLE skill_runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        skill_id TEXT NOT NULL,
        trigger TEXT NOT NULL,
        status TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        duration_ms INTEGER,
        output TEXT,
        error TEXT
      );
      CREATE INDEX skill_runs_skill ON skill_runs (skill_id, started_at);
    `,
  },
  {
    name: '006-channel-inbox-replay',
    sql: `
      -- The accepted message (JSON: user, text, files' names) until it is answered, so a message whose turn
      -- was cut by a crash can be answered after the restart; cleared once the message is finished.
      ALTER TABLE channel_inbox ADD COLUMN message TEXT;
      CREATE INDEX channel_inbox_pending ON channel_inbox (channel, status, received_at);
    `,
  },
  {
    name: '007-turn-runner',
    sql: `
      -- Which process runs a turn: 'daemon', or 'pid:N' for a one-shot command (familiar ask, chat, jobs run).
      -- At start the daemon marks as interrupted only the running turns that are its own (a previous daemon's)
      -- or whose process is gone, never a turn another live process is serving.
      ALTER TABLE turns ADD COLUMN runner TEXT;
    `,
  },
  {
    name: '008-trust-boundaries',
    sql: `
      -- Codes the owner hands out (familiar pairing invite): whoever sends one in a direct chat is let in, however
      -- many strangers are waiting for codes of their own.
      CREATE TABLE pairing_invites (
        code TEXT PRIMARY KEY,
        channel TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_by TEXT,
        used_at INTEGER
      );
      -- Wrong invite codes sent by unknown users, so guessing is limited per person.
      CREATE TABLE pairing_attempts (
        channel TEXT NOT NULL,
        user_id TEXT NOT NULL,
        at INTEGER NOT NULL
      );
      CREATE INDEX pairing_attempts_user ON pairing_attempts (channel, user_id, at);
      CREATE INDEX pairing_codes_status ON pairing_codes (channel, status);
      -- A chat lists only its own jobs.
      CREATE INDEX jobs_origin ON jobs (origin_channel, origin_chat);
    `,
  },
  {
    name: '009-provenance',
    sql: `
      -- The outside sources (mail, web, search, MCP, sandbox files, hub skills…) in play when a message was made, as a
      -- JSON array; NULL for the person's own words. While such a message is in a conversation's history window,
      -- every turn of that conversation counts as holding outside content.
      ALTER TABLE messages ADD COLUMN sources TEXT;
      -- A job made while outside content was in play: its runs start with these sources (and its prompt is data).
      ALTER TABLE jobs ADD COLUMN sources TEXT;
      -- Labels on what outlives a turn: memory files written while outside content was in play (kept out of the
      -- prompt until the person clears the label), skill drafts made so, skills installed from a hub.
      CREATE TABLE provenance (
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        sources TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (kind, key)
      );
    `,
  },
  {
    name: '010-voice',
    sql: `
      -- Audio heard (speech to text) and spoken (text to speech), for voice.daily_minutes. A row is reserved with the
      -- audio's length before the engine runs (so two voice notes at once cannot both pass the cap) and removed if the
      -- engine fails.
      CREATE TABLE voice_usage (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        direction TEXT NOT NULL,
        seconds REAL NOT NULL,
        engine TEXT NOT NULL,
        conversation_id TEXT,
        status TEXT NOT NULL
      );
      CREATE INDEX voice_usage_at ON voice_usage (at);
      -- /voice on|off|auto per chat.
      CREATE TABLE voice_chats (
        channel TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        mode TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (channel, chat_id)
      );
    `,
  },
  {
    name: '011-audit-requested-input',
    sql: `
      -- The arguments as the model sent them, when a tool:before hook rewrote them (input keeps what ran).
      ALTER TABLE audit ADD COLUMN requested_input TEXT;
    `,
  },
  {
    name: '012-console',
    sql: `
      -- One-time login links printed by \`familiar console\` (another process than the daemon): only the hash is
      -- kept; a link works once, before it expires.
      CREATE TABLE console_logins (
        token_hash TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER
      );
      -- Browser sessions (the cookie's value is never stored, only its hash).
      CREATE TABLE console_sessions (
        id_hash TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL,
        seen_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        user_agent TEXT
      );
      -- What the console chat shows besides the conversation's messages: files a reply carried (downloadable
      -- later) and results delivered to the console by jobs and skills.
      CREATE TABLE console_items (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        name TEXT,
        mime_type TEXT,
        text TEXT,
        content BLOB,
        size INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX console_items_conversation ON console_items (conversation_id, created_at);
    `,
  },
  {
    name: '013-conversation-kind',
    sql: `
      -- Whose a conversation is: a chat's own, or a job's or a skill's (made from a chat and filed under it, but never
      -- the chat's current one). Until now the newest conversation of a chat was its current one, so after a job or a
      -- skill ran from a chat (and the daemon restarted) the chat's messages ran in the job's conversation. Jobs and
      -- skills have always named theirs \`job-<id>\` and \`skill-<id>…\` (a chat's begins with its channel's name);
      -- marking them gives every chat that was taken over its newest own conversation back.
      ALTER TABLE conversations ADD COLUMN kind TEXT NOT NULL DEFAULT 'chat';
      UPDATE conversations SET kind = 'job' WHERE id GLOB 'job-*';
      UPDATE conversations SET kind = 'skill' WHERE id GLOB 'skill-*';
      DROP INDEX conversations_chat;
      CREATE INDEX conversations_chat ON conversations (channel, chat_id, kind, archived_at);
    `,
  },
  {
    name: '014-leak-budget',
    sql: `
      -- What third parties' words in a tool message vouch for (addresses a later call may fetch in a tainted turn):
      -- JSON {urls, text}, written by the gate from the tool's own account of what a third party wrote.
      ALTER TABLE messages ADD COLUMN vouched TEXT;
      -- The leak budget: every fetch or search chosen from outside content that went ahead unasked, with the
      -- bits its choice could carry (src/gate/budget.ts). Kept a week; the budgets look back one turn and 24 hours.
      CREATE TABLE leak_charges (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        turn_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        scope TEXT,
        tool TEXT NOT NULL,
        call_id TEXT NOT NULL,
        bits REAL NOT NULL
      );
      CREATE INDEX leak_charges_at ON leak_charges (at);
      CREATE INDEX leak_charges_turn ON leak_charges (turn_id);
      CREATE INDEX leak_charges_scope ON leak_charges (scope, at);
    `,
  },
  {
    name: '015-reminder-deliveries',
    sql: `
      -- A plain reminder's task (reminder_create's \`task\`): Done on its delivery ticks that task.
      CREATE TABLE reminder_links (
        job_id TEXT PRIMARY KEY,
        task TEXT NOT NULL
      );
      -- Each delivered reminder and the token its Snooze and Done buttons carry. A press, /snooze or /done counts once:
      -- \`action\` is set only where it is still NULL, in the same transaction as the re-armed job (src/notes/reminder-store.ts).
      CREATE TABLE reminder_deliveries (
        token TEXT PRIMARY KEY,
        job_id TEXT NOT NULL,
        target TEXT NOT NULL,
        user_id TEXT,
        text TEXT NOT NULL,
        task TEXT,
        sources TEXT NOT NULL DEFAULT '[]',
        delivered_at INTEGER NOT NULL,
        action TEXT,
        acted_at INTEGER
      );
      CREATE INDEX reminder_deliveries_target ON reminder_deliveries (target, delivered_at);
    `,
  },
  // 016 and after: the heartbeat, triggers and intents, memory search, push (./migrations-later.ts).
  ...LATER_MIGRATIONS,
];
