import type OpenAI from 'openai';
import { LlmError } from '../errors.js';
import type { LlmResponse, ToolCallRequest } from './types.js';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

/**
 * Folds a streamed Chat Completion into the same response a non-streamed call returns, handing each piece of
 * text to `onText` as it arrives. Servers differ in how they stream tool calls — OpenAI sends argument
 * fragments keyed by `index`, Ollama sends each call whole, llama.cpp can repeat one id for parallel calls —
 * so calls are gathered by `index` (their position when a server leaves it out), never by id. Written here
 * rather than with the SDK's ChatCompletionStream helper, which throws on a chunk without `type` or a stream
 * without `finish_reason`, both of which OpenAI-compatible servers send.
 * Contract: rejects with the stream's error (a network failure, an abort); LlmError when nothing came back.
 */
export async function collectStream(chunks: AsyncIterable<Chunk>, model: string, onText: (text: string) => void): Promise<LlmResponse> {
  let content = '';
  let answeredBy = '';
  let finishReason: string | undefined;
  let usage: Chunk['usage'] | undefined;
  let sawChoice = false;
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  for await (const chunk of chunks) {
    if (chunk.model) answeredBy = chunk.model;
    // The usage chunk (stream_options.include_usage) comes last, with no choices.
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    sawChoice = true;
    const delta = choice.delta;
    if (typeof delta?.content === 'string' && delta.content !== '') {
      content += delta.content;
      onText(delta.content);
    }
    for (const [position, call] of (delta?.tool_calls ?? []).entries()) {
      const index = typeof call.index === 'number' ? call.index : position;
      let entry = calls.get(index);
      if (!entry) {
        entry = { id: '', name: '', arguments: '' };
        calls.set(index, entry);
      }
      if (call.id && !entry.id) entry.id = call.id;
      if (call.function?.name && !entry.name) entry.name = call.function.name;
      if (call.function?.arguments) entry.arguments += call.function.arguments;
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  if (!sawChoice) throw new LlmError(`model ${model} returned no choices`, undefined);
  const seen = new Set<string>();
  const toolCalls: ToolCallRequest[] = [];
  for (const [index, call] of [...calls.entries()].sort(([a], [b]) => a - b)) {
    if (!call.name) continue;
    // Ids must be unique per turn: some servers repeat one for parallel calls, others omit it.
    let id = call.id || `call_${index}`;
    if (seen.has(id)) id = `${id}_${index}`;
    seen.add(id);
    toolCalls.push({ id, name: call.name, arguments: call.arguments });
  }
  return {
    content,
    toolCalls,
    usage: { promptTokens: usage?.prompt_tokens ?? 0, completionTokens: usage?.completion_tokens ?? 0 },
    model: answeredBy || model,
    finishReason: finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
  };
}
