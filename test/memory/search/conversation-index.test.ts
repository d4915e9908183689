import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConversationStore } from '../../../src/agent/conversations.js';
import { runCli } from '../../../src/cli/run.js';
import { openDatabase, type Database } from '../../../src/db/database.js';
import { createHybridSearch } from '../../../src/memory/part.js';
import { MemoryStore } from '../../../src/memory/store.js';
import type { Daemon } from '../../../src/daemon.js';
import { startOpenAiServer, type FakeOpenAI } from '../../fakes/openai-server.js';
import { captureLogger, makeTestApp, tempDir, writeTestConfig } from '../../helpers/app.js';
import { captureIo } from '../../helpers/io.js';

/** 2026-11-20 at noon in Paris (the test config's time zone). */
const NOV_20 = Date.UTC(2026, 10, 20, 11, 0, 0);

describe('past conversations in memory search', () => {
  let dir: string;
  let db: Database;
  let store: MemoryStore;
  let conversations: ConversationStore;
  let chat: string;

  beforeEach(() => {
    dir = tempDir();
    mkdirSync(path.join(dir, 'memory'));
    writeFileSync(path.join(dir, 'memory', 'car.md'), '# Car\n\nTyres changed in May.\n');
    db = openDatabase(path.join(dir, 'data'));
    store = new MemoryStore(path.join(dir, 'memory'), db);
    conversations = new ConversationStore(db);
    chat = conversations.resolve('telegram', '42');
    return () => db.close();
  });

  const say = (conversationId: string, turnId: string, ...messages: Parameters<ConversationStore['append']>[2]) => conversations.append(conversationId, turnId, messages);

  it("finds the person's and the assistant's messages, saying the conversation, the time and who said it", () => {
    say(chat, 't1', { role: 'user', content: 'My sister Ines moves to Lyon in March.' }, { role: 'assistant', content: 'Noted: Ines moves to Lyon in March.' });
    const hits = store.search('Lyon');
    expect(hits.map((hit) => hit.conversation?.role).sort()).toEqual(['assistant', 'user']);
    expect(hits[0]).toMatchObject({ path: chat, startLine: 0, endLine: 0, conversation: { id: chat, sources: [], turnId: 't1' } });
    expect(hits[0]?.snippet).toContain('«Lyon»');
  });

  it('does not index tool messages, tool calls without text, or the runs of jobs', () => {
    say(chat, 't1',
      { role: 'user', content: 'weather please' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'web_search', arguments: '{"query":"zanzibar"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'Zanzibar: sunny' });
    const job = conversations.ensure('job-7', 'telegram', '42', 'job');
    say(job, 't2', { role: 'user', content: 'Zanzibar briefing' }, { role: 'assistant', content: 'Zanzibar is sunny.' });
    expect(store.search('zanzibar')).toEqual([]);
    expect(store.search('weather')).toHaveLength(1);
  });

  it('ranks messages and file entries together', () => {
    say(chat, 't1', { role: 'user', content: 'The tyres squeak again.' });
    expect(store.search('tyres').map((hit) => hit.path).sort()).toEqual(['car.md', chat].sort());
  });

  it('reads only the messages written since the last search (a high-water mark, not a scan)', () => {
    say(chat, 't1', { role: 'user', content: 'Parcel for the neighbour.' });
    expect(store.search('parcel')).toHaveLength(1);
    // A message already indexed is not read again: its changed row stays as it was indexed.
    db.prepare("UPDATE messages SET body = json_object('role', 'user', 'content', 'Umbrella in the hall.')").run();
    say(chat, 't2', { role: 'user', content: 'Umbrella for tomorrow.' });
    expect(store.search('umbrella').map((hit) => hit.conversation?.turnId)).toEqual(['t2']);
  });

  it('cuts a long message into pieces an embedder takes, keeping every word searchable', () => {
    const long = Array.from({ length: 30 }, (_, index) => `Paragraph ${index} ${'lorem ipsum '.repeat(20)}`).join('\n\n');
    say(chat, 't1', { role: 'assistant', content: `${long}\n\nThe final word is aubergine.` });
    store.syncIndex();
    const pieces = (db.prepare('SELECT length(text) AS n FROM memory_chunks WHERE message_id IS NOT NULL').all() as Array<{ n: number }>).map((row) => row.n);
    expect(pieces.length).toBeGreaterThan(3);
    expect(Math.max(...pieces)).toBeLessThanOrEqual(2000);
    expect(store.search('aubergine')).toHaveLength(1);
  });

  it('leaves out a hit whose message is gone', () => {
    say(chat, 't1', { role: 'user', content: 'Passport renewal in June.' });
    store.syncIndex();
    db.prepare('DELETE FROM messages').run();
    expect(store.search('passport')).toEqual([]);
  });

  it('familiar memory reindex rebuilds the messages too', async () => {
    const fakeless = { baseUrl: 'http://127.0.0.1:9', apiKey: 'k' } as unknown as FakeOpenAI;
    const config = writeTestConfig(dir, fakeless);
    say(chat, 't1', { role: 'user', content: 'Piano lesson on Tuesday.' });
    store.syncIndex();
    db.exec('DELETE FROM memory_fts');
    const io = captureIo();
    expect(await runCli(['memory', 'reindex', '--config', config], io)).toBe(0);
    expect(io.out()).toContain('and 1 messages of past conversations');
    expect(store.search('piano')).toHaveLength(1);
  });

  describe('with an embedder', () => {
    let fake: FakeOpenAI;

    beforeAll(async () => {
      fake = await startOpenAiServer();
      for (const word of ['rest', 'resting', 'sleep', 'sleeping', 'insomnia']) fake.embeddings.concepts.set(word, 'sleep');
    });
    afterAll(async () => fake.close());

    it('finds a message by meaning, fused with the files by rank', async () => {
      say(chat, 't1', { role: 'user', content: 'I had insomnia all week.' });
      const hybrid = createHybridSearch(store, { db, log: captureLogger([], []), embeddings: { base_url: fake.baseUrl, api_key: fake.apiKey, model: 'embed-test' } });
      expect(store.search('resting')).toEqual([]);
      const hits = await hybrid?.search('resting', 3);
      expect(hits?.[0]).toMatchObject({ path: chat, conversation: { role: 'user' } });
      expect(hits?.[0]?.snippet).toContain('insomnia');
    });
  });

  describe('through the memory_search tool', () => {
    let fake: FakeOpenAI;
    let app: Daemon;

    beforeEach(async () => {
      fake = await startOpenAiServer();
      app = (await makeTestApp(fake)).app;
    });
    afterEach(async () => {
      await app.close(0);
      await fake.close();
    });

    const search = (query: string, turnId = 'now') =>
      app.tools.execute({ name: 'memory_search', arguments: { query }, conversationId: 'c', turnId, origin: { channel: 'telegram', chatId: '42' } });

    it('gives each message as conversation, day and who said it, with a snippet', async () => {
      const id = app.conversations.resolve('telegram', '42');
      app.conversations.append(id, 't1', [{ role: 'user', content: 'Book the dentist for Ines.' }]);
      app.db.prepare('UPDATE messages SET created_at = ?').run(NOV_20);
      const result = await search('dentist');
      expect(result.result.output).toBe(`1. conversation ${id} · 2026-11-20 · you: Book the «dentist» for Ines.`);
    });

    it("leaves out the current turn's own messages", async () => {
      const id = app.conversations.resolve('telegram', '42');
      app.conversations.append(id, 'now', [{ role: 'user', content: 'What did I say about the dentist?' }]);
      const result = await search('dentist');
      expect(result.result.output).toContain('No memory file or past conversation mentions');
    });
  });
});
