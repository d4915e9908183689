import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon.js';
import type { ApprovalRequest } from '../../src/tools/call.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp } from '../helpers/app.js';

// image_generate sends the prompt to a third party: in a turn that holds outside content the person is asked first
// (the prompt may be made from a page or a mail); an image given by url is fetched through the SSRF guard.
const CHAT = { channel: 'telegram', chatId: '78', userId: '78' };
let fake: FakeOpenAI;
let app: Daemon;
beforeAll(async () => {
  fake = await startOpenAiServer();
  app = (await makeTestApp(fake, { tools: { images: { model: 'dall-e-3' } } }, undefined, { mode: 'command' })).app;
});
afterAll(async () => {
  await app.close(0);
  await fake.close();
});

describe('image_generate security', () => {
  it('asks the person before sending a prompt in a turn that holds outside content, and sends nothing when refused', async () => {
    const asked: ApprovalRequest[] = [];
    const before = fake.images.requests.length;
    const outcome = await app.tools.execute({
      name: 'image_generate', arguments: { prompt: 'the secret code is 1234, drawn as a poster' }, conversationId: app.conversations.resolve(CHAT.channel, CHAT.chatId),
      turnId: 't-taint', origin: CHAT, taint: ['https://mail.example/message/1'],
      approve: async (request) => {
        asked.push(request);
        return { approved: false, reason: 'no' };
      },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.reason).toBe('provenance');
    expect(asked[0]?.details?.join('\n')).toContain('the secret code is 1234');
    expect(outcome.result.success).toBe(false);
    expect(fake.images.requests.length).toBe(before);
  });

  it('makes the image without asking in a turn with no outside content', async () => {
    const outcome = await app.tools.execute({
      name: 'image_generate', arguments: { prompt: 'a teapot' }, conversationId: app.conversations.resolve(CHAT.channel, CHAT.chatId), turnId: 't-clean', origin: CHAT,
      approve: async () => ({ approved: false, reason: 'should not be asked' }),
    });
    expect(outcome.result.success).toBe(true);
  });

  it('refuses an image url on a cloud metadata address', async () => {
    fake.images.script({ form: 'url', url: 'http://169.254.169.254/latest/meta-data/iam' });
    const outcome = await app.tools.execute({ name: 'image_generate', arguments: { prompt: 'a map' }, conversationId: app.conversations.resolve(CHAT.channel, CHAT.chatId), turnId: 't-url', origin: CHAT });
    expect(outcome.result.success).toBe(false);
    expect(outcome.result.output).toContain('metadata');
    expect(outcome.result.artifacts ?? []).toHaveLength(0);
  });
});
