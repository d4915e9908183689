import type { Database } from '../db/database.js';
import type { MemoryStore } from '../memory/store.js';
import { NOTES_DIR, parseNote, type Note } from './note-files.js';

export interface NoteQuery {
  query?: string;
  tag?: string;
  type?: string;
  /** YYYY-MM-DD bounds (inclusive) on `date` (default: updated). */
  after?: string;
  before?: string;
  date?: 'created' | 'updated';
  limit?: number;
}

export interface NoteHit {
  note: Note;
  /** A piece of the body around the match, `«terms»` marked; the start of the body without a query. */
  snippet: string;
}

interface Indexed {
  mtimeMs: number;
  size: number;
  note: Note;
}

/**
 * Full-text search over notes: title, tags and body in an FTS5 table ranked with BM25 (a title match counts
 * ten times a body match, a tag five). The table lives in SQLite's `temp` schema, rebuilt from the files at
 * start and brought up to date with the folder (mtime and size, so hand edits count) before every search:
 * the files stay the only truth and no migration is needed.
 */
export class NoteIndex {
  private readonly db: Database;
  private readonly memory: MemoryStore;
  private readonly known = new Map<string, Indexed>();
  private ready = false;

  constructor(options: { db: Database; memory: MemoryStore }) {
    this.db = options.db;
    this.memory = options.memory;
  }

  private ensureTable(): void {
    if (this.ready) return;
    this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.notes_fts USING fts5 (path UNINDEXED, title, tags, body, tokenize = 'porter unicode61')`);
    this.db.exec('DELETE FROM temp.notes_fts');
    this.ready = true;
  }

  /** Re-reads notes added, changed or removed since the last sync. */
  sync(): void {
    this.ensureTable();
    const files = this.memory.list().filter((file) => file.path.startsWith(`${NOTES_DIR}/`) && /\.md$/i.test(file.path));
    const seen = new Set<string>();
    const remove = this.db.prepare('DELETE FROM temp.notes_fts WHERE path = ?');
    const insert = this.db.prepare('INSERT INTO temp.notes_fts (path, title, tags, body) VALUES (?, ?, ?, ?)');
    this.db.transaction(() => {
      for (const file of files) {
        seen.add(file.path);
        const indexed = this.known.get(file.path);
        if (indexed && indexed.mtimeMs === file.mtimeMs && indexed.size === file.size) continue;
        let note: Note;
        try {
          note = parseNote(file.path, this.memory.read(file.path));
        } catch {
          continue;
        }
        remove.run(file.path);
        insert.run(file.path, note.title, note.tags.join(' '), note.body);
        this.known.set(file.path, { mtimeMs: file.mtimeMs, size: file.size, note });
      }
      for (const path of [...this.known.keys()]) {
        if (seen.has(path)) continue;
        remove.run(path);
        this.known.delete(path);
      }
    })();
  }

  search(query: NoteQuery): NoteHit[] {
    this.sync();
    const limit = query.limit ?? 10;
    const terms = (query.query ?? '').match(/[\p{L}\p{N}_]+/gu) ?? [];
    let hits: NoteHit[];
    if (terms.length === 0) {
      hits = [...this.known.values()]
        .map(({ note }) => ({ note, snippet: opening(note.body) }))
        .sort((a, b) => dateOf(b.note, query.date).localeCompare(dateOf(a.note, query.date)));
    } else {
      const statement = this.db.prepare(
        `SELECT path, snippet(notes_fts, 3, '«', '»', '…', 20) AS snippet FROM temp.notes_fts WHERE notes_fts MATCH ? ORDER BY bm25(notes_fts, 0.0, 10.0, 5.0, 1.0) LIMIT ?`,
      );
      const quoted = terms.map((term) => `"${term}"`);
      // Filters apply after ranking: fetch enough rows that a filtered page still fills.
      const fetch = Math.max(limit * 20, 200);
      let rows = statement.all(quoted.join(' AND '), fetch) as Array<{ path: string; snippet: string }>;
      if (rows.length === 0 && terms.length > 1) rows = statement.all(quoted.join(' OR '), fetch) as Array<{ path: string; snippet: string }>;
      hits = rows.flatMap((row) => {
        const note = this.known.get(row.path)?.note;
        if (!note) return [];
        const snippet = row.snippet.includes('«') ? row.snippet : opening(note.body);
        return [{ note, snippet }];
      });
    }
    return hits.filter((hit) => matches(hit.note, query)).slice(0, limit);
  }
}

function matches(note: Note, query: NoteQuery): boolean {
  if (query.tag !== undefined) {
    const wanted = query.tag.replace(/^#/, '').toLowerCase();
    // Obsidian's nested tags: #work matches #work/project too.
    if (!note.tags.some((tag) => tag.toLowerCase() === wanted || tag.toLowerCase().startsWith(`${wanted}/`))) return false;
  }
  if (query.type !== undefined && (note.type ?? 'note') !== query.type) return false;
  const day = dateOf(note, query.date).slice(0, 10);
  if (query.after !== undefined && (day === '' || day < query.after)) return false;
  if (query.before !== undefined && (day === '' || day > query.before)) return false;
  return true;
}

function dateOf(note: Note, which: 'created' | 'updated' | undefined): string {
  return (which === 'created' ? note.created : (note.updated ?? note.created)) ?? '';
}

function opening(body: string): string {
  const text = body.replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
