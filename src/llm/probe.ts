import { APIError } from 'openai';
import OpenAI from 'openai';
import type { DoctorLine } from '../part.js';
import type { LlmConfig } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import { describeFailure, llmConfigured } from './client.js';

/** `familiar doctor`'s LLM line: is the server reachable, is the key accepted, is the model offered? */
export async function probeLlm(config: LlmConfig): Promise<DoctorLine> {
  const label = `llm: ${config.model} at ${config.base_url}`;
  if (!llmConfigured(config)) {
    return { status: 'fail', label, detail: 'no API key', fix: 'set OPENAI_API_KEY or llm.api_key in config.yaml' };
  }
  const client = new OpenAI({ baseURL: config.base_url, apiKey: config.api_key || 'none', maxRetries: 0, timeout: 10_000 });
  try {
    const models: string[] = [];
    for await (const model of client.models.list()) models.push(model.id);
    if (models.length === 0 || models.includes(config.model)) return { status: 'ok', label };
    return { status: 'warn', label, detail: `the server does not list ${config.model}`, fix: `pick one of: ${models.slice(0, 8).join(', ')}` };
  } catch (error) {
    if (error instanceof APIError && (error.status === 401 || error.status === 403)) {
      return { status: 'fail', label, detail: 'the API key was refused', fix: 'check llm.api_key (or OPENAI_API_KEY)' };
    }
    if (!(error instanceof APIError) || error.status !== 404) {
      return { status: 'fail', label, detail: describeFailure(error), fix: 'check llm.base_url and that the server is running' };
    }
  }
  // No /models endpoint on some servers: one tiny completion tells the same.
  try {
    await client.chat.completions.create({ model: config.model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 });
    return { status: 'ok', label };
  } catch (error) {
    return { status: 'fail', label, detail: error instanceof APIError ? describeFailure(error) : errorMessage(error), fix: 'check llm.model, llm.api_key and llm.base_url' };
  }
}
