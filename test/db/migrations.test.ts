import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { Sqlite } from '../../src/db/sqlite.js';
import { describe, expect, it } from 'vitest';
import { ConversationStore } from '../../src/agent/conversations.js';
import { runCli } from '../../src/cli/run.js';
import { DATABASE_FILE, openDatabase, schemaVersion } from '../../src/db/database.js';
import { MIGRATIONS, type Migration } from '../../src/db/migrations.js';
import { AppError } from '../../src/errors.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';

const LATEST = MIGRATIONS.length;

function tables(db: BetterSqlite3.Database): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map((row) => row.name);
}

/** Data in the tables of the first migration, which every later version still has. */
function putCoreData(db: BetterSqlite3.Database): void {
  db.prepare("INSERT INTO conversations (id, channel, chat_id, created_at) VALUES ('cli-owner', 'cli', 'owner', 1)").run();
  const insert = db.prepare("INSERT INTO messages (conversation_id, turn_id, role, body, created_at) VALUES ('cli-owner', 't1', ?, ?, 2)");
  insert.run('user', JSON.stringify({ role: 'user', content: 'remember the milk' }));
  insert.run('assistant', JSON.stringify({ role: 'assistant', content: 'noted' }));
  db.prepare("INSERT INTO turns (id, conversation_id, source, started_at, status, prompt_tokens) VALUES ('t1', 'cli-owner', 'cli', 1, 'ok', 42)").run();
}

function expectCoreData(db: BetterSqlite3.Database): void {
  expect(db.prepare('SELECT id, channel, chat_id FROM conversations').all()).toEqual([{ id: 'cli-owner', channel: 'cli', chat_id: 'owner' }]);
  const bodies = (db.prepare('SELECT body FROM messages ORDER BY id').all() as Array<{ body: string }>).map((row) => JSON.parse(row.body) as { content: string });
  expect(bodies.map((body) => body.content)).toEqual(['remember the milk', 'noted']);
  expect(db.prepare('SELECT prompt_tokens FROM turns').get()).toEqual({ prompt_tokens: 42 });
}

describe('database migrations', () => {
  it('bring an empty database to the latest version', () => {
    const dir = tempDir();
    const db = openDatabase(dir);
    try {
      expect(schemaVersion(db)).toBe(LATEST);
      expect(tables(db)).toEqual(expect.arrayContaining(['conversations', 'messages', 'turns', 'audit', 'memory_files']));
    } finally {
      db.close();
    }
  });

  it('reopen a database at the latest version without change', () => {
    const dir = tempDir();
    const first = openDatabase(dir);
    putCoreData(first);
    const before = tables(first);
    first.close();
    const second = openDatabase(dir);
    expect(schemaVersion(second)).toBe(LATEST);
    expect(tables(second)).toEqual(before);
    expectCoreData(second);
    second.close();
  });

  // Every earlier released version: a database written by it, with data, opened by this version.
  for (let version = 1; version < LATEST; version += 1) {
    it(`upgrade a version-${version} database with data to version ${LATEST}, keeping the data`, () => {
      const dir = tempDir();
      const old = openDatabase(dir, MIGRATIONS.slice(0, version));
      expect(schemaVersion(old)).toBe(version);
      putCoreData(old);
      old.close();
      const db = openDatabase(dir);
      expect(schemaVersion(db)).toBe(LATEST);
      expectCoreData(db);
      db.close();
    });
  }

  it('apply a new migration to a database with data (the next upgrade)', () => {
    const dir = tempDir();
    const current = openDatabase(dir);
    putCoreData(current);
    current.close();
    const next: Migration = { name: '999-test-title', sql: "ALTER TABLE conversations ADD COLUMN title TEXT; UPDATE conversations SET title = 'Chat ' || chat_id;" };
    const db = openDatabase(dir, [...MIGRATIONS, next]);
    expect(schemaVersion(db)).toBe(LATEST + 1);
    expect(db.prepare('SELECT title FROM conversations').get()).toEqual({ title: 'Chat owner' });
    expectCoreData(db);
    db.close();
  });

  it("give a chat taken over by a job's or a skill's conversation its newest own conversation back (013)", () => {
    const dir = tempDir();
    const before = MIGRATIONS.findIndex((migration) => migration.name === '013-conversation-kind');
    const old = openDatabase(dir, MIGRATIONS.slice(0, before));
    const insert = old.prepare('INSERT INTO conversations (id, channel, chat_id, created_at, archived_at) VALUES (?, ?, ?, ?, ?)');
    insert.run('telegram-42-old', 'telegram', '42', 1, 2);
    insert.run('telegram-42-own', 'telegram', '42', 3, null);
    // Made from the chat later, so the old shape took them for the chat's current conversation.
    insert.run('job-digest', 'telegram', '42', 4, null);
    insert.run('skill-greeter--telegram-0123456789abcdef', 'telegram', '42', 5, null);
    insert.run('skill-greeter', 'cli', 'terminal', 6, null);
    old.close();
    const db = openDatabase(dir);
    try {
      expect(new ConversationStore(db).resolve('telegram', '42')).toBe('telegram-42-own');
      expect(db.prepare('SELECT id, kind FROM conversations ORDER BY created_at').all()).toEqual([
        { id: 'telegram-42-old', kind: 'chat' },
        { id: 'telegram-42-own', kind: 'chat' },
        { id: 'job-digest', kind: 'job' },
        { id: 'skill-greeter--telegram-0123456789abcdef', kind: 'skill' },
        { id: 'skill-greeter', kind: 'skill' },
      ]);
      // The terminal's chat had only the skill's: it gets a new conversation of its own.
      expect(new ConversationStore(db).resolve('cli', 'terminal')).toMatch(/^cli-terminal-/);
    } finally {
      db.close();
    }
  });

  it('roll back a migration that fails half-way, leaving the version and the data as they were', () => {
    const dir = tempDir();
    const current = openDatabase(dir);
    putCoreData(current);
    current.close();
    const broken: Migration = { name: '999-broken', sql: 'CREATE TABLE half_done (a TEXT); DELETE FROM messages; INSERT INTO no_such_table VALUES (1);' };
    expect(() => openDatabase(dir, [...MIGRATIONS, broken])).toThrow(/no_such_table/);
    const db = openDatabase(dir);
    expect(schemaVersion(db)).toBe(LATEST);
    expect(tables(db)).not.toContain('half_done');
    expectCoreData(db);
    db.close();
  });

  it('refuse a database from a newer Familiar with DB_TOO_NEW and leave it untouched', () => {
    const dir = tempDir();
    openDatabase(dir).close();
    const raw = new Sqlite(path.join(dir, DATABASE_FILE));
    raw.pragma(`user_version = ${LATEST + 5}`);
    raw.close();
    let caught: unknown;
    try {
      openDatabase(dir);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).code).toBe('DB_TOO_NEW');
    const after = new Sqlite(path.join(dir, DATABASE_FILE), { readonly: true });
    expect(after.pragma('user_version', { simple: true })).toBe(LATEST + 5);
    after.close();
  });

  it('make the command line exit 1 with a clear message for a newer database', async () => {
    const dir = tempDir();
    const configPath = writeTestConfig(dir, undefined);
    openDatabase(path.join(dir, 'data')).close();
    const raw = new Sqlite(path.join(dir, 'data', DATABASE_FILE));
    raw.pragma(`user_version = ${LATEST + 1}`);
    raw.close();
    const io = captureIo();
    expect(await runCli(['start', '--config', configPath], io)).toBe(1);
    expect(io.err()).toContain(`database schema version ${LATEST + 1} is newer than this Familiar understands (${LATEST}); upgrade Familiar or restore a backup [DB_TOO_NEW]`);
    // doctor reports it as a failed check, with the fix, and still runs the checks that need no database.
    const doctor = captureIo();
    expect(await runCli(['doctor', '--config', configPath], doctor)).toBe(1);
    const out = doctor.out();
    expect(out).toContain(`✗ database: database schema version ${LATEST + 1} is newer than this Familiar understands (${LATEST})`);
    expect(out).toContain('— upgrade Familiar, or restore a backup made by this version');
    expect(out).toMatch(/^[✓✗] llm/m);
    expect(out).toContain('check(s) failed.');
  });
});
