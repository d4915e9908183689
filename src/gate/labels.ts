import type { Database } from '../db/database.js';

/** What a label is on: a memory file (by its folder-relative path) or a skill (by id). */
export type LabelKind = 'memory' | 'skill';

/** Labels are read at most this often per kind (every turn asks for the memory folder's): another process may change them. */
const FRESH_MS = 500;

/**
 * Provenance labels on what outlives a turn (SQLite table `provenance`): a memory file written while outside content
 * was in play, a skill drafted so or installed from a hub. A label is added by the code that writes the thing and
 * removed only by the person (`familiar memory trust`, `/trust`, activating a skill) or when the thing is deleted.
 */
export class ProvenanceLabels {
  private readonly statements;
  private readonly cache = new Map<LabelKind, { at: number; labels: Map<string, readonly string[]> }>();
  private readonly now: () => number;

  constructor(db: Database, now: () => number = Date.now) {
    this.now = now;
    this.statements = {
      upsert: db.prepare(`INSERT INTO provenance (kind, key, sources, created_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (kind, key) DO UPDATE SET sources = excluded.sources`),
      remove: db.prepare('DELETE FROM provenance WHERE kind = ? AND key = ?'),
      list: db.prepare('SELECT key, sources FROM provenance WHERE kind = ? ORDER BY key'),
    };
  }

  /** Adds `sources` to the label of `key` (a label only grows until the person clears it). */
  label(kind: LabelKind, key: string, sources: readonly string[]): void {
    if (sources.length === 0) return;
    const merged = [...new Set([...(this.get(kind, key) ?? []), ...sources])];
    this.statements.upsert.run(kind, key, JSON.stringify(merged), this.now());
    this.cache.delete(kind);
  }

  /** The outside sources `key` carries, or undefined for the person's own. */
  get(kind: LabelKind, key: string): readonly string[] | undefined {
    return this.all(kind).get(key);
  }

  /** Removes the label (the person vouched for it, or it was deleted). True when there was one. */
  clear(kind: LabelKind, key: string): boolean {
    this.cache.delete(kind);
    return this.statements.remove.run(kind, key).changes > 0;
  }

  /** Every label of a kind, read again when older than FRESH_MS. */
  all(kind: LabelKind): ReadonlyMap<string, readonly string[]> {
    const now = this.now();
    const cached = this.cache.get(kind);
    if (cached && now - cached.at < FRESH_MS) return cached.labels;
    const rows = this.statements.list.all(kind) as Array<{ key: string; sources: string }>;
    const labels = new Map(rows.map((row) => [row.key, JSON.parse(row.sources) as string[]] as const));
    this.cache.set(kind, { at: now, labels });
    return labels;
  }
}
