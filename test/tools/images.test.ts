import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon.js';
import { usageToday } from '../../src/usage/usage.js';
import type { ToolResult } from '../../src/tools/types.js';
import { startOpenAiServer, TINY_PNG, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp } from '../helpers/app.js';

// image_generate through the real `openai` client against the fake's /images/generations, which speaks the Images
// API's wire format (b64_json and url forms, gpt-image-1's usage), in the real daemon: registry, gate, usage ledger.
const CHAT = { channel: 'telegram', chatId: '77', userId: '77' };
let fake: FakeOpenAI;
let app: Daemon;
beforeAll(async () => {
  fake = await startOpenAiServer();
  app = (await makeTestApp(fake, { tools: { images: { model: 'gpt-image-1', size: '1024x1024', tokens_per_image: 500 } } }, undefined, { mode: 'command' })).app;
});
afterAll(async () => {
  await app.close(0);
  await fake.close();
});

async function call(args: Record<string, unknown>): Promise<ToolResult> {
  const outcome = await app.tools.execute({ name: 'image_generate', arguments: args, conversationId: app.conversations.resolve(CHAT.channel, CHAT.chatId), turnId: 't-test', origin: CHAT });
  return outcome.result;
}

describe('image_generate', () => {
  it('returns the b64_json image as a PNG image artifact, asking with the configured model and size', async () => {
    fake.images.script({ form: 'b64_json' });
    const result = await call({ prompt: 'a lighthouse at dusk, watercolour' });
    expect(result.success).toBe(true);
    expect(result.artifacts).toHaveLength(1);
    expect(result.artifacts?.[0]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(Buffer.compare(result.artifacts?.[0]?.content as Buffer, TINY_PNG)).toBe(0);
    expect(fake.images.requests.at(-1)).toMatchObject({ model: 'gpt-image-1', prompt: 'a lighthouse at dusk, watercolour', n: 1, size: '1024x1024' });
    expect(result.output).toContain('sent to the person with your answer');
  });

  it('fetches an image given by url from the endpoint\'s own server', async () => {
    fake.images.script({ form: 'url' });
    const result = await call({ prompt: 'a red kite', n: 2, size: '512x512' });
    expect(result.artifacts?.map((artifact) => artifact.type)).toEqual(['image', 'image']);
    expect(Buffer.compare(result.artifacts?.[1]?.content as Buffer, TINY_PNG)).toBe(0);
    expect(fake.images.requests.at(-1)).toMatchObject({ n: 2, size: '512x512' });
  });

  it('counts the tokens the endpoint reports, one ledger row per image, and /usage shows the images', async () => {
    const before = usageToday(app.db, app.config);
    fake.images.script({ usage: { input_tokens: 20, output_tokens: 2000 } });
    await call({ prompt: 'two owls', n: 2 });
    const after = usageToday(app.db, app.config);
    expect(after.totalTokens - before.totalTokens).toBe(2020);
    expect(after.images - before.images).toBe(2);
    expect(after.turns).toBe(before.turns);
    const reply = await app.commands.get('usage')?.run({ ...CHAT, args: '', conversationId: app.conversations.resolve(CHAT.channel, CHAT.chatId) });
    expect(reply).toMatch(/\d+ images/);
  });

  it('counts tools.images.tokens_per_image for each image when the endpoint reports no usage', async () => {
    const before = usageToday(app.db, app.config).totalTokens;
    fake.images.script({ form: 'b64_json' });
    await call({ prompt: 'a cat', n: 3 });
    expect(usageToday(app.db, app.config).totalTokens - before).toBe(1500);
  });

  it('refuses once the daily budget is spent, without asking the endpoint', async () => {
    const asked = fake.images.requests.length;
    app.config.llm.daily_token_budget = 1;
    try {
      const result = await call({ prompt: 'a dog' });
      expect(result.success).toBe(false);
      expect(result.output).toContain('token budget');
      expect(fake.images.requests.length).toBe(asked);
    } finally {
      app.config.llm.daily_token_budget = 0;
    }
  });

  it('passes on the endpoint\'s refusal as something the model can fix', async () => {
    fake.images.script({ status: 400, error: 'Your request was rejected by the safety system.' });
    const result = await call({ prompt: 'something refused' });
    expect(result.success).toBe(false);
    expect(result.output).toContain('rejected by the safety system');
    expect(result.output).toContain('Change the prompt');
  });

  it('refuses a size that is not WIDTHxHEIGHT before anything is sent', async () => {
    const asked = fake.images.requests.length;
    const result = await call({ prompt: 'x', size: 'huge' });
    expect(result.success).toBe(false);
    expect(fake.images.requests.length).toBe(asked);
  });
});
