import { createRequire } from 'node:module';
import type { Database } from '../../db/database.js';
import type { Logger } from '../../log.js';

const load = createRequire(import.meta.url);

/**
 * Entry vectors in SQLite (`memory_embeddings`: Float32 blobs keyed by model and entry text hash) and the nearest to
 * a query. The distance is computed by `sqlite-vec`'s `vec_distance_cosine` inside SQLite, over a plain table rather
 * than a `vec0` index: vec0 fixes the dimension at creation, and a folder of Markdown holds thousands of entries, not
 * millions, so a full scan in C is milliseconds. Where the extension cannot load (a platform it has no binary for),
 * the same scan runs in JavaScript (fine to about 50,000 entries) and the log says so once.
 */
export class VectorStore {
  private readonly db: Database;
  private readonly log: Logger;
  private extension: boolean | undefined;

  constructor(db: Database, log: Logger) {
    this.db = db;
    this.log = log;
  }

  /** Whether sqlite-vec is loaded into the connection (tried once). */
  get native(): boolean {
    if (this.extension === undefined) {
      try {
        (load('sqlite-vec') as { load(db: Database): void }).load(this.db);
        this.extension = true;
      } catch (error) {
        this.extension = false;
        this.log.warn({ err: error }, 'sqlite-vec did not load; vector search scans in JavaScript instead');
      }
    }
    return this.extension;
  }

  put(model: string, entries: ReadonlyArray<{ hash: string; vector: Float32Array }>): void {
    const insert = this.db.prepare('INSERT OR REPLACE INTO memory_embeddings (model, hash, vector) VALUES (?, ?, ?)');
    this.db.transaction(() => {
      for (const entry of entries) insert.run(model, entry.hash, Buffer.from(entry.vector.buffer, entry.vector.byteOffset, entry.vector.byteLength));
    })();
  }

  /** The `limit` entries nearest to `query` (cosine distance, smallest first), among those with a vector of `model`. */
  nearest(model: string, query: Float32Array, limit: number): Array<{ id: number; distance: number }> {
    const blob = Buffer.from(query.buffer, query.byteOffset, query.byteLength);
    if (this.native) {
      return this.db.prepare(
        `SELECT c.id AS id, vec_distance_cosine(e.vector, ?) AS distance FROM memory_chunks c
         JOIN memory_embeddings e ON e.model = ? AND e.hash = c.hash
         WHERE length(e.vector) = ? ORDER BY distance LIMIT ?`,
      ).all(blob, model, blob.length, limit) as Array<{ id: number; distance: number }>;
    }
    const rows = this.db.prepare('SELECT c.id AS id, e.vector AS vector FROM memory_chunks c JOIN memory_embeddings e ON e.model = ? AND e.hash = c.hash').iterate(model) as Iterable<{ id: number; vector: Buffer }>;
    const scored: Array<{ id: number; distance: number }> = [];
    for (const row of rows) {
      if (row.vector.length !== blob.length) continue;
      const vector = new Float32Array(row.vector.buffer, row.vector.byteOffset, row.vector.byteLength / 4);
      let dot = 0;
      for (let index = 0; index < vector.length; index += 1) dot += (vector[index] ?? 0) * (query[index] ?? 0);
      // Vectors are stored at unit length: cosine distance is 1 - the dot product.
      scored.push({ id: row.id, distance: 1 - dot });
    }
    return scored.sort((a, b) => a.distance - b.distance).slice(0, limit);
  }

  /** Vectors no entry uses any more (the text changed or went): dropped after a reindex. */
  prune(): number {
    return this.db.prepare('DELETE FROM memory_embeddings WHERE hash NOT IN (SELECT hash FROM memory_chunks)').run().changes;
  }
}
