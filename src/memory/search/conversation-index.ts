import type { Database } from '../../db/database.js';
import { hashOf } from './chunks.js';

/** Who said a message found in a past conversation, when, and the outside sources in play when it was made. */
export interface ConversationRef {
  id: string;
  role: 'user' | 'assistant';
  /** When the message was stored (milliseconds since the epoch). */
  at: number;
  /** Outside sources in play when the message was made (a tainted turn); empty for the person's own words. */
  sources: readonly string[];
  /** The turn that made it. */
  turnId: string | null;
}

/** How far the messages were read: the highest message id looked at. */
const MARK = 'search.messages_mark';
/** A message longer than this is cut into pieces at paragraph ends: one entry stays one embedding input. */
const MAX_PIECE_CHARS = 2000;
/** Messages read per statement while catching up (a first index of a long history runs in batches). */
const BATCH = 500;

/**
 * The person's and the assistant's messages of past chats as memory entries (rows of `memory_chunks` with a
 * `message_id`, in the same `memory_fts`), so one search ranks them with the files' entries. Only chats count: a
 * job's or a skill's run is the assistant talking to itself. Tool messages are never indexed (their text is outside
 * content), nor system prompts (never stored). Incremental: a high-water mark of message id, so a search reads only
 * the messages written since the last one. Contract: derived, like the files' entries; dropping it loses nothing.
 */
export class ConversationIndex {
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  /** Indexes the messages written since the last sync; how many entries it added. One range read on the primary key. */
  sync(): number {
    const select = this.db.prepare(
      `SELECT m.id AS id, m.conversation_id AS conversationId, m.body AS body FROM messages m
       JOIN conversations c ON c.id = m.conversation_id
       WHERE m.id > ? AND m.id <= ? AND c.kind = 'chat' AND m.role IN ('user', 'assistant') ORDER BY m.id LIMIT ?`,
    );
    const insertChunk = this.db.prepare("INSERT INTO memory_chunks (path, start_line, end_line, heading, text, hash, message_id) VALUES (?, 0, 0, '', ?, ?, ?)");
    const insertText = this.db.prepare("INSERT INTO memory_fts (rowid, heading, text) VALUES (?, '', ?)");
    return this.db.transaction(() => {
      let mark = this.mark();
      const last = (this.db.prepare('SELECT MAX(id) AS id FROM messages').get() as { id: number | null }).id ?? 0;
      if (last <= mark) return 0;
      let added = 0;
      for (;;) {
        const rows = select.all(mark, last, BATCH) as Array<{ id: number; conversationId: string; body: string }>;
        for (const row of rows) {
          for (const piece of piecesOf(textOf(row.body))) {
            const info = insertChunk.run(row.conversationId, piece, hashOf(piece), row.id);
            insertText.run(info.lastInsertRowid, piece);
            added += 1;
          }
        }
        if (rows.length < BATCH) break;
        mark = rows[rows.length - 1]?.id ?? last;
      }
      this.setMark(last);
      return added;
    })();
  }

  /** Every message entry dropped and the mark reset: the next sync reads every message again. */
  clear(): void {
    this.db.exec(`DELETE FROM memory_fts WHERE rowid IN (SELECT id FROM memory_chunks WHERE message_id IS NOT NULL);
      DELETE FROM memory_chunks WHERE message_id IS NOT NULL;`);
    this.db.prepare('DELETE FROM memory_state WHERE key = ?').run(MARK);
  }

  /** Messages indexed. */
  count(): number {
    return (this.db.prepare('SELECT COUNT(DISTINCT message_id) AS n FROM memory_chunks WHERE message_id IS NOT NULL').get() as { n: number }).n;
  }

  /** The conversation, author, time and sources of each message still stored (a message gone is left out). */
  describe(messageIds: readonly number[]): Map<number, ConversationRef> {
    const found = new Map<number, ConversationRef>();
    if (messageIds.length === 0) return found;
    const unique = [...new Set(messageIds)];
    const rows = this.db
      .prepare(`SELECT id, conversation_id AS conversationId, role, created_at AS at, sources, turn_id AS turnId FROM messages WHERE id IN (${unique.map(() => '?').join(',')})`)
      .all(...unique) as Array<{ id: number; conversationId: string; role: string; at: number; sources: string | null; turnId: string | null }>;
    for (const row of rows) {
      found.set(row.id, {
        id: row.conversationId, role: row.role === 'user' ? 'user' : 'assistant', at: row.at, sources: sourcesOf(row.sources), turnId: row.turnId,
      });
    }
    return found;
  }

  private mark(): number {
    const row = this.db.prepare('SELECT value FROM memory_state WHERE key = ?').get(MARK) as { value: string } | undefined;
    return row ? Number(row.value) : 0;
  }

  private setMark(id: number): void {
    this.db.prepare('INSERT INTO memory_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(MARK, String(id));
  }
}

/** The text of a stored message (its JSON body): a string, or the text parts of a list (an image's caption). */
function textOf(body: string): string {
  let message: { content?: unknown };
  try {
    message = JSON.parse(body) as { content?: unknown };
  } catch {
    return '';
  }
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => (typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string' ? part.text : ''))
    .filter((text) => text !== '')
    .join('\n');
}

/** A message's text in pieces of at most MAX_PIECE_CHARS, cut at paragraph ends where it can be. */
function piecesOf(text: string): string[] {
  const pieces: string[] = [];
  let current = '';
  for (const paragraph of text.split(/\n\s*\n/)) {
    const trimmed = paragraph.trim();
    if (trimmed === '') continue;
    if (current !== '' && current.length + trimmed.length + 2 > MAX_PIECE_CHARS) {
      pieces.push(current);
      current = '';
    }
    current = current === '' ? trimmed : `${current}\n\n${trimmed}`;
    while (current.length > MAX_PIECE_CHARS) {
      pieces.push(current.slice(0, MAX_PIECE_CHARS));
      current = current.slice(MAX_PIECE_CHARS);
    }
  }
  if (current.trim() !== '') pieces.push(current);
  return pieces;
}

function sourcesOf(json: string | null): string[] {
  if (json === null) return [];
  try {
    const parsed = JSON.parse(json) as unknown;
    return Array.isArray(parsed) ? parsed.filter((source): source is string => typeof source === 'string') : ['unknown'];
  } catch {
    // A label that cannot be read is still a label: fail closed.
    return ['unknown'];
  }
}
