import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OWNER_DC, sleep, startChannelRig, userTexts, type ChannelRig } from '../helpers/channels.js';

const GUILD_CHANNEL = '800000000000000002';

describe('Discord channel (discord.js against the fake gateway and REST)', () => {
  let rig: ChannelRig;

  beforeEach(async () => {
    rig = await startChannelRig({ which: ['discord'] });
    rig.llm.handle((request) => {
      const user = request.body.messages.filter((message) => message.role === 'user').at(-1);
      return { content: `echo: ${typeof user?.content === 'string' ? user.content : '[parts]'}` };
    });
  });

  afterEach(async () => {
    await rig.close();
  });

  const contents = (channelId: string): string[] => rig.discord.messagesIn(channelId).map((message) => message.content);

  it('answers an allowed user in a DM, with typing', async () => {
    rig.llm.script({ content: 'Hello from **Discord**.', delayMs: 200 });
    const { channelId } = rig.discord.sendUserMessage({ userId: OWNER_DC, username: 'owner', content: 'hi', dm: true });
    const sent = await rig.discord.waitFor(() => rig.discord.messagesIn(channelId)[0]);
    expect(sent.content).toBe('Hello from **Discord**.');
    expect(rig.discord.typing.some((event) => event.channelId === channelId)).toBe(true);
    expect(userTexts(rig.llm)).toEqual(['hi']);
  });

  it('in a guild answers only when mentioned or replied to, as a reply', async () => {
    rig.discord.sendUserMessage({ userId: OWNER_DC, content: 'talking among ourselves', channelId: GUILD_CHANNEL });
    const { messageId } = rig.discord.sendUserMessage({ userId: OWNER_DC, content: 'what is 2+2?', channelId: GUILD_CHANNEL, mentionsBot: true });
    const answer = await rig.discord.waitFor(() => rig.discord.messagesIn(GUILD_CHANNEL)[0]);
    expect(answer.content).toBe('echo: what is 2+2?');
    expect(answer.replyToMessageId).toBe(messageId);
    rig.discord.sendUserMessage({ userId: OWNER_DC, content: 'and 3+3?', channelId: GUILD_CHANNEL, replyToMessageId: answer.id });
    await rig.discord.waitFor(() => rig.discord.messagesIn(GUILD_CHANNEL)[1]);
    expect(userTexts(rig.llm)).toEqual(['what is 2+2?', 'and 3+3?']);
  });

  it('splits a long answer into parts of at most 2000 characters with balanced fences', async () => {
    const code = '```js\n' + Array.from({ length: 200 }, (_, index) => `console.log(${index}); // a comment`).join('\n') + '\n```';
    rig.llm.script({ content: `Intro paragraph.\n\n${code}\n\nOutro.` });
    const { channelId } = rig.discord.sendUserMessage({ userId: OWNER_DC, content: 'code please', dm: true });
    await rig.discord.waitFor(() => contents(channelId).at(-1)?.endsWith('Outro.'));
    const parts = contents(channelId);
    expect(parts.length).toBeGreaterThanOrEqual(4);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(2000);
      expect(part.split('\n').filter((line) => line.startsWith('```')).length % 2).toBe(0);
    }
  });

  it('never pings: mentions in the model\'s text go out with no allowed mentions, replies do not ping either', async () => {
    rig.llm.script({ content: '@everyone @here look, <@123456789012345678> and <@&223456789012345678>' });
    const { messageId } = rig.discord.sendUserMessage({ userId: OWNER_DC, content: 'ping them', channelId: GUILD_CHANNEL, mentionsBot: true });
    await rig.discord.waitFor(() => rig.discord.messagesIn(GUILD_CHANNEL)[0]);
    const post = rig.discord.requests.find((request) => request.method === 'POST' && request.path.endsWith(`/channels/${GUILD_CHANNEL}/messages`));
    const body = post?.body as { content?: string; allowed_mentions?: unknown; message_reference?: { message_id?: string } } | undefined;
    expect(body?.content).toContain('@everyone');
    expect(body?.allowed_mentions).toEqual({ parse: [], replied_user: false });
    expect(body?.message_reference?.message_id).toBe(messageId);
  });

  it('does not answer twice when the gateway drops and replays events', async () => {
    const { channelId, messageId } = rig.discord.sendUserMessage({ userId: OWNER_DC, content: 'once', dm: true });
    await rig.discord.waitFor(() => rig.discord.messagesIn(channelId)[0]);
    rig.discord.dropConnection(4000);
    await rig.discord.waitFor(() => rig.discord.gateway.resumes >= 1, 10_000);
    rig.discord.redispatch(messageId);
    rig.discord.sendUserMessage({ userId: OWNER_DC, content: 'twice', dm: true });
    await rig.discord.waitFor(() => rig.discord.messagesIn(channelId)[1], 10_000);
    await sleep(200);
    expect(contents(channelId)).toEqual(['echo: once', 'echo: twice']);
  });

  it('does not answer a replayed message again after a daemon restart', async () => {
    const { channelId, messageId } = rig.discord.sendUserMessage({ userId: OWNER_DC, content: 'before', dm: true });
    await rig.discord.waitFor(() => rig.discord.messagesIn(channelId)[0]);
    await rig.restart();
    rig.discord.redispatch(messageId);
    rig.discord.sendUserMessage({ userId: OWNER_DC, content: 'after', dm: true });
    await rig.discord.waitFor(() => rig.discord.messagesIn(channelId)[1], 10_000);
    await sleep(200);
    expect(contents(channelId)).toEqual(['echo: before', 'echo: after']);
    expect(userTexts(rig.llm)).toEqual(['before', 'after']);
  });

  it('stores an attachment for the agent and sends artifacts back as files', async () => {
    rig.app.tools.register({
      name: 'export', description: 'Export.', parameters: { type: 'object', properties: {} },
      async execute() {
        return { success: true, output: 'exported', artifacts: [{ type: 'json', name: 'result', content: '{"ok":true}' }] };
      },
    });
    rig.llm.script({ toolCalls: [{ name: 'export', arguments: {} }] }, { content: 'Exported.' });
    const { channelId } = rig.discord.sendUserMessage({
      userId: OWNER_DC, content: 'read this', dm: true, attachments: [{ filename: 'notes.txt', content: 'buy milk', contentType: 'text/plain' }],
    });
    const withFile = await rig.discord.waitFor(() => rig.discord.messagesIn(channelId).find((message) => message.files.length > 0));
    expect(withFile.files[0]?.name).toBe('result.json');
    expect(withFile.files[0]?.bytes.toString()).toBe('{"ok":true}');
    const prompt = userTexts(rig.llm)[0] ?? '';
    const stored = /- notes\.txt \(text\/plain, 8 B\): (\S+)/.exec(prompt)?.[1] ?? '';
    expect(stored).toMatch(/^uploads\/[a-z0-9]+-notes\.txt$/);
    expect(readFileSync(path.join(rig.app.config.data_dir, 'workspaces', rig.app.conversations.resolve('discord', channelId), stored), 'utf8')).toBe('buy milk');
  });

  it('answers chat commands without the LLM and /stop ends a long turn', async () => {
    rig.llm.script({ hang: true });
    const { channelId } = rig.discord.sendUserMessage({ userId: OWNER_DC, content: 'long task', dm: true });
    await rig.llm.waitForRequests(1);
    rig.discord.sendUserMessage({ userId: OWNER_DC, content: '/status', dm: true });
    const status = await rig.discord.waitFor(() => rig.discord.messagesIn(channelId)[0]);
    expect(status.content).toMatch(/Queue: 1 running/);
    rig.discord.sendUserMessage({ userId: OWNER_DC, content: '/stop', dm: true });
    await rig.discord.waitFor(() => rig.discord.messagesIn(channelId)[1]);
    expect(contents(channelId)[1]).toBe('Stopped.');
    expect(rig.llm.requests).toHaveLength(1);
  });

  it('gives a short message when the LLM fails and keeps serving', async () => {
    rig.llm.script({ status: 500 }, { status: 500 }, { status: 500 });
    const { channelId } = rig.discord.sendUserMessage({ userId: OWNER_DC, content: 'hello?', dm: true });
    await rig.discord.waitFor(() => rig.discord.messagesIn(channelId)[0]);
    expect(contents(channelId)[0]).toMatch(/^Sorry, I could not answer/);
    rig.discord.sendUserMessage({ userId: OWNER_DC, content: 'again', dm: true });
    await rig.discord.waitFor(() => rig.discord.messagesIn(channelId)[1]);
    expect(contents(channelId)[1]).toBe('echo: again');
  });
});
