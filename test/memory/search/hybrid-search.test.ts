import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { openDatabase, type Database } from '../../../src/db/database.js';
import { createHybridSearch } from '../../../src/memory/part.js';
import { MemoryStore } from '../../../src/memory/store.js';
import type { HybridSearch } from '../../../src/memory/search/hybrid-search.js';
import { startOpenAiServer, type FakeOpenAI } from '../../fakes/openai-server.js';
import { captureLogger, tempDir, writeTestConfig } from '../../helpers/app.js';
import { captureIo } from '../../helpers/io.js';

describe('hybrid memory search (words and meaning, fused)', () => {
  let fake: FakeOpenAI;
  let dir: string;
  let db: Database;
  let store: MemoryStore;
  let hybrid: HybridSearch;
  let logs: string[];

  beforeAll(async () => {
    fake = await startOpenAiServer();
    // The scripted meaning: resting and sleeping are one idea.
    for (const word of ['rest', 'resting', 'sleep', 'sleeping', 'bed']) fake.embeddings.concepts.set(word, 'sleep');
  });
  afterAll(async () => fake.close());

  beforeEach(() => {
    fake.embeddings.failWith = undefined;
    fake.embeddings.requests.length = 0;
    dir = tempDir();
    mkdirSync(path.join(dir, 'memory'));
    writeFileSync(path.join(dir, 'memory', 'health.md'), '# Health\n\n- Goes to bed at 22:30 on weeknights.\n- Walks 5 km on Sundays.\n');
    writeFileSync(path.join(dir, 'memory', 'car.md'), '# Car\n\nTyres changed in May.\n');
    db = openDatabase(path.join(dir, 'data'));
    store = new MemoryStore(path.join(dir, 'memory'), db);
    logs = [];
    const made = createHybridSearch(store, { db, log: captureLogger(logs, []), embeddings: { base_url: fake.baseUrl, api_key: fake.apiKey, model: 'embed-test' } });
    if (!made) throw new Error('no hybrid search');
    hybrid = made;
    return () => db.close();
  });

  it('finds an entry by meaning when no word of the question is in it, with its lines', async () => {
    expect(store.search('resting better')).toEqual([]);
    const hits = await hybrid.search('resting better', 3);
    expect(hits[0]).toMatchObject({ path: 'health.md', startLine: 3, endLine: 3 });
    expect(hits[0]?.snippet).toContain('Goes to bed');
  });

  it('answers by words alone, and says so in the log, when the embedder fails', async () => {
    fake.embeddings.failWith = 401;
    const hits = await hybrid.search('tyres', 3);
    expect(hits).toEqual([{ path: 'car.md', startLine: 3, endLine: 3, snippet: '«Tyres» changed in May.' }]);
    expect(logs.join('')).toContain('memory search by meaning failed; answering by words only');
  });

  it('embeds only the entries a hand edit added, on the next search', async () => {
    await hybrid.search('car', 3);
    fake.embeddings.requests.length = 0;
    writeFileSync(path.join(dir, 'memory', 'car.md'), '# Car\n\nTyres changed in May.\n\nSleeps in the garage when it rains.\n');
    const hits = await hybrid.search('resting', 5);
    expect(fake.embeddings.requests).toEqual([['Car: Sleeps in the garage when it rains.'], ['resting']]);
    expect(hits.map((hit) => `${hit.path}#L${hit.startLine}`)).toContain('car.md#L5');
  });

  it('familiar memory reindex rebuilds the entries from the files and embeds them', async () => {
    const config = writeTestConfig(dir, fake, { memory: { embeddings: { base_url: fake.baseUrl, api_key: fake.apiKey, model: 'embed-test' } } });
    writeFileSync(path.join(dir, 'memory', 'health.md'), '# Health\n\n- Goes to bed at 22:30 on weeknights.\n- Walks 5 km on Sundays.\n');
    writeFileSync(path.join(dir, 'memory', 'car.md'), '# Car\n\nTyres changed in May.\n');
    db.exec("INSERT INTO memory_chunks (path, start_line, end_line, heading, text, hash) VALUES ('gone.md', 1, 1, '', 'stale', 'x')");
    const io = captureIo();
    expect(await runCli(['memory', 'reindex', '--config', config], io)).toBe(0);
    expect(io.out()).toContain('Indexed 3 entries in 2 files, and 0 messages of past conversations.');
    expect(io.out()).toContain('Embedded 3 new entries');
    expect((db.prepare('SELECT path FROM memory_chunks ORDER BY id').all() as Array<{ path: string }>).map((row) => row.path)).toEqual(['car.md', 'health.md', 'health.md']);
  });
});
