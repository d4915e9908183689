import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import { runCli } from '../../src/cli/run.js';
import { startOfDay, usageToday } from '../../src/usage/usage.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';

const origin = { channel: 'cli', chatId: 'usage', userId: 'owner' };
const usage = (prompt: number, completion: number) => ({ usage: { prompt_tokens: prompt, completion_tokens: completion } });

describe('usage accounting', () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let app: App;

  beforeEach(async () => {
    fake = await startOpenAiServer();
    t = await makeTestApp(fake, { llm: { prices: { 'gpt-test': { prompt_per_mtok: 1, completion_per_mtok: 4 } } } });
    app = t.app;
  });

  afterEach(async () => {
    await app.close(0);
    await fake.close();
  });

  it("sums today's tokens from the API's usage fields, with an estimated cost", async () => {
    fake.script({ content: 'one', ...usage(1000, 200) }, { content: 'two', ...usage(3000, 300) });
    await app.turns.start({ text: 'a', origin, source: 'cli' });
    await app.turns.start({ text: 'b', origin, source: 'cli' });
    const today = usageToday(app.db, app.config);
    expect(today).toMatchObject({ promptTokens: 4000, completionTokens: 500, totalTokens: 4500, turns: 2, llmCalls: 2, budget: 0, remaining: undefined });
    // 4000 prompt tokens at $1/M + 500 completion tokens at $4/M.
    expect(today.costUsd).toBeCloseTo(0.006, 10);
  });

  it('answers /usage with today and this conversation', async () => {
    fake.script({ content: 'one', ...usage(1000, 200) });
    await app.turns.start({ text: 'a', origin, source: 'cli' });
    const conversationId = app.conversations.resolve(origin.channel, origin.chatId);
    const reply = await app.commands.get('usage')!.run({ channel: 'cli', chatId: 'usage', userId: 'owner', args: '', conversationId });
    expect(reply).toMatch(/^Today \(\d{4}-\d\d-\d\d\): 1,200 tokens \(1,000 prompt \+ 200 completion\), 1 turn, ≈ \$0\.0018, no daily budget\./);
    expect(reply).toMatch(/This conversation: 1,200 tokens in 1 turn\./);
  });

  it('familiar usage prints today, the days and the conversations', async () => {
    fake.script({ content: 'one', ...usage(1000, 200) });
    await app.turns.start({ text: 'a', origin, source: 'cli' });
    const io = captureIo();
    expect(await runCli(['usage', '--days', '2', '--config', t.configPath], io)).toBe(0);
    expect(io.out()).toMatch(/^Today \(.*\): 1,200 tokens/);
    expect(io.out()).toMatch(/\n\d{4}-\d\d-\d\d\s+1,000\s+200\s+1,200\s+1\s+\$0\.0018\n\d{4}-\d\d-\d\d\s+0\s+0\s+0\s+0/);
    expect(io.out()).toContain(app.conversations.resolve(origin.channel, origin.chatId));
  });
});

describe('daily token budget', () => {
  let fake: FakeOpenAI;
  let app: App;

  beforeEach(async () => {
    fake = await startOpenAiServer();
    app = (await makeTestApp(fake, { llm: { daily_token_budget: 1000 } })).app;
    app.tools.register({
      name: 'step',
      description: 'a step',
      parameters: { type: 'object', properties: { n: { type: 'integer' } } },
      async execute() {
        return { success: true, output: 'stepped' };
      },
    });
  });

  afterEach(async () => {
    await app.close(0);
    await fake.close();
  });

  it('stops further LLM calls once the budget is used, with a clear message', async () => {
    fake.script({ content: 'first', ...usage(900, 150) });
    expect((await app.turns.start({ text: 'a', origin, source: 'cli' })).text).toBe('first');
    const blocked = await app.turns.start({ text: 'b', origin, source: 'cli' });
    expect(blocked.status).toBe('blocked');
    expect(blocked.text).toMatch(/I have used today's token budget \(1,050 of 1,000 tokens, llm\.daily_token_budget\), so I will not call the model again until midnight \(Europe\/Paris\)/);
    expect(fake.requests).toHaveLength(1);
  });

  it('counts tokens as they are spent, so a long turn stops at the budget', async () => {
    fake.script(
      { toolCalls: [{ name: 'step', arguments: { n: 1 } }], ...usage(400, 100) },
      { toolCalls: [{ name: 'step', arguments: { n: 2 } }], ...usage(400, 100) },
      { toolCalls: [{ name: 'step', arguments: { n: 3 } }], ...usage(400, 100) },
    );
    const result = await app.turns.start({ text: 'go', origin, source: 'cli' });
    expect(result.status).toBe('blocked');
    expect(fake.requests).toHaveLength(2);
  });

  it('stops scheduled jobs too', async () => {
    fake.script({ content: 'first', ...usage(990, 20) });
    await app.turns.start({ text: 'a', origin, source: 'cli' });
    const conversationId = app.conversations.ensure('job-morning', 'scheduler', 'morning', 'job');
    const result = await app.agent.runTurn({ conversationId, text: 'summarise', origin: { channel: 'scheduler', chatId: 'morning' }, source: 'job', unattended: true });
    expect(result.status).toBe('blocked');
    expect(result.text).toMatch(/token budget/);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('day boundaries', () => {
  it("starts the day at local midnight in the configured zone, across DST changes", () => {
    // 2026-03-29: Paris moves from UTC+1 to UTC+2 at 02:00.
    expect(new Date(startOfDay('Europe/Paris', new Date('2026-03-29T20:00:00Z'))).toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(new Date(startOfDay('Europe/Paris', new Date('2026-03-30T08:00:00Z'))).toISOString()).toBe('2026-03-29T22:00:00.000Z');
    // Late evening in New York is already the next day in UTC.
    expect(new Date(startOfDay('America/New_York', new Date('2026-11-23T03:30:00Z'))).toISOString()).toBe('2026-11-22T05:00:00.000Z');
  });
});
