import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import type { Database } from '../db/database.js';
import type { Logger } from '../log.js';
import { writeFileAtomic } from '../lib/atomic-write.js';
import type { Result } from '../lib/result.js';
import { lineDiff } from './diff.js';
import type { MemoryStore, WriteEvent, WriteGuardEvent } from './store.js';

export interface MemoryChange {
  id: number;
  path: string;
  previous: string | null;
  /** null: the change deleted the file (undoing its creation). */
  content: string | null;
  conversationId: string | null;
  kind: 'write' | 'undo' | 'revert';
  revertsId: number | null;
  undoneAt: number | null;
  createdAt: number;
  /** Set on the writes of one consolidation: undone together. */
  batch: string | null;
}

/** The change as it is now (undone) and the new change that records the revert. */
export type RevertResult = Result<{ change: MemoryChange; restored: MemoryChange }>;

const MAX_TRACKED_READS = 10_000;

/**
 * Changes kept per file: the newest 50, older ones dropped as new ones come. Each change holds the file's whole text
 * before and after, so a journal appended to every day grew the database by twice its size every day, without end
 * (3,000 appends of a 117-byte line: 1 GiB); kept per file, the history holds at most 100 copies of each file, and a
 * file's last 50 changes can still be undone.
 */
export const CHANGES_KEPT_PER_FILE = 50;

/**
 * History of memory writes (SQLite, with the previous content), undo/revert, and the hand-edit guard:
 * an overwrite is refused unless this conversation read (or wrote) the file and it has not changed on disk since.
 */
export class MemoryHistory {
  private readonly memory: MemoryStore;
  private readonly db: Database;
  private readonly log: Logger;
  /** `conversation \0 path` → hash of the content the assistant last saw there. */
  private readonly seen = new Map<string, string>();

  constructor(memory: MemoryStore, db: Database, log: Logger) {
    this.memory = memory;
    this.db = db;
    this.log = log;
  }

  /** Wires the store: every write recorded, overwrites guarded. */
  attach(): void {
    this.memory.onWrite((event) => this.recordWrite(event));
    this.memory.addWriteGuard((event) => this.guard(event));
  }

  /** The assistant saw `content` of `path` in `conversationId` (a memory_read). */
  noteRead(conversationId: string, path: string, content: string): void {
    const key = `${conversationId}\u0000${path}`;
    this.seen.delete(key);
    this.seen.set(key, hash(content));
    if (this.seen.size > MAX_TRACKED_READS) {
      const oldest = this.seen.keys().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
  }

  guard(event: WriteGuardEvent): string | undefined {
    // Appends keep what is there; writes not made for a conversation (the operator's tools) are not the assistant's;
    // a checked write (compare-and-swap on the content its tool read) cannot overwrite what nobody saw.
    if (event.mode === 'append' || event.conversationId === undefined || event.checked) return undefined;
    const current = this.readDisk(event.path);
    if (current === null || current === '') return undefined;
    const seen = this.seen.get(`${event.conversationId}\u0000${event.path}`);
    if (seen === undefined) {
      return `${event.path} already exists and you have not read it in this conversation. Read it with memory_read first (overwrite replaces the whole file), or use mode "append".`;
    }
    if (seen !== hash(current)) {
      return `${event.path} changed on disk since you last read it (probably edited by hand). Read it again with memory_read, then write your change so that those edits are kept.`;
    }
    return undefined;
  }

  private recordWrite(event: WriteEvent): void {
    this.db
      .prepare("INSERT INTO memory_history (path, previous, content, conversation_id, kind, created_at, batch) VALUES (?, ?, ?, ?, 'write', ?, ?)")
      .run(event.path, event.previous, event.content, event.conversationId ?? null, Date.now(), event.batch ?? null);
    this.prune(event.path);
    if (event.conversationId !== undefined && event.content !== null) this.noteRead(event.conversationId, event.path, event.content);
  }

  /** Newest first; optionally one file's. */
  list(options: { path?: string; limit?: number } = {}): MemoryChange[] {
    const rows = options.path
      ? this.db.prepare('SELECT * FROM memory_history WHERE path = ? ORDER BY id DESC LIMIT ?').all(options.path, options.limit ?? 50)
      : this.db.prepare('SELECT * FROM memory_history ORDER BY id DESC LIMIT ?').all(options.limit ?? 50);
    return (rows as Row[]).map(fromRow);
  }

  get(id: number): MemoryChange | undefined {
    const row = this.db.prepare('SELECT * FROM memory_history WHERE id = ?').get(id) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  diff(change: MemoryChange): string {
    return lineDiff(change.previous ?? '', change.content ?? '');
  }

  /** The assistant's newest memory write made from this chat (any of its conversations) that is not undone yet. */
  lastChangeOfChat(channel: string, chatId: string): MemoryChange | undefined {
    const row = this.db
      .prepare(
        `SELECT h.* FROM memory_history h JOIN conversations c ON c.id = h.conversation_id
         WHERE c.channel = ? AND c.chat_id = ? AND h.kind = 'write' AND h.undone_at IS NULL ORDER BY h.id DESC LIMIT 1`,
      )
      .get(channel, chatId) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  /**
   * Puts the file back as it was before `change`. Refused when the file changed since (by hand or by a later
   * write) unless `force`; a change that created the file deletes it.
   */
  async revert(change: MemoryChange, options: { kind?: 'undo' | 'revert'; force?: boolean } = {}): Promise<RevertResult> {
    if (change.undoneAt !== null) return { success: false, error: `change #${change.id} to ${change.path} was already reverted` };
    const resolved = this.memory.resolveStored(change.path);
    if (!resolved.success) return { success: false, error: resolved.error };
    const current = this.readDisk(change.path);
    if (!options.force && current !== change.content) {
      return { success: false, error: `${change.path} changed after change #${change.id} (by hand or by a later write); look at it first (familiar memory diff ${change.id}), or revert with --force` };
    }
    if (change.previous === null) rmSync(resolved.value.absolute, { force: true });
    else await writeFileAtomic(resolved.value.absolute, change.previous);
    const now = Date.now();
    const info = this.db.transaction(() => {
      this.db.prepare('UPDATE memory_history SET undone_at = ? WHERE id = ?').run(now, change.id);
      return this.db
        .prepare('INSERT INTO memory_history (path, previous, content, conversation_id, kind, reverts_id, created_at) VALUES (?, ?, ?, NULL, ?, ?, ?)')
        .run(change.path, current, change.previous, options.kind ?? 'revert', change.id, now);
    })();
    this.prune(change.path);
    this.memory.syncIndex();
    this.log.info({ path: change.path, change: change.id }, 'memory change reverted');
    const restored = this.get(Number(info.lastInsertRowid));
    if (!restored) return { success: false, error: 'the revert was not recorded' };
    return { success: true, value: { change: { ...change, undoneAt: now }, restored } };
  }

  /** The changes of one batch (a consolidation), in the order they were made. */
  batch(batch: string): MemoryChange[] {
    return (this.db.prepare("SELECT * FROM memory_history WHERE batch = ? AND kind = 'write' ORDER BY id").all(batch) as Row[]).map(fromRow);
  }

  /**
   * Undoes every change of a batch, or none: refused when any of its files changed since (unless `force`).
   */
  async revertBatch(batch: string, options: { force?: boolean } = {}): Promise<Result<{ files: string[] }>> {
    const changes = this.batch(batch).filter((change) => change.undoneAt === null);
    if (changes.length === 0) return { success: false, error: `nothing of change ${batch} is left to undo` };
    if (!options.force) {
      const moved = changes.filter((change) => this.readDisk(change.path) !== change.content);
      if (moved.length > 0) return { success: false, error: `${moved.map((change) => change.path).join(', ')} changed since (by hand or by a later write); revert with --force` };
    }
    for (const change of changes.reverse()) {
      const result = await this.revert(change, { kind: 'undo', force: true });
      if (!result.success) return { success: false, error: result.error };
    }
    return { success: true, value: { files: changes.map((change) => change.path) } };
  }

  /**
   * Drops the changes of `path` older than its newest CHANGES_KEPT_PER_FILE (one seek on the (path, id) index). A
   * consolidation's changes are undone together or not at all: when one of them goes, the rest of its batch goes too,
   * so that undoing it can never put back only some of its files.
   */
  private prune(path: string): void {
    const older = 'path = ? AND id < (SELECT id FROM memory_history WHERE path = ? ORDER BY id DESC LIMIT 1 OFFSET ?)';
    const args = [path, path, CHANGES_KEPT_PER_FILE - 1] as const;
    this.db.transaction(() => {
      this.db.prepare(`DELETE FROM memory_history WHERE batch IN (SELECT DISTINCT batch FROM memory_history WHERE ${older} AND batch IS NOT NULL)`).run(...args);
      this.db.prepare(`DELETE FROM memory_history WHERE ${older}`).run(...args);
    })();
  }

  private readDisk(path: string): string | null {
    const resolved = this.memory.resolveStored(path);
    if (!resolved.success) return null;
    try {
      return readFileSync(resolved.value.absolute, 'utf8');
    } catch {
      return null;
    }
  }
}

interface Row {
  id: number;
  path: string;
  previous: string | null;
  content: string | null;
  conversation_id: string | null;
  kind: MemoryChange['kind'];
  reverts_id: number | null;
  undone_at: number | null;
  created_at: number;
  batch: string | null;
}

function fromRow(row: Row): MemoryChange {
  return {
    id: row.id, path: row.path, previous: row.previous, content: row.content, conversationId: row.conversation_id,
    kind: row.kind, revertsId: row.reverts_id, undoneAt: row.undone_at, createdAt: row.created_at, batch: row.batch,
  };
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
