import type OpenAI from 'openai';

export type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
export type FunctionSchema = OpenAI.Chat.Completions.ChatCompletionFunctionTool;

export interface ToolCallRequest {
  id: string;
  name: string;
  /** Raw JSON text as the model sent it; parsed and validated by the tool registry. */
  arguments: string;
}

export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface LlmResponse {
  content: string;
  toolCalls: ToolCallRequest[];
  usage: LlmUsage;
  model: string;
  finishReason: string;
}

/**
 * The answer's text as it is generated: `delta` pieces in order; `restart` when an attempt that already sent text
 * failed and another attempt (a retry, a fallback model) starts over, so what was shown must be cleared.
 */
export type LlmTextEvent = { type: 'delta'; text: string } | { type: 'restart' };

export interface LlmRequest {
  messages: ChatMessage[];
  tools?: FunctionSchema[];
  /** Models to try in order; defaults to the primary then `llm.fallback_models`. */
  models?: readonly string[];
  signal?: AbortSignal;
  /** At most this many completion tokens (below `llm.max_tokens`, which still caps it). */
  maxTokens?: number;
  /** Set to receive the text as it is generated: the request is then streamed. Without it nothing changes. */
  onText?: (event: LlmTextEvent) => void;
}

/** Contract: resolves with a response or throws LlmError (AbortError when the signal fired). */
export interface LlmClient {
  readonly models: readonly string[];
  complete(request: LlmRequest): Promise<LlmResponse>;
}
