import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import type { AnyTool } from '../../src/tools/types.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';

const origin = { channel: 'cli', chatId: 'test', userId: 'owner' };

function testTools(): AnyTool[] {
  return [
    {
      name: 'echo',
      description: 'Echo the text back.',
      parameters: { type: 'object', properties: { text: { type: 'string' }, delay_ms: { type: 'integer' } }, required: ['text'], additionalProperties: false },
      async execute(params: { text: string; delay_ms?: number }) {
        if (params.delay_ms) await new Promise((resolve) => setTimeout(resolve, params.delay_ms));
        return { success: true, output: `echo: ${params.text}` };
      },
    },
    {
      name: 'pick',
      description: 'Pick a color.',
      parameters: {
        type: 'object',
        properties: { color: { type: 'string', enum: ['red', 'green'] }, count: { type: 'integer', minimum: 1, maximum: 3 } },
        required: ['color'],
      },
      async execute(params: { color: string }) {
        return { success: true, output: `picked ${params.color}` };
      },
    },
    {
      name: 'boom',
      description: 'Always throws.',
      parameters: { type: 'object', properties: {} },
      async execute() {
        throw new Error('the disk is on fire');
      },
    },
    {
      name: 'hang',
      description: 'Never finishes.',
      parameters: { type: 'object', properties: {} },
      timeoutMs: 200,
      async execute() {
        return new Promise(() => undefined);
      },
    },
  ];
}

function toolMessages(fake: FakeOpenAI, requestIndex: number) {
  return (fake.requests[requestIndex]?.body.messages ?? []).filter((message) => message.role === 'tool');
}

describe('agent loop', () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let app: App;

  beforeEach(async () => {
    fake = await startOpenAiServer();
    t = await makeTestApp(fake, { llm: { max_loops: 4, fallback_models: ['gpt-fallback'] } });
    app = t.app;
    for (const tool of testTools()) app.tools.register(tool);
  });

  afterEach(async () => {
    await app.close(0);
    await fake.close();
  });

  const turn = (text: string) => app.turns.start({ text, origin, source: 'cli' });

  it('answers a plain message with the model text', async () => {
    fake.script({ content: 'Hello there.' });
    const result = await turn('hi');
    expect(result.status).toBe('ok');
    expect(result.text).toBe('Hello there.');
    const body = fake.requests[0]?.body;
    expect(body?.model).toBe('gpt-test');
    expect(body?.messages.at(-1)).toMatchObject({ role: 'user', content: 'hi' });
    expect(body?.tools?.map((tool) => tool.function.name)).toContain('memory_read');
  });

  it('runs one tool call and answers with the result in context', async () => {
    fake.script({ toolCalls: [{ name: 'echo', arguments: { text: 'ping' } }] }, { content: 'The tool said ping.' });
    const result = await turn('use echo');
    expect(result.text).toBe('The tool said ping.');
    expect(toolMessages(fake, 1)).toEqual([expect.objectContaining({ content: 'echo: ping' })]);
  });

  it('runs parallel tool calls concurrently and returns results in call order', async () => {
    fake.script(
      { toolCalls: [{ name: 'echo', arguments: { text: 'slow', delay_ms: 150 }, id: 'a' }, { name: 'echo', arguments: { text: 'fast' }, id: 'b' }] },
      { content: 'done' },
    );
    await turn('two at once');
    const results = toolMessages(fake, 1);
    expect(results.map((message) => message.tool_call_id)).toEqual(['a', 'b']);
    expect(results.map((message) => message.content)).toEqual(['echo: slow', 'echo: fast']);
    const audit = app.db.prepare("SELECT call_id FROM audit WHERE tool = 'echo' ORDER BY id").all() as Array<{ call_id: string }>;
    // The fast call finished (and was audited) first: they really ran at the same time.
    expect(audit.map((row) => row.call_id)).toEqual(['b', 'a']);
  });

  it('returns invalid JSON arguments to the model as a fixable error', async () => {
    fake.script({ toolCalls: [{ name: 'echo', arguments: '{"text": "unterminated' }] }, { content: 'sorry' });
    await turn('bad json');
    const [message] = toolMessages(fake, 1);
    expect(message?.content).toMatch(/^ERROR: Arguments for echo are not valid JSON/);
  });

  it.each([
    [{}, /missing required field "color"/],
    [{ color: 7 }, /color must be string/],
    [{ color: 'blue' }, /color must be one of "red", "green"/],
    [{ color: 'red', count: 9 }, /count must be <= 3/],
  ])('reports a schema violation %j precisely', async (args, pattern) => {
    fake.script({ toolCalls: [{ name: 'pick', arguments: args }] }, { content: 'ok' });
    await turn('pick');
    const [message] = toolMessages(fake, 1);
    expect(message?.content).toMatch(/^ERROR: Invalid arguments for pick/);
    expect(message?.content).toMatch(pattern);
  });

  it('answers an unknown tool with the list of valid tools', async () => {
    fake.script({ toolCalls: [{ name: 'teleport', arguments: {} }] }, { content: 'ok' });
    await turn('teleport me');
    const [message] = toolMessages(fake, 1);
    expect(message?.content).toMatch(/Unknown tool "teleport"/);
    expect(message?.content).toMatch(/memory_read/);
    expect(message?.content).toMatch(/echo/);
  });

  it('turns a thrown error into a tool message and goes on', async () => {
    fake.script({ toolCalls: [{ name: 'boom', arguments: {} }] }, { content: 'It failed, sorry.' });
    const result = await turn('boom');
    expect(result.status).toBe('ok');
    expect(toolMessages(fake, 1)[0]?.content).toMatch(/boom failed: the disk is on fire/);
  });

  it('stops a tool at its deadline and tells the model', async () => {
    fake.script({ toolCalls: [{ name: 'hang', arguments: {} }] }, { content: 'It took too long.' });
    const result = await turn('hang');
    expect(result.text).toBe('It took too long.');
    expect(toolMessages(fake, 1)[0]?.content).toMatch(/hang did not finish within 0.2 s/);
  });

  it('stops at the loop cap with an honest message', async () => {
    fake.handle((request) => ({ toolCalls: [{ name: 'echo', arguments: { text: `step ${request.body.messages.length}` } }] }));
    const result = await turn('loop forever');
    expect(result.status).toBe('loop_cap');
    expect(result.text).toMatch(/stopped after 4 steps/);
    expect(fake.requests).toHaveLength(4);
  });

  it('stops when the same call repeats three times', async () => {
    fake.handle(() => ({ toolCalls: [{ name: 'echo', arguments: { text: 'same' } }] }));
    const result = await turn('repeat');
    expect(result.status).toBe('repeat');
    expect(result.text).toMatch(/kept calling echo/);
    expect(fake.requests).toHaveLength(3);
    expect(app.db.prepare("SELECT COUNT(*) AS n FROM audit WHERE tool = 'echo'").get()).toEqual({ n: 2 });
  });

  it('retries a 429 after the retry-after delay, then answers', async () => {
    fake.script({ status: 429, headers: { 'retry-after': '2' } }, { content: 'after the wait' });
    const result = await turn('rate limited');
    expect(result.text).toBe('after the wait');
    expect(t.sleeps).toEqual([2000]);
  });

  it('gives the person an apology when 500s outlast the retries, and keeps serving', async () => {
    fake.handle(() => ({ status: 500 }));
    const result = await turn('fail please');
    expect(result.status).toBe('llm_error');
    expect(result.text).toMatch(/^Sorry, I could not answer: the LLM provider had a server error \(500\)/);
    // 3 tries on the primary and 3 on the fallback (max_retries: 2).
    expect(fake.requests).toHaveLength(6);
    expect(t.sleeps).toHaveLength(4);
    fake.handle(() => ({ content: 'back again' }));
    expect((await turn('still there?')).text).toBe('back again');
  });

  it('uses the fallback model for the rest of the turn when the primary fails', async () => {
    fake.handle((request) =>
      request.body.model === 'gpt-test'
        ? { status: 404, error: 'model gone' }
        : request.body.messages.some((message) => message.role === 'tool')
          ? { content: 'fallback finished' }
          : { toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] },
    );
    const result = await turn('fallback');
    expect(result.text).toBe('fallback finished');
    expect(fake.requests.map((request) => request.body.model)).toEqual(['gpt-test', 'gpt-fallback', 'gpt-fallback']);
    expect(result.model).toBe('gpt-fallback');
  });

  it('records token usage per turn', async () => {
    fake.script({ toolCalls: [{ name: 'echo', arguments: { text: 'u' } }], usage: { prompt_tokens: 50, completion_tokens: 5 } }, { content: 'x', usage: { prompt_tokens: 70, completion_tokens: 7 } });
    const result = await turn('usage');
    const row = app.db.prepare('SELECT prompt_tokens, completion_tokens, llm_calls, status FROM turns WHERE id = ?').get(result.turnId);
    expect(row).toEqual({ prompt_tokens: 120, completion_tokens: 12, llm_calls: 2, status: 'ok' });
  });

  /** What the database holds of the turns: messages' roles, turn rows, audited tools. */
  const stored = () => ({
    messages: (app.db.prepare('SELECT role FROM messages ORDER BY id').all() as Array<{ role: string }>).map((row) => row.role),
    turns: app.db.prepare('SELECT status, llm_calls AS llmCalls FROM turns').all(),
    audit: (app.db.prepare('SELECT tool FROM audit').all() as Array<{ tool: string }>).map((row) => row.tool),
  });

  it('stores nothing before the first answer or tool step, then the question, the step and the turn row together', async () => {
    const seen: unknown[] = [];
    fake.handle((request) => {
      // The fake runs in this process: what the database holds while each LLM request is pending.
      seen.push(stored());
      return request.body.messages.some((message) => message.role === 'tool') ? { content: 'done' } : { toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] };
    });
    await turn('go');
    expect(seen).toEqual([
      // A kill now leaves nothing, so a replayed message is not stored twice.
      { messages: [], turns: [], audit: [] },
      // The question, the call, its result, its audit row and the usage so far: one commit.
      { messages: ['user', 'assistant', 'tool'], turns: [{ status: 'running', llmCalls: 1 }], audit: ['echo'] },
    ]);
    expect(stored()).toEqual({ messages: ['user', 'assistant', 'tool', 'assistant'], turns: [{ status: 'ok', llmCalls: 2 }], audit: ['echo'] });
  });

  it('stores a step of read-only calls with the next step: one commit for a turn that only read', async () => {
    writeFileSync(path.join(app.config.memory_dir, 'profile.md'), '- likes tea\n');
    const seen: unknown[] = [];
    fake.handle((request) => {
      seen.push(stored());
      const read = request.body.messages.some((message) => message.role === 'tool');
      return read ? { content: 'you like tea' } : { toolCalls: [{ name: 'memory_read', arguments: { path: 'profile.md' } }, { name: 'memory_search', arguments: { query: 'tea' } }] };
    });
    await turn('what do I like?');
    // Nothing changed by the reads: a kill before the answer leaves the turn as if it had not started.
    expect(seen).toEqual([{ messages: [], turns: [], audit: [] }, { messages: [], turns: [], audit: [] }]);
    expect(stored()).toEqual({ messages: ['user', 'assistant', 'tool', 'tool', 'assistant'], turns: [{ status: 'ok', llmCalls: 2 }], audit: ['memory_read', 'memory_search'] });
  });

  it('commits a step at once when one of its calls is not read-only', async () => {
    const seen: unknown[] = [];
    fake.handle((request) => {
      seen.push(stored().messages);
      const done = request.body.messages.some((message) => message.role === 'tool');
      return done ? { content: 'noted' } : { toolCalls: [{ name: 'memory_read', arguments: { path: 'todo.md' } }, { name: 'memory_write', arguments: { path: 'todo.md', content: '- tea\n' } }] };
    });
    await turn('note tea');
    expect(seen).toEqual([[], ['user', 'assistant', 'tool', 'tool']]);
  });

  it('records a turn that threw (not a provider or tool failure) as an error, with the question kept, and rethrows', async () => {
    fake.script({ toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] });
    const thrown = app.turns.start({
      text: 'go', origin, source: 'cli',
      onEvent: () => {
        throw new Error('the progress printer broke');
      },
    });
    await expect(thrown).rejects.toThrow('the progress printer broke');
    expect(app.db.prepare('SELECT status, error FROM turns').all()).toEqual([{ status: 'error', error: 'the progress printer broke' }]);
    expect((app.db.prepare('SELECT role FROM messages').all() as Array<{ role: string }>).map((row) => row.role)).toEqual(['user']);
  });

  it('gives turns ids that start with the time (version 7 layout), so they sort in the order they started', async () => {
    fake.handle(() => ({ content: 'ok' }));
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      ids.push((await turn(`t${index}`)).turnId);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(Math.abs(parseInt(ids[0]!.replace('-', '').slice(0, 12), 16) - Date.now())).toBeLessThan(60_000);
  });

  it('keeps history across a restart of the app', async () => {
    fake.script({ content: 'Noted: your cat is Miso.' });
    await turn('my cat is Miso');
    await app.close(0);
    app = await t.restart();
    fake.script({ content: 'Miso.' });
    await turn('what is my cat called?');
    const contents = fake.requests.at(-1)?.body.messages.map((message) => message.content);
    expect(contents).toContain('my cat is Miso');
    expect(contents).toContain('Noted: your cat is Miso.');
  });

  it('shows a hand edit of a memory file in the next request', async () => {
    fake.handle(() => ({ content: 'ok' }));
    await turn('first');
    expect(fake.lastSystemPrompt()).not.toContain('allergic to peanuts');
    writeFileSync(path.join(app.config.memory_dir, 'profile.md'), '# Profile\n- allergic to peanuts\n');
    await turn('second');
    expect(fake.lastSystemPrompt()).toContain('allergic to peanuts');
    expect(fake.lastSystemPrompt()).toMatch(/Current date and time: \w+day, \d+ \w+ \d{4} at \d\d:\d\d \(Europe\/Paris, UTC\+0[12]:00\)/);
  });
});

describe('history trimming', () => {
  it('drops the oldest messages first and never splits a tool call from its results', async () => {
    const fake = await startOpenAiServer();
    const t = await makeTestApp(fake, { agent: { history_tokens: 300 } });
    const { app } = t;
    for (const tool of testTools()) app.tools.register(tool);
    try {
      for (let index = 0; index < 8; index += 1) {
        fake.script({ toolCalls: [{ name: 'echo', arguments: { text: `n${index} ${'x'.repeat(150)}` } }] }, { content: `answer ${index}` });
        await app.turns.start({ text: `question ${index} ${'y'.repeat(150)}`, origin, source: 'cli' });
      }
      fake.script({ content: 'last' });
      await app.turns.start({ text: 'final question', origin, source: 'cli' });
      const messages = fake.requests.at(-1)?.body.messages ?? [];
      expect(messages.some((message) => message.content === 'question 0 ' + 'y'.repeat(150))).toBe(false);
      expect(messages.at(-1)?.content).toBe('final question');
      // Every tool result follows its call, and every call has all of its results.
      const callIds = new Set<string>();
      for (const message of messages) {
        if (message.role === 'assistant') for (const call of message.tool_calls ?? []) callIds.add(call.id);
        if (message.role === 'tool') expect(callIds.has(message.tool_call_id ?? '')).toBe(true);
      }
      for (const id of callIds) expect(messages.some((message) => message.role === 'tool' && message.tool_call_id === id)).toBe(true);
      expect(messages[1]?.role).not.toBe('tool');
    } finally {
      await app.close(0);
      await fake.close();
    }
  });
});
