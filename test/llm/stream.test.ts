// Streaming in the LLM client (a request with onText): text pieces in order, tool calls gathered from argument
// fragments, usage counted, a retry after a stream broke mid-answer says `restart` first; without onText nothing
// is streamed. Against the fake OpenAI server through the real openai SDK.
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load.js';
import { createLlmClient } from '../../src/llm/client.js';
import type { LlmTextEvent } from '../../src/llm/types.js';
import { createLogger } from '../../src/log.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';

describe('LLM streaming', () => {
  let fake: FakeOpenAI;

  beforeEach(async () => {
    fake = await startOpenAiServer();
  });

  afterEach(async () => {
    await fake.close();
  });

  function client() {
    const log = createLogger({ level: 'silent', format: 'json', secrets: [], destination: new Writable({ write: (_chunk, _encoding, done) => done() }) });
    const config = validateConfig({ llm: { base_url: fake.baseUrl, api_key: fake.apiKey, model: 'gpt-test', max_retries: 2, timeout_s: 10 } }).llm;
    return createLlmClient({ config, log, sleep: async () => undefined });
  }

  it('hands each piece of text over as it comes, and returns the whole answer with its usage', async () => {
    fake.script({ content: 'Hello there, friend', chunks: ['Hello ', 'there', ', friend'], usage: { prompt_tokens: 42, completion_tokens: 7 } });
    const events: LlmTextEvent[] = [];
    const response = await client().complete({ messages: [{ role: 'user', content: 'hi' }], onText: (event) => events.push(event) });
    expect(events).toEqual([{ type: 'delta', text: 'Hello ' }, { type: 'delta', text: 'there' }, { type: 'delta', text: ', friend' }]);
    expect(response).toMatchObject({ content: 'Hello there, friend', toolCalls: [], usage: { promptTokens: 42, completionTokens: 7 }, finishReason: 'stop' });
    expect(fake.requests.at(-1)?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('gathers tool calls from their argument fragments, in order', async () => {
    fake.script({ toolCalls: [{ name: 'memory_read', arguments: { path: 'profile.md' } }, { name: 'web_search', arguments: { query: 'tea' } }] });
    const response = await client().complete({ messages: [{ role: 'user', content: 'x' }], onText: () => undefined });
    expect(response.toolCalls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([['memory_read', { path: 'profile.md' }], ['web_search', { query: 'tea' }]]);
    expect(new Set(response.toolCalls.map((call) => call.id)).size).toBe(2);
    expect(response.finishReason).toBe('tool_calls');
  });

  it('a stream that breaks mid-answer is retried, and the text shown so far is cleared first', async () => {
    fake.script({ content: 'one two three', chunks: ['one ', 'two ', 'three'], failAfterChunks: 2 }, { content: 'fresh answer', chunks: ['fresh ', 'answer'] });
    const events: LlmTextEvent[] = [];
    const response = await client().complete({ messages: [{ role: 'user', content: 'x' }], onText: (event) => events.push(event) });
    expect(response.content).toBe('fresh answer');
    const restart = events.findIndex((event) => event.type === 'restart');
    expect(restart).toBeGreaterThan(0);
    expect(events.slice(restart + 1)).toEqual([{ type: 'delta', text: 'fresh ' }, { type: 'delta', text: 'answer' }]);
  });

  it('without onText the request is not streamed', async () => {
    fake.script({ content: 'plain' });
    const response = await client().complete({ messages: [{ role: 'user', content: 'x' }] });
    expect(response.content).toBe('plain');
    expect(fake.requests.at(-1)?.body.stream).toBeUndefined();
  });
});
