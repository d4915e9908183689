import type OpenAI from 'openai';
import type { LlmConfig } from '../config/schema.js';
import { LlmError } from '../errors.js';
import type { Logger } from '../log.js';
import { describeLlmFailure, type FailureContext, type LlmFailure } from './failure.js';
import { asApiError, backoffMs, isRetryable, retryAfterMs, sleep as defaultSleep } from './retry.js';
import { collectStream } from './stream.js';
import type { LlmClient, LlmRequest, LlmResponse, ToolCallRequest } from './types.js';
import { linkAbort } from '../lib/abort.js';

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
  const { config, log } = options;
  const sleep = options.sleep ?? defaultSleep;
  let client: Promise<OpenAI> | undefined;
  // Loaded on the first call: `familiar start` is ready before the SDK is parsed.
  const openai = () =>
    (client ??= import('openai').then(
      ({ default: OpenAIClient }) =>
        new OpenAIClient({
          baseURL: config.base_url,
          // Local servers (Ollama, llama.cpp) accept any key, but the SDK insists on one.
          apiKey: config.api_key || 'none',
          // Retries are ours: they log, honour long retry-after values up to a cap, and stop on abort.
          maxRetries: 0,
          timeout: config.timeout_s * 1000,
          ...(options.fetch ? { fetch: options.fetch } : {}),
        }),
    ));
  // Read from the config at each use: a reload changes llm.model and llm.fallback_models in place.
  const primaryThenFallbacks = (): string[] => [config.model, ...config.fallback_models.filter((model) => model !== config.model)];

  async function callOnce(model: string, request: LlmRequest, onText: ((text: string) => void) | undefined): Promise<LlmResponse> {
    // The SDK leaves an abort listener on the signal it is given until that signal fires, so a turn's signal would
    // collect one per model call (40 in a long turn). Each call gets its own signal, unlinked when the call is done.
    if (!request.signal) return callWith(model, request, onText, undefined);
    const controller = new AbortController();
    const unlink = linkAbort(controller, request.signal);
    try {
      return await callWith(model, request, onText, controller.signal);
    } finally {
      unlink();
    }
  }

  async function callWith(model: string, request: LlmRequest, onText: ((text: string) => void) | undefined, signal: AbortSignal | undefined): Promise<LlmResponse> {
    const body: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming = {
      model,
      messages: request.messages,
      ...(request.tools && request.tools.length > 0 ? { tools: request.tools } : {}),
      ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
      ...maxTokens(config.max_tokens, request.maxTokens),
    };
    if (onText) {
      // Usage comes in a last chunk only when asked for: without it a streamed turn would not count against the budget.
      const stream = await (await openai()).chat.completions.create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        signal ? { signal } : {},
      );
      try {
        return await collectStream(stream, model, onText);
      } catch (error) {
        // A stream cut mid-answer fails with the response body's own error (undici's "terminated"), not the SDK's:
        // it is made the SDK's connection error so it is retried (and described) like any cut connection.
        if (isAbort(error, request.signal) || asApiError(error) || error instanceof LlmError) throw error;
        const { APIConnectionError } = await import('openai');
        throw new APIConnectionError({ message: 'the connection broke while the answer was streamed', cause: error instanceof Error ? error : undefined });
      }
    }
    const completion = await (await openai()).chat.completions.create(body, signal ? { signal } : {});
    const choice = completion.choices?.[0];
    if (!choice) throw new LlmError(`model ${model} returned no choices`, undefined);
    const seen = new Set<string>();
    const toolCalls: ToolCallRequest[] = [];
    for (const [index, call] of (choice.message.tool_calls ?? []).entries()) {
      if (call.type !== 'function') continue;
      // Some servers (llama.cpp) repeat one id for parallel calls, others omit it: ids must be unique per turn.
      let id = call.id || `call_${index}`;
      if (seen.has(id)) id = `${id}_${index}`;
      seen.add(id);
      toolCalls.push({ id, name: call.function.name, arguments: call.function.arguments ?? '' });
    }
    return {
      content: choice.message.content ?? '',
      toolCalls,
      usage: {
        promptTokens: completion.usage?.prompt_tokens ?? 0,
        completionTokens: completion.usage?.completion_tokens ?? 0,
      },
      model: completion.model || model,
      finishReason: choice.finish_reason ?? 'stop',
    };
  }

  async function callWithRetries(model: string, request: LlmRequest, text: TextRelay | undefined): Promise<LlmResponse> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        text?.begin();
        return await callOnce(model, request, text?.send);
      } catch (error) {
        if (isAbort(error, request.signal)) throw abortError(request.signal);
        if (attempt >= config.max_retries || !isRetryable(error)) throw error;
        const asked = retryAfterMs(error);
        const delay = Math.min(asked ?? backoffMs(attempt), config.max_retry_delay_s * 1000);
        // Info, not warn: a retry is handled here; only the final failure is the caller's to report.
        log.info({ model, attempt: attempt + 1, status: statusOf(error), delayMs: Math.round(delay), reason: failureOf(error, model).reason }, 'llm call failed; retrying');
        await sleep(delay, request.signal);
      }
    }
  }

  const failureOf = (error: unknown, model: string) => describeLlmFailure(error, { baseUrl: config.base_url, model, timeoutS: config.timeout_s });

  return {
    get models() {
      return primaryThenFallbacks();
    },
    async complete(request) {
      // Said before any request: OpenAI would answer 401 after a round trip, and "check the key" is not the fix.
      if (!llmConfigured(config)) throw new LlmError(NO_KEY, undefined, { transient: false });
      const candidates = request.models && request.models.length > 0 ? request.models : primaryThenFallbacks();
      let last: { error: unknown; failure: LlmFailure } | undefined;
      const text = request.onText ? textRelay(request.onText) : undefined;
      for (const [index, model] of candidates.entries()) {
        try {
          return await callWithRetries(model, request, text);
        } catch (error) {
          if (isAbort(error, request.signal)) throw error;
          const failure = failureOf(error, model);
          last = { error, failure };
          const next = candidates[index + 1];
          // A refused key or connection is the server's, not the model's: the fallbacks would fail the same way.
          if (next === undefined || failure.wholeServer) break;
          log.warn({ model, status: statusOf(error), reason: failure.reason, next }, `llm: ${model} failed; trying ${next}`);
        }
      }
      const failure = last?.failure ?? { reason: 'no model to call (llm.model is empty)', transient: false, wholeServer: true };
      throw new LlmError(failure.reason, statusOf(last?.error), { cause: last?.error, transient: failure.transient });
    },
  };
}

/** The smaller of the configured and the requested cap, if either is set. */
function maxTokens(configured: number | undefined, requested: number | undefined): { max_tokens?: number } {
  const caps = [configured, requested].filter((value): value is number => value !== undefined);
  return caps.length > 0 ? { max_tokens: Math.min(...caps) } : {};
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

function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (error instanceof Error && (error.name === 'AbortError' || error.constructor.name === 'APIUserAbortError'));
}

function abortError(signal: AbortSignal | undefined): Error {
  return signal?.reason instanceof Error ? signal.reason : new DOMException('The turn was cancelled', 'AbortError');
}

/** A one-line reason fit for the person: no stack, no request body, no key. */
export function describeFailure(error: unknown, context: FailureContext): string {
  return describeLlmFailure(error, context).reason;
}
