import type { Database } from '../db/database.js';

/**
 * What the console chat shows besides the conversation's messages (table `console_items`):
 * - `artifact`: a file a reply carried, kept so it can be downloaded later;
 * - `delivery`: a job's or skill's result delivered to the console;
 * - `command`: a chat command the person typed (`name`) and its answer (`text`), which no turn records.
 */
export type ItemKind = 'artifact' | 'delivery' | 'command';

export interface ConsoleItem {
  id: number;
  conversationId: string;
  kind: ItemKind;
  name: string | undefined;
  mimeType: string | undefined;
  text: string | undefined;
  size: number;
  createdAt: number;
}

/** A file larger than this is not kept: the chat says so instead. */
export const MAX_ARTIFACT_BYTES = 20 * 1024 * 1024;

interface Row {
  id: number;
  conversation_id: string;
  kind: ItemKind;
  name: string | null;
  mime_type: string | null;
  text: string | null;
  size: number;
  created_at: number;
}

export class ConsoleItems {
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  add(item: { conversationId: string; kind: ItemKind; name?: string; mimeType?: string; text?: string; content?: Buffer }, now = Date.now()): ConsoleItem {
    const info = this.db
      .prepare('INSERT INTO console_items (conversation_id, kind, name, mime_type, text, content, size, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(item.conversationId, item.kind, item.name ?? null, item.mimeType ?? null, item.text ?? null, item.content ?? null, item.content?.length ?? 0, now);
    return {
      id: Number(info.lastInsertRowid), conversationId: item.conversationId, kind: item.kind, name: item.name, mimeType: item.mimeType,
      text: item.text, size: item.content?.length ?? 0, createdAt: now,
    };
  }

  /** A conversation's items, oldest first (without file contents). */
  of(conversationId: string, limit = 500): ConsoleItem[] {
    const rows = this.db
      .prepare('SELECT id, conversation_id, kind, name, mime_type, text, size, created_at FROM console_items WHERE conversation_id = ? ORDER BY id DESC LIMIT ?')
      .all(conversationId, limit) as Row[];
    return rows.reverse().map(fromRow);
  }

  /** A kept file and its bytes. */
  artifact(id: number): { item: ConsoleItem; content: Buffer } | undefined {
    const row = this.db.prepare("SELECT * FROM console_items WHERE id = ? AND kind = 'artifact' AND content IS NOT NULL").get(id) as (Row & { content: Buffer }) | undefined;
    return row ? { item: fromRow(row), content: row.content } : undefined;
  }
}

function fromRow(row: Row): ConsoleItem {
  return {
    id: row.id, conversationId: row.conversation_id, kind: row.kind, name: row.name ?? undefined, mimeType: row.mime_type ?? undefined,
    text: row.text ?? undefined, size: row.size, createdAt: row.created_at,
  };
}
