import type { Database } from '../../db/database.js';
import { chunkMarkdown, hashOf } from './chunks.js';
import { ConversationIndex, type ConversationRef } from './conversation-index.js';

/**
 * One entry found: its file and lines (1-based, inclusive), a piece of its text with the matched words «marked». A
 * message of a past conversation has the conversation as its path, lines 0, and `conversation` saying who said it.
 */
export interface SearchHit {
  path: string;
  startLine: number;
  endLine: number;
  snippet: string;
  conversation?: ConversationRef;
}

export type { ConversationRef } from './conversation-index.js';

/** A ranked entry before it is described: its row, and the message it comes from (null: a file's entry). */
export type RankedEntry = SearchHit & { id: number; messageId: number | null };

export interface IndexedChunk {
  id: number;
  path: string;
  startLine: number;
  endLine: number;
  heading: string;
  text: string;
  hash: string;
  messageId: number | null;
}

/**
 * The memory folder's entries in SQLite, derived from the files: `memory_chunks` (each list item or paragraph with
 * its lines) and `memory_fts` (FTS5, BM25) over them; `memory_files` keeps the mtime and size each file was indexed
 * at, so a sync reads again only what changed. Nothing here is the truth: dropping it all loses nothing.
 */
export class MemorySearchIndex {
  /** The messages of past chats, entries in the same tables. */
  readonly conversations: ConversationIndex;
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
    this.conversations = new ConversationIndex(db);
  }

  /** The files as they are now: what changed is indexed again, what is gone is dropped. */
  sync(files: ReadonlyArray<{ path: string; mtimeMs: number; size: number }>, read: (path: string) => string | undefined): void {
    const known = new Map(
      (this.db.prepare('SELECT path, mtime_ms AS mtimeMs, size FROM memory_files').all() as Array<{ path: string; mtimeMs: number; size: number }>).map((row) => [row.path, row]),
    );
    this.db.transaction(() => {
      for (const file of files) {
        const seen = known.get(file.path);
        known.delete(file.path);
        if (seen && seen.mtimeMs === file.mtimeMs && seen.size === file.size) continue;
        const content = read(file.path);
        if (content !== undefined) this.put(file.path, content, file);
      }
      for (const gone of known.keys()) this.remove(gone);
    })();
  }

  /** One file's entries replaced by those of `content` (the store's own write, seen at once). */
  update(path: string, content: string, stats: { mtimeMs: number; size: number }): void {
    this.db.transaction(() => this.put(path, content, stats))();
  }

  remove(path: string): void {
    this.db.prepare('DELETE FROM memory_fts WHERE rowid IN (SELECT id FROM memory_chunks WHERE path = ? AND message_id IS NULL)').run(path);
    this.db.prepare('DELETE FROM memory_chunks WHERE path = ? AND message_id IS NULL').run(path);
    this.db.prepare('DELETE FROM memory_files WHERE path = ?').run(path);
  }

  /**
   * Everything dropped: the next sync reads every file and every message again (`familiar memory reindex`). Vectors
   * are a cache and stay.
   */
  clear(): void {
    this.db.transaction(() => {
      this.db.exec('DELETE FROM memory_fts; DELETE FROM memory_chunks; DELETE FROM memory_files;');
      this.conversations.clear();
    })();
  }

  /**
   * BM25 over entries: every word first, and when nothing has them all, any word (still ranked). A heading's words
   * count for the entries under it, at half weight.
   */
  search(query: string, limit: number): RankedEntry[] {
    const terms = query.match(/[\p{L}\p{N}_]+/gu) ?? [];
    if (terms.length === 0) return [];
    const statement = this.db.prepare(
      `SELECT c.id AS id, c.path AS path, c.start_line AS startLine, c.end_line AS endLine, c.message_id AS messageId, snippet(memory_fts, 1, '«', '»', '…', 24) AS snippet
       FROM memory_fts JOIN memory_chunks c ON c.id = memory_fts.rowid
       WHERE memory_fts MATCH ? ORDER BY bm25(memory_fts, 0.5, 1.0) LIMIT ?`,
    );
    const quoted = terms.map((term) => `"${term}"`);
    type Row = RankedEntry;
    let rows = statement.all(quoted.join(' AND '), limit) as Row[];
    if (rows.length < limit && terms.length > 1) {
      const seen = new Set(rows.map((row) => row.id));
      const more = (statement.all(quoted.join(' OR '), limit) as Row[]).filter((row) => !seen.has(row.id));
      rows = [...rows, ...more].slice(0, limit);
    }
    return rows;
  }

  /**
   * Hits as the person sees them: a message's entry says its conversation, author, time and sources; an entry whose
   * message is gone is left out. Order kept.
   */
  described(entries: readonly RankedEntry[]): SearchHit[] {
    const messages = this.conversations.describe(entries.flatMap((entry) => (entry.messageId === null ? [] : [entry.messageId])));
    return entries.flatMap((entry) => {
      const hit: SearchHit = { path: entry.path, startLine: entry.startLine, endLine: entry.endLine, snippet: entry.snippet };
      if (entry.messageId === null) return [hit];
      const conversation = messages.get(entry.messageId);
      return conversation ? [{ ...hit, conversation }] : [];
    });
  }

  chunks(ids: readonly number[]): IndexedChunk[] {
    if (ids.length === 0) return [];
    const rows = this.db.prepare(`SELECT id, path, start_line AS startLine, end_line AS endLine, heading, text, hash, message_id AS messageId FROM memory_chunks WHERE id IN (${ids.map(() => '?').join(',')})`).all(...ids) as IndexedChunk[];
    return rows;
  }

  /** Entries whose text has no vector for `model` yet. */
  unembedded(model: string, limit: number): IndexedChunk[] {
    return this.db.prepare(
      `SELECT c.id, c.path, c.start_line AS startLine, c.end_line AS endLine, c.heading, c.text, c.hash, c.message_id AS messageId FROM memory_chunks c
       WHERE NOT EXISTS (SELECT 1 FROM memory_embeddings e WHERE e.model = ? AND e.hash = c.hash) GROUP BY c.hash LIMIT ?`,
    ).all(model, limit) as IndexedChunk[];
  }

  /** The files' entries. */
  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM memory_chunks WHERE message_id IS NULL').get() as { n: number }).n;
  }

  /**
   * One file's entries brought to `content`: an entry whose heading and text are unchanged keeps its row (its lines
   * moved if they did), only entries new or changed are written to the full-text index, and those gone are dropped.
   * An append to a long file costs the new entries, not the file.
   */
  private put(path: string, content: string, stats: { mtimeMs: number; size: number }): void {
    const old = this.db.prepare('SELECT id, start_line AS startLine, end_line AS endLine, heading, text FROM memory_chunks WHERE path = ? AND message_id IS NULL ORDER BY id').all(path) as Array<{ id: number; startLine: number; endLine: number; heading: string; text: string }>;
    const unmatched = new Map<string, typeof old>();
    for (const row of old) {
      const key = `${row.heading}\u0000${row.text}`;
      const same = unmatched.get(key);
      if (same) same.push(row);
      else unmatched.set(key, [row]);
    }
    const insertChunk = this.db.prepare('INSERT INTO memory_chunks (path, start_line, end_line, heading, text, hash) VALUES (?, ?, ?, ?, ?, ?)');
    const insertText = this.db.prepare('INSERT INTO memory_fts (rowid, heading, text) VALUES (?, ?, ?)');
    const moveChunk = this.db.prepare('UPDATE memory_chunks SET start_line = ?, end_line = ? WHERE id = ?');
    for (const chunk of chunkMarkdown(content)) {
      const kept = unmatched.get(`${chunk.heading}\u0000${chunk.text}`)?.shift();
      if (kept) {
        if (kept.startLine !== chunk.startLine || kept.endLine !== chunk.endLine) moveChunk.run(chunk.startLine, chunk.endLine, kept.id);
        continue;
      }
      const info = insertChunk.run(path, chunk.startLine, chunk.endLine, chunk.heading, chunk.text, hashOf(embeddingText(chunk)));
      insertText.run(info.lastInsertRowid, chunk.heading, chunk.text);
    }
    const deleteText = this.db.prepare('DELETE FROM memory_fts WHERE rowid = ?');
    const deleteChunk = this.db.prepare('DELETE FROM memory_chunks WHERE id = ?');
    for (const rows of unmatched.values()) {
      for (const row of rows) {
        deleteText.run(row.id);
        deleteChunk.run(row.id);
      }
    }
    this.db
      .prepare('INSERT INTO memory_files (path, mtime_ms, size) VALUES (?, ?, ?) ON CONFLICT(path) DO UPDATE SET mtime_ms = excluded.mtime_ms, size = excluded.size')
      .run(path, stats.mtimeMs, stats.size);
  }
}

/** What an embedder is given for an entry: its heading gives a bare list item its subject ("Health: 8 hours"). */
export function embeddingText(chunk: { heading: string; text: string }): string {
  return chunk.heading === '' ? chunk.text : `${chunk.heading}: ${chunk.text}`;
}
