import type { Logger } from '../../log.js';
import type { Embedder } from './embedder.js';
import { embeddingText, type MemorySearchIndex, type RankedEntry, type SearchHit } from './search-index.js';
import type { VectorStore } from './vector-store.js';

/** Reciprocal rank fusion's constant (Cormack et al. 2009): a rank's weight is 1 / (K + rank). */
const RRF_K = 60;
/** How deep each ranking goes before fusion. */
const DEPTH = 50;
/** Entries embedded per call to the embedder while catching up. */
const EMBED_BATCH = 64;

export interface HybridSearchDeps {
  index: MemorySearchIndex;
  vectors: VectorStore;
  embedder: Embedder;
  log: Logger;
  /** Brings the entries up to date with the folder (the store's sync). */
  sync: () => void;
}

/**
 * Words and meaning, fused: FTS5's BM25 ranking and the vector ranking of the same entries, combined by reciprocal
 * rank fusion (no score calibration needed between the two). Entries without a vector yet are embedded first, so
 * a file changed since the last search is searched by meaning too. Contract: when the embedder fails, the answer is
 * the full-text ranking, with a log line, never nothing.
 */
export class HybridSearch {
  private readonly deps: HybridSearchDeps;
  private catchingUp: Promise<number> | undefined;

  constructor(deps: HybridSearchDeps) {
    this.deps = deps;
  }

  async search(query: string, limit = 10): Promise<SearchHit[]> {
    const { index, vectors, embedder, log } = this.deps;
    this.deps.sync();
    const words = index.search(query, DEPTH);
    let meaning: Array<{ id: number; distance: number }>;
    try {
      await this.embedPending();
      const [vector] = await embedder.embed([query]);
      if (!vector) throw new Error('the embedder returned no vector for the query');
      meaning = vectors.nearest(embedder.model, vector, DEPTH);
    } catch (error) {
      log.warn({ err: error, model: embedder.model }, 'memory search by meaning failed; answering by words only');
      return index.described(words).slice(0, limit);
    }
    return index.described(fuse(words, meaning, index)).slice(0, limit);
  }

  /** Embeds every entry that has no vector of this model yet; how many. One catch-up at a time. */
  async embedPending(): Promise<number> {
    this.catchingUp ??= this.catchUp().finally(() => {
      this.catchingUp = undefined;
    });
    return this.catchingUp;
  }

  /** Drops vectors no entry uses any more; how many. */
  prune(): number {
    return this.deps.vectors.prune();
  }

  private async catchUp(): Promise<number> {
    const { index, vectors, embedder, log } = this.deps;
    let done = 0;
    for (;;) {
      const pending = index.unembedded(embedder.model, EMBED_BATCH);
      if (pending.length === 0) break;
      if (done === 0 && pending.length === EMBED_BATCH) log.info({ model: embedder.model }, 'embedding memory entries that have no vector yet');
      const embedded = await embedder.embed(pending.map(embeddingText));
      vectors.put(embedder.model, pending.map((chunk, position) => ({ hash: chunk.hash, vector: embedded[position] ?? new Float32Array() })));
      done += pending.length;
    }
    return done;
  }
}

/** Reciprocal rank fusion of the two rankings; an entry found by meaning alone gets the start of its text as snippet. */
function fuse(words: readonly RankedEntry[], meaning: ReadonlyArray<{ id: number }>, index: MemorySearchIndex): RankedEntry[] {
  const scores = new Map<number, number>();
  const add = (id: number, rank: number) => scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + rank + 1));
  words.forEach((hit, rank) => add(hit.id, rank));
  meaning.forEach((hit, rank) => add(hit.id, rank));
  const byWords = new Map(words.map((hit) => [hit.id, hit]));
  const missing = [...scores.keys()].filter((id) => !byWords.has(id));
  const byMeaning = new Map(index.chunks(missing).map((chunk) => [chunk.id, chunk]));
  return [...scores.entries()]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .flatMap(([id]) => {
      const hit = byWords.get(id);
      if (hit) return [hit];
      const chunk = byMeaning.get(id);
      if (!chunk) return [];
      const text = chunk.text.replace(/\s+/g, ' ');
      return [{ id, messageId: chunk.messageId, path: chunk.path, startLine: chunk.startLine, endLine: chunk.endLine, snippet: text.length > 160 ? `${text.slice(0, 160)}…` : text }];
    });
}
