import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../src/db/database.js';
import { MemorySearchIndex } from '../../../src/memory/search/search-index.js';
import { tempDir } from '../../helpers/app.js';

describe("a file's entries in the search index", () => {
  let db: Database;
  let index: MemorySearchIndex;
  const stats = { mtimeMs: 1, size: 1 };
  const rows = () => db.prepare("SELECT id, start_line AS line, text FROM memory_chunks WHERE path = 'log.md' ORDER BY start_line").all() as Array<{ id: number; line: number; text: string }>;
  const found = (query: string) => index.search(query, 10).map((hit) => `${hit.path}:${hit.startLine}`);

  beforeEach(() => {
    db = openDatabase(path.join(tempDir(), 'data'));
    index = new MemorySearchIndex(db);
  });

  afterEach(() => db.close());

  it('writes only the new entries of an append: the others keep their rows', () => {
    const lines = Array.from({ length: 200 }, (_, at) => `- entry ${at} about topic${at}`);
    index.update('log.md', `${lines.join('\n')}\n`, stats);
    const before = rows();
    index.update('log.md', `${[...lines, '- the newest about apples'].join('\n')}\n`, stats);
    const after = rows();
    expect(after.slice(0, 200)).toEqual(before);
    expect(after).toHaveLength(201);
    expect(found('apples')).toEqual(['log.md:201']);
    expect(found('topic7')).toEqual(['log.md:8']);
  });

  it('moves the lines of entries that moved, drops the edited entry\'s old text and finds its new one', () => {
    index.update('log.md', '- cats\n- dogs\n- birds\n', stats);
    const [cats, dogs, birds] = rows();
    index.update('log.md', 'Pets, kept here.\n\n- cats\n- ferrets\n- birds\n- birds\n', stats);
    expect(rows().map((row) => [row.line, row.text])).toEqual([[1, 'Pets, kept here.'], [3, '- cats'], [4, '- ferrets'], [5, '- birds'], [6, '- birds']]);
    expect(rows()[1]?.id).toBe(cats?.id);
    expect(rows().map((row) => row.id)).toContain(birds?.id);
    expect(rows().map((row) => row.id)).not.toContain(dogs?.id);
    expect(found('dogs')).toEqual([]);
    expect(found('ferrets')).toEqual(['log.md:4']);
    expect(found('birds').sort()).toEqual(['log.md:5', 'log.md:6']);
  });
});
