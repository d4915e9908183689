import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { MemoryStore } from '../../src/memory/store.js';
import { tempDir } from '../helpers/app.js';

describe('memory store', () => {
  let dir: string;
  let db: Database;
  let memory: MemoryStore;

  beforeEach(() => {
    dir = tempDir();
    mkdirSync(path.join(dir, 'memory'));
    db = openDatabase(path.join(dir, 'data'));
    memory = new MemoryStore(path.join(dir, 'memory'), db);
  });

  afterEach(() => db.close());

  it('keeps all of 50 concurrent appends to one file', async () => {
    await Promise.all(Array.from({ length: 50 }, (_, index) => memory.write('log.md', `line ${index}\n`, { mode: 'append' })));
    const lines = readFileSync(path.join(dir, 'memory', 'log.md'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(50);
    expect(new Set(lines).size).toBe(50);
    expect(lines).toContain('line 0');
    expect(lines).toContain('line 49');
  });

  it('finds a file edited by hand with full-text search', async () => {
    await memory.write('notes.md', 'Nothing interesting yet.');
    expect(memory.search('saxophone')).toEqual([]);
    writeFileSync(path.join(dir, 'memory', 'hobbies.md'), '# Hobbies\nPlays the saxophone on Sundays.\n');
    const hits = memory.search('saxophone');
    expect(hits.map((hit) => hit.path)).toEqual(['hobbies.md']);
    expect(hits[0]?.snippet).toContain('«saxophone»');
    // A hand edit that removes the word is seen too.
    writeFileSync(path.join(dir, 'memory', 'hobbies.md'), '# Hobbies\nPlays chess now.\n');
    expect(memory.search('saxophone')).toEqual([]);
  });

  it('answers a search with the entry\'s lines, not the whole file', async () => {
    await memory.write('health.md', '# Health\n\n- Walks the dog at 7.\n- Allergic to penicillin.\n');
    expect(memory.search('penicillin')).toEqual([{ path: 'health.md', startLine: 4, endLine: 4, snippet: '- Allergic to «penicillin».' }]);
  });

  it('puts profile first, then the newest files, and names what did not fit', () => {
    const root = path.join(dir, 'memory');
    writeFileSync(path.join(root, 'profile.md'), 'I am Ada.');
    writeFileSync(path.join(root, 'old.md'), 'o'.repeat(300));
    writeFileSync(path.join(root, 'new.md'), 'fresh fact');
    writeFileSync(path.join(root, 'README.md'), 'how memory works');
    utimesSync(path.join(root, 'old.md'), new Date(2020, 1, 1), new Date(2020, 1, 1));
    const snapshot = memory.snapshot(120);
    expect(snapshot.included).toEqual(['profile.md', 'new.md']);
    expect(snapshot.omitted).toEqual(['old.md']);
    expect(snapshot.text).toMatch(/Not shown for lack of space.*old\.md/);
    expect(snapshot.text).not.toContain('how memory works');
  });

  it('keeps the end of a single file that is larger than the budget (the newest notes)', async () => {
    const lines = Array.from({ length: 200 }, (_, index) => `- fact number ${index}`).join('\n');
    await memory.write('journal.md', lines);
    const snapshot = memory.snapshot(1000);
    expect(snapshot.text).toContain('fact number 199');
    expect(snapshot.text).not.toContain('fact number 0\n');
    expect(snapshot.text).toContain('beginning left out');
  });

  it('sees files added and removed by hand in the next listing, also when the folder listing is reused', () => {
    const root = path.join(dir, 'memory');
    const notes = path.join(root, 'notes');
    mkdirSync(notes);
    writeFileSync(path.join(notes, 'a.md'), 'first');
    // Folders that last changed long ago: their listings are reused while their mtimes stay the same.
    const past = new Date(Date.now() - 60_000);
    utimesSync(notes, past, past);
    utimesSync(root, past, past);
    expect(memory.list().map((file) => file.path)).toEqual(['notes/a.md']);
    expect(memory.list().map((file) => file.path)).toEqual(['notes/a.md']);
    writeFileSync(path.join(notes, 'b.md'), 'second');
    expect(memory.list().map((file) => file.path)).toEqual(['notes/a.md', 'notes/b.md']);
    rmSync(path.join(notes, 'a.md'));
    expect(memory.list().map((file) => file.path)).toEqual(['notes/b.md']);
    // A file's own edit does not touch its folder's mtime: its size and mtime are still read on every listing.
    writeFileSync(path.join(notes, 'b.md'), 'second, longer');
    expect(memory.list().find((file) => file.path === 'notes/b.md')?.size).toBe('second, longer'.length);
  });

  it('does not trust a listing taken in the same moment the folder changed (a change in the same clock tick)', () => {
    const root = path.join(dir, 'memory');
    writeFileSync(path.join(root, 'a.md'), 'first');
    const tick = new Date(Math.floor(Date.now() / 1000) * 1000);
    utimesSync(root, tick, tick);
    expect(memory.list().map((file) => file.path)).toEqual(['a.md']);
    // A second file lands within the same timestamp: the folder's mtime does not move.
    writeFileSync(path.join(root, 'b.md'), 'second');
    utimesSync(root, tick, tick);
    expect(memory.list().map((file) => file.path)).toEqual(['a.md', 'b.md']);
  });
});
