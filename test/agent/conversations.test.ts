// Whose a conversation is: a chat's own are found by `resolve`, archived by `/reset` and listed by the console; a
// job's or a skill's, filed under the chat that made it, is none of these (a real SQLite file).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationStore } from '../../src/agent/conversations.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { tempDir } from '../helpers/app.js';

describe('ConversationStore: conversations belong to who started them', () => {
  let db: Database;

  beforeEach(() => {
    db = openDatabase(tempDir());
  });

  afterEach(() => {
    db.close();
  });

  it("does not give a chat a job's conversation made after the chat's own", () => {
    const own = new ConversationStore(db).resolve('telegram', '42');
    new ConversationStore(db).ensure('job-digest', 'telegram', '42', 'job');
    expect(new ConversationStore(db).resolve('telegram', '42')).toBe(own);
  });

  it("does not give a chat a skill's conversation as its first one", () => {
    new ConversationStore(db).ensure('skill-greeter--telegram-abc', 'telegram', '42', 'skill');
    const resolved = new ConversationStore(db).resolve('telegram', '42');
    expect(resolved).not.toBe('skill-greeter--telegram-abc');
    expect(resolved).toMatch(/^telegram-42-/);
  });

  it("archives only the chat's own conversations on /reset (a job keeps its history)", () => {
    const store = new ConversationStore(db);
    const own = store.resolve('cli', 'terminal');
    store.ensure('job-digest', 'cli', 'terminal', 'job');
    const fresh = store.reset('cli', 'terminal');
    expect(fresh).not.toBe(own);
    const archived = db.prepare('SELECT id FROM conversations WHERE archived_at IS NOT NULL').all();
    expect(archived).toEqual([{ id: own }]);
  });

  it("lists only the chat's own conversations for the console", () => {
    const store = new ConversationStore(db);
    const own = store.resolve('console', 'owner');
    store.ensure('skill-greeter', 'console', 'owner', 'skill');
    expect(store.listOf('console', 'owner').map((conversation) => conversation.id)).toEqual([own]);
  });
});
