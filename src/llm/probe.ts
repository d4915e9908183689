import { APIError } from 'openai';
import OpenAI from 'openai';
import type { DoctorLine } from '../part.js';
import type { LlmConfig } from '../config/schema.js';
import { llmConfigured, NO_KEY } from './client.js';
import { describeLlmFailure } from './failure.js';

export interface ProbeOptions {
  /** Also make one tiny completion with the model (what `familiar init` does to test key and model for real). */
  complete?: boolean;
  /** Only list the models (no completion, even when the server has no list). */
  listOnly?: boolean;
  timeoutMs?: number;
}

/**
 * `familiar doctor`'s and `familiar init`'s LLM line: is the server reachable, is the key accepted, is the model
 * offered (and, with `complete`, does it answer)? The detail of a failure says what to check.
 * Contract: never throws.
 */
export async function probeLlm(config: LlmConfig, options: ProbeOptions = {}): Promise<DoctorLine & { models?: string[] }> {
  const label = `llm: ${config.model} at ${config.base_url}`;
  if (!llmConfigured(config)) return { status: 'fail', label, detail: NO_KEY };
  const timeoutMs = options.timeoutMs ?? 10_000;
  const context = { baseUrl: config.base_url, model: config.model, timeoutS: timeoutMs / 1000 };
  const client = new OpenAI({ baseURL: config.base_url, apiKey: config.api_key || 'none', maxRetries: 0, timeout: timeoutMs });
  const models: string[] = [];
  try {
    for await (const model of client.models.list()) models.push(model.id);
  } catch (error) {
    // Some servers have no /models endpoint: the completion below tells the same.
    if (!(error instanceof APIError) || error.status !== 404) return { status: 'fail', label, detail: describeLlmFailure(error, context).reason };
  }
  if (options.listOnly === true) return { status: 'ok', label, models };
  if (models.length > 0 && !models.includes(config.model)) {
    return { status: 'warn', label, detail: `the server does not list ${config.model}`, fix: `set llm.model to one of: ${models.slice(0, 8).join(', ')}`, models };
  }
  if (models.length > 0 && options.complete !== true) return { status: 'ok', label, models };
  try {
    await client.chat.completions.create({ model: config.model, messages: [{ role: 'user', content: 'Reply with the word: ready' }] });
    // No max_tokens: newer OpenAI models refuse it (they take max_completion_tokens), and the answer is one word.
    return { status: 'ok', label, models };
  } catch (error) {
    return { status: 'fail', label, detail: describeLlmFailure(error, context).reason, models };
  }
}
