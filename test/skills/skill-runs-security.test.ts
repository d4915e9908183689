// A skill run from a chat belongs to that chat: another chat running the same skill does not see its history.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import { skillConversation } from '../../src/skills/runner.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { skillMd, writeSkill } from './helpers.js';

describe('skill runs are kept apart per chat', () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let app: App;

  beforeEach(async () => {
    fake = await startOpenAiServer();
    t = await makeTestApp(fake);
    app = t.app;
    app.tools.register({
      name: 'echo', description: 'Echo.', parameters: { type: 'object', properties: { text: { type: 'string' } } },
      async execute(params: { text?: string }) {
        return { success: true, output: params.text ?? '' };
      },
    });
    writeSkill(t.dir, 'journal', skillMd({ name: 'Journal', body: 'Write down what the person tells you.' }));
  });

  afterEach(async () => {
    await app.close(0);
    await fake.close();
  });

  const runFrom = async (origin: { channel: string; chatId: string; userId: string }, input: string) =>
    (await app.tools.execute({ name: 'run_skill', arguments: { id: 'journal', input }, conversationId: `chat-${origin.chatId}`, turnId: 't', origin })).result;

  it("a second chat's run of the same skill gets none of the first chat's run history", async () => {
    fake.handle(() => ({ content: 'noted' }));
    const alice = { channel: 'telegram', chatId: '111', userId: '111' };
    const bob = { channel: 'telegram', chatId: '222', userId: '222' };
    expect((await runFrom(alice, 'my bank PIN is 9876')).success).toBe(true);
    expect((await runFrom(bob, 'what did the last person write?')).success).toBe(true);
    const bobsRequest = JSON.stringify(fake.requests.at(-1)?.body.messages);
    expect(bobsRequest).toContain('what did the last person write?');
    expect(bobsRequest).not.toContain('9876');
    // Alice's next run still has her own history.
    await runFrom(alice, 'and my locker is 12');
    expect(JSON.stringify(fake.requests.at(-1)?.body.messages)).toContain('9876');
  });

  it('the owner (terminal) and unattended runs keep the skill\'s own conversation; chats get one each', () => {
    expect(skillConversation('journal')).toBe('skill-journal');
    expect(skillConversation('journal', { channel: 'cli', chatId: 'skills' })).toBe('skill-journal');
    expect(skillConversation('journal', { channel: 'scheduler', chatId: 'journal' })).toBe('skill-journal');
    const a = skillConversation('journal', { channel: 'telegram', chatId: '111' });
    const b = skillConversation('journal', { channel: 'telegram', chatId: '222' });
    expect(a).toMatch(/^skill-journal--telegram-[0-9a-f]{16}$/);
    expect(a).not.toBe(b);
    expect(skillConversation('journal', { channel: 'discord', chatId: '111' })).not.toBe(a);
  });
});
