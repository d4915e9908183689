import type OpenAI from 'openai';
import type { LlmConfig } from '../config/schema.js';
import { LlmError } from '../errors.js';
import { linkAbort } from '../lib/abort.js';
import { asApiError } from './retry.js';
import { collectStream } from './stream.js';
import type { LlmRequest, LlmResponse, ToolCallRequest } from './types.js';

/** One call to one model, no retry: streamed when `onText` is given, the answer read into an LlmResponse. */
export async function callOnce(openai: () => Promise<OpenAI>, config: LlmConfig, model: string, request: LlmRequest, onText: ((text: string) => void) | undefined): Promise<LlmResponse> {
  // The SDK leaves an abort listener on the signal it is given until that signal fires, so a turn's signal would
  // collect one per model call (40 in a long turn). Each call gets its own signal, unlinked when the call is done.
  if (!request.signal) return callWith(openai, config, model, request, onText, undefined);
  const controller = new AbortController();
  const unlink = linkAbort(controller, request.signal);
  try {
    return await callWith(openai, config, model, request, onText, controller.signal);
  } finally {
    unlink();
  }
}

async function callWith(openai: () => Promise<OpenAI>, config: LlmConfig, model: string, request: LlmRequest, onText: ((text: string) => void) | undefined, signal: AbortSignal | undefined): Promise<LlmResponse> {
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
  return fromCompletion(await (await openai()).chat.completions.create(body, signal ? { signal } : {}), model);
}

/** A whole (not streamed) answer as the agent reads it; tool call ids made unique. */
function fromCompletion(completion: OpenAI.Chat.Completions.ChatCompletion, model: string): LlmResponse {
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

/** The smaller of the configured and the requested cap, if either is set. */
function maxTokens(configured: number | undefined, requested: number | undefined): { max_tokens?: number } {
  const caps = [configured, requested].filter((value): value is number => value !== undefined);
  return caps.length > 0 ? { max_tokens: Math.min(...caps) } : {};
}

export function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (error instanceof Error && (error.name === 'AbortError' || error.constructor.name === 'APIUserAbortError'));
}
