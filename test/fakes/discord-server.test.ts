import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ActionRowBuilder, ButtonBuilder, ButtonStyle, Client, DiscordAPIError, Events, GatewayIntentBits, Partials,
  type Interaction, type Message,
} from 'discord.js';
import { startDiscordServer, type FakeDiscord } from './discord-server.js';

const makeClient = (fake: FakeDiscord): Client => new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages, GatewayIntentBits.MessageContent],
  partials: [Partials.Channel],
  rest: { api: fake.restApi },
});

describe('fake Discord with the real discord.js client', () => {
  let fake: FakeDiscord;
  let client: Client;
  const received: Message[] = [];
  const interactions: Interaction[] = [];
  const fromUser = (id: string): Message | undefined => received.find((m) => m.id === id);

  beforeAll(async () => {
    fake = await startDiscordServer({ token: 'good-token', botId: '900000000000000042', botUsername: 'familiar' });
    client = makeClient(fake);
    client.on(Events.MessageCreate, (m) => { if (!m.author.bot) received.push(m); });
    client.on(Events.InteractionCreate, (i) => { interactions.push(i); });
    const ready = once(client, Events.ClientReady);
    await client.login('good-token');
    await ready;
  });
  afterAll(async () => {
    await client?.destroy();
    await fake?.close();
  });

  it('logs in: READY and GUILD_CREATE populate the client', () => {
    expect(client.user?.id).toBe('900000000000000042');
    expect(client.guilds.cache.get('800000000000000001')?.channels.cache.has('800000000000000002')).toBe(true);
    expect(fake.gateway.identifies).toBe(1);
    expect(fake.requests.some((r) => r.method === 'GET' && r.path === '/gateway/bot')).toBe(true);
  });

  it('delivers a DM and records the reply; DMs a user by id', async () => {
    const { messageId, channelId } = fake.sendUserMessage({ userId: '111', username: 'alice', content: 'hello bot', dm: true });
    const msg = await fake.waitFor(() => fromUser(messageId));
    expect(msg.channel.isDMBased()).toBe(true);
    expect(msg.content).toBe('hello bot');
    await msg.reply('hi alice');
    const sent = await fake.waitFor(() => fake.messagesIn(channelId).find((m) => m.content === 'hi alice'));
    expect(sent.replyToMessageId).toBe(messageId);
    await client.users.send('111', 'proactive');
    expect(fake.messagesIn(fake.dmChannelId('111')).map((m) => m.content)).toContain('proactive');
  });

  it('flags guild mentions of the bot and serves user uploads', async () => {
    const { messageId } = fake.sendUserMessage({
      userId: '222', username: 'bob', content: 'look at this', mentionsBot: true,
      attachments: [{ filename: 'notes.txt', content: 'file body', contentType: 'text/plain' }],
    });
    const msg = await fake.waitFor(() => fromUser(messageId));
    expect(msg.inGuild()).toBe(true);
    expect(msg.mentions.has(client.user!)).toBe(true);
    expect(msg.content).toBe('<@900000000000000042> look at this');
    const att = msg.attachments.first()!;
    expect(att.name).toBe('notes.txt');
    expect(await (await fetch(att.url)).text()).toBe('file body');
  });

  it('uploads files (multipart), rejects 2001 chars, records typing', async () => {
    const { messageId, channelId } = fake.sendUserMessage({ userId: '222', content: 'send me a file' });
    const msg = await fake.waitFor(() => fromUser(messageId));
    const reply = await msg.reply({ content: 'here', files: [{ attachment: Buffer.from('abc\n'), name: 'a.txt' }] });
    expect(reply.attachments.first()?.name).toBe('a.txt');
    const sent = fake.messagesIn(channelId).at(-1)!;
    expect(sent.files).toHaveLength(1);
    expect(sent.files[0]?.name).toBe('a.txt');
    expect(sent.files[0]?.bytes.toString()).toBe('abc\n');

    if (!msg.channel.isSendable()) throw new Error('not sendable');
    const err = await msg.channel.send('x'.repeat(2001)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DiscordAPIError);
    expect((err as DiscordAPIError).code).toBe(50035);

    await msg.channel.sendTyping();
    expect(fake.typing.some((t) => t.channelId === channelId)).toBe(true);

    const edited = await reply.edit('here (edited)');
    expect(edited.content).toBe('here (edited)');
    expect(sent.edits).toEqual(['here']);
  });

  it('retries after a simulated 429', async () => {
    fake.failNext('POST /channels/:id/messages', 429, undefined, 0.2);
    const before = fake.requests.length;
    const channel = await client.channels.fetch('800000000000000002');
    if (!channel?.isSendable()) throw new Error('not sendable');
    await channel.send('after 429');
    const tries = fake.requests.slice(before).filter((r) => r.method === 'POST' && r.path.endsWith('/messages'));
    expect(tries.map((r) => r.status)).toEqual([429, 200]);
  });

  it('delivers button clicks and records interaction.update', async () => {
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(new ButtonBuilder().setCustomId('approve').setLabel('Approve').setStyle(ButtonStyle.Primary));
    const channel = await client.channels.fetch('800000000000000002');
    if (!channel?.isSendable()) throw new Error('not sendable');
    const sent = await channel.send({ content: 'Approve?', components: [row] });
    expect(fake.messages.find((m) => m.id === sent.id)?.components).toHaveLength(1);
    const { interactionId } = fake.clickButton({ channelId: channel.id, messageId: sent.id, customId: 'approve', userId: '222' });
    const interaction = await fake.waitFor(() => interactions.find((i) => i.id === interactionId));
    if (!interaction.isButton()) throw new Error('expected a button interaction');
    expect(interaction.customId).toBe('approve');
    expect(interaction.user.id).toBe('222');
    await interaction.update({ content: 'Approved', components: [] });
    expect(fake.interactionResponses.at(-1)).toMatchObject({ interactionId, type: 7, data: { content: 'Approved' } });
    expect(fake.messages.find((m) => m.id === sent.id)?.content).toBe('Approved');
  });

  it('resumes after dropped connections and replays missed events exactly once', async () => {
    for (const code of [4000, undefined]) {
      const resumesBefore = fake.gateway.resumes;
      const resumed = once(client, Events.ShardResume);
      fake.dropConnection(code);
      const { messageId } = fake.sendUserMessage({ userId: '333', content: `while away ${code ?? 'abnormal'}` });
      await resumed;
      expect(fake.gateway.resumes).toBe(resumesBefore + 1);
      await fake.waitFor(() => fromUser(messageId));
      const later = fake.sendUserMessage({ userId: '333', content: 'after resume' });
      await fake.waitFor(() => fromUser(later.messageId));
      await new Promise((r) => setTimeout(r, 50));
      expect(received.filter((m) => m.id === messageId || m.id === later.messageId)).toHaveLength(2);
    }
    expect(fake.gateway.identifies).toBe(1);
  });
});

describe('authentication', () => {
  it('rejects login with a bad token', async () => {
    const fake = await startDiscordServer({ token: 'right' });
    const client = makeClient(fake);
    try {
      await expect(client.login('wrong')).rejects.toThrow(/token/i);
      expect(fake.requests[0]).toMatchObject({ path: '/gateway/bot', status: 401 });
    } finally {
      await client.destroy();
      await fake.close();
    }
  });
});
