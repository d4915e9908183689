import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { MemoryHistory } from '../../src/memory/history.js';
import { StaleWriteError } from '../../src/errors.js';
import { MemoryStore } from '../../src/memory/store.js';
import { captureLogger, tempDir } from '../helpers/app.js';

describe('MemoryStore compare-and-swap, remove, prompt filters and outside labels', () => {
  let dir: string;
  let db: Database;
  let memory: MemoryStore;
  let history: MemoryHistory;

  beforeEach(() => {
    dir = tempDir('familiar-cas-');
    db = openDatabase(path.join(dir, 'data'));
    memory = new MemoryStore(path.join(dir, 'memory'), db);
    history = new MemoryHistory(memory, db, captureLogger([], []));
    history.attach();
    mkdirSync(path.join(dir, 'memory'));
    writeFileSync(path.join(dir, 'memory', 'x.md'), 'one\n');
  });
  afterEach(() => db.close());

  it('writes when the file is still what the caller read, and refuses (writing nothing) when it changed', async () => {
    await memory.write('x.md', 'two\n', { expected: 'one\n', conversationId: 'c1' });
    expect(readFileSync(path.join(dir, 'memory', 'x.md'), 'utf8')).toBe('two\n');
    await expect(memory.write('x.md', 'three\n', { expected: 'one\n', conversationId: 'c1' })).rejects.toBeInstanceOf(StaleWriteError);
    expect(readFileSync(path.join(dir, 'memory', 'x.md'), 'utf8')).toBe('two\n');
    await expect(memory.write('new.md', 'a', { expected: 'something' })).rejects.toBeInstanceOf(StaleWriteError);
    await memory.write('new.md', 'a', { expected: null });
    await expect(memory.write('new.md', 'b', { expected: null })).rejects.toBeInstanceOf(StaleWriteError);
  });

  it('a checked write needs no memory_read first (the hand-edit guard is satisfied by the comparison)', async () => {
    await expect(memory.write('x.md', 'blind\n', { conversationId: 'c2' })).rejects.toThrow(/have not read it/);
    await expect(memory.write('x.md', 'checked\n', { conversationId: 'c2', expected: 'one\n' })).resolves.toMatchObject({ path: 'x.md' });
  });

  it('removes a file with history, and undo puts it back', async () => {
    expect(await memory.remove('x.md', { conversationId: 'c1', expected: 'one\n' })).toBe(true);
    expect(memory.list().map((file) => file.path)).toEqual([]);
    expect(memory.search('one')).toEqual([]);
    const [change] = history.list();
    expect(change).toMatchObject({ path: 'x.md', previous: 'one\n', content: null });
    const reverted = await history.revert(change!);
    expect(reverted.success).toBe(true);
    expect(readFileSync(path.join(dir, 'memory', 'x.md'), 'utf8')).toBe('one\n');
    expect(await memory.remove('gone.md')).toBe(false);
  });

  it('keeps filtered files out of the prompt and names outside sources through labelers', () => {
    writeFileSync(path.join(dir, 'memory', 'secret-page.md'), 'from the web');
    memory.addPromptFilter((file) => file !== 'secret-page.md');
    memory.addOutsideLabeler((file) => (file === 'secret-page.md' ? 'https://example.com/' : undefined));
    memory.addOutsideLabeler(() => {
      throw new Error('a broken labeler labels nothing');
    });
    const snapshot = memory.snapshot(10_000);
    expect(snapshot.included).toEqual(['x.md']);
    expect(snapshot.text).not.toContain('from the web');
    expect(memory.outsideSource('secret-page.md', 'from the web')).toBe('https://example.com/');
    expect(memory.outsideSource('x.md', 'one')).toBeUndefined();
  });
});
