import type OpenAI from 'openai';
import type { LlmConfig } from '../config/schema.js';
import { LlmError } from '../errors.js';
import type { Logger } from '../log.js';
import { callOnce, isAbort } from './completion.js';
import { describeLlmFailure, type FailureContext, type LlmFailure } from './failure.js';
import { asApiError, backoffMs, isRetryable, retryAfterMs, sleep as defaultSleep } from './retry.js';
import type { LlmClient, LlmRequest, LlmResponse } from './types.js';

export interface CreateLlmClientOptions {
  config: LlmConfig;
  log: Logger;
  /** Injected in tests to observe backoff without waiting. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  fetch?: typeof fetch;
}

/** True when a request can be made: a key is set, or the base URL is not OpenAI's (local servers need none). */
export function llmConfigured(config: LlmConfig): boolean {
  return config.api_key !== '' || !config.base_url.includes('api.openai.com');
}

export function createLlmClient(options: CreateLlmClientOptions): LlmClient {
  const { config } = options;
  const caller: Caller = { config, log: options.log, sleep: options.sleep ?? defaultSleep, openai: lazyOpenAi(config, options.fetch) };
  return {
    get models() {
      return primaryThenFallbacks(config);
    },
    complete: (request) => completeWithFallbacks(caller, request),
  };
}

/** What a call needs: the settings (read at each use), the log, the wait between retries, the SDK's client. */
interface Caller {
  config: LlmConfig;
  log: Logger;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  openai: () => Promise<OpenAI>;
}

/** The SDK's client, made on the first call: `familiar start` is ready before the SDK is parsed. */
function lazyOpenAi(config: LlmConfig, fetch: typeof globalThis.fetch | undefined): () => Promise<OpenAI> {
  let client: Promise<OpenAI> | undefined;
  return () =>
    (client ??= import('openai').then(
      ({ default: OpenAIClient }) =>
        new OpenAIClient({
          baseURL: config.base_url,
          // Local servers (Ollama, llama.cpp) accept any key, but the SDK insists on one.
          apiKey: config.api_key || 'none',
          // Retries are ours: they log, honour long retry-after values up to a cap, and stop on abort.
          maxRetries: 0,
          timeout: config.timeout_s * 1000,
          ...(fetch ? { fetch } : {}),
        }),
    ));
}

/** Read from the config at each use: a reload changes llm.model and llm.fallback_models in place. */
function primaryThenFallbacks(config: LlmConfig): string[] {
  return [config.model, ...config.fallback_models.filter((model) => model !== config.model)];
}

/** Each model in turn (the request's, else the primary then the fallbacks), each with its retries. */
async function completeWithFallbacks(caller: Caller, request: LlmRequest): Promise<LlmResponse> {
  const { config, log } = caller;
  // Said before any request: OpenAI would answer 401 after a round trip, and "check the key" is not the fix.
  if (!llmConfigured(config)) throw new LlmError(NO_KEY, undefined, { transient: false });
  const candidates = request.models && request.models.length > 0 ? request.models : primaryThenFallbacks(config);
  let last: { error: unknown; failure: LlmFailure } | undefined;
  const text = request.onText ? textRelay(request.onText) : undefined;
  for (const [index, model] of candidates.entries()) {
    try {
      return await callWithRetries(caller, model, request, text);
    } catch (error) {
      if (isAbort(error, request.signal)) throw error;
      const failure = failureOf(config, error, model);
      last = { error, failure };
      const next = candidates[index + 1];
      // A refused key or connection is the server's, not the model's: the fallbacks would fail the same way.
      if (next === undefined || failure.wholeServer) break;
      log.warn({ model, status: statusOf(error), reason: failure.reason, next }, `llm: ${model} failed; trying ${next}`);
    }
  }
  const failure = last?.failure ?? { reason: 'no model to call (llm.model is empty)', transient: false, wholeServer: true };
  throw new LlmError(failure.reason, statusOf(last?.error), { cause: last?.error, transient: failure.transient });
}

async function callWithRetries(caller: Caller, model: string, request: LlmRequest, text: TextRelay | undefined): Promise<LlmResponse> {
  const { config, log } = caller;
  for (let attempt = 0; ; attempt += 1) {
    try {
      text?.begin();
      return await callOnce(caller.openai, config, model, request, text?.send);
    } catch (error) {
      if (isAbort(error, request.signal)) throw abortError(request.signal);
      if (attempt >= config.max_retries || !isRetryable(error)) throw error;
      const asked = retryAfterMs(error);
      const delay = Math.min(asked ?? backoffMs(attempt), config.max_retry_delay_s * 1000);
      // Info, not warn: a retry is handled here; only the final failure is the caller's to report.
      log.info({ model, attempt: attempt + 1, status: statusOf(error), delayMs: Math.round(delay), reason: failureOf(config, error, model).reason }, 'llm call failed; retrying');
      await caller.sleep(delay, request.signal);
    }
  }
}

function failureOf(config: LlmConfig, error: unknown, model: string): LlmFailure {
  return describeLlmFailure(error, { baseUrl: config.base_url, model, timeoutS: config.timeout_s });
}

/** Streamed text for one request: an attempt that starts after another already sent text first says `restart`. */
interface TextRelay {
  begin(): void;
  send(text: string): void;
}

function textRelay(onText: NonNullable<LlmRequest['onText']>): TextRelay {
  let sent = false;
  return {
    begin() {
      if (sent) onText({ type: 'restart' });
      sent = false;
    },
    send(text) {
      sent = true;
      onText({ type: 'delta', text });
    },
  };
}

/** The one line for a missing key on OpenAI's API (local servers need none). */
export const NO_KEY = 'no API key: llm.api_key is empty for api.openai.com; set OPENAI_API_KEY in the .env beside config.yaml (or run familiar init)';

function statusOf(error: unknown): number | undefined {
  return asApiError(error)?.status;
}

function abortError(signal: AbortSignal | undefined): Error {
  return signal?.reason instanceof Error ? signal.reason : new DOMException('The turn was cancelled', 'AbortError');
}

/** A one-line reason fit for the person: no stack, no request body, no key. */
export function describeFailure(error: unknown, context: FailureContext): string {
  return describeLlmFailure(error, context).reason;
}
