import { setTimeout as sleep } from 'node:timers/promises';
import { Api, Bot, GrammyError, HttpError, InputFile, type Context } from 'grammy';
import type { InlineKeyboardMarkup, Message, MessageEntity } from 'grammy/types';
import { StartRetrying, type ChatCommands, type DoctorLine } from '../part.js';
import type { Config } from '../config/schema.js';
import { AppError, errorMessage } from '../errors.js';
import { deadline } from '../lib/abort.js';
import type { Logger } from '../log.js';
import type { Artifact } from '../tools/types.js';
import type { RemoteAttachment } from './attachments.js';
import { cleanName } from './display-name.js';
import type { ChannelRouter, ChatIo, InboundUpdate } from './router.js';
import { telegramRetry } from './telegram-retry.js';
import { renderTelegramParts, TELEGRAM_TEXT_LIMIT, type TelegramPart } from './telegram-text.js';
import type { AttachmentKind, ChannelAdapter, OutboundReply, SpokenReply } from './types.js';

export type TelegramConfig = NonNullable<Config['channels']['telegram']>;

export const TELEGRAM_LIMIT = TELEGRAM_TEXT_LIMIT;
const COMMAND_NAME = /^[a-z0-9_]{1,32}$/;
const START_TIMEOUT_MS = 20_000;
const RECONNECT_FIRST_MS = 5000;
const RECONNECT_MAX_MS = 60_000;
/** grammy types its signal with a shim; at run time it takes Node's own AbortSignal. */
type GrammySignal = Parameters<Api['getMe']>[0];

export interface TelegramChannelOptions {
  /** The chat commands, for Telegram's command menu (setMyCommands). */
  commands: ChatCommands;
  router: ChannelRouter;
  config: TelegramConfig;
  log: Logger;
}

/**
 * Telegram through grammy: long polling, Markdown replies as Telegram HTML (the same text plain when Telegram
 * refuses a part with any 400), parts of at most 4096 UTF-16 units of visible text, files in and out, retries on 429 and network
 * errors. Contract: `start` throws AppError TELEGRAM_AUTH for a rejected token; nothing after start throws
 * out of an update handler.
 */
export class TelegramChannel implements ChannelAdapter {
  readonly name = 'telegram';
  /** The grammy bot, for parts that add their own handlers before `start` (callback buttons). */
  readonly bot: Bot;
  private readonly options: TelegramChannelOptions;
  private readonly log: Logger;
  private readonly apiRoot: string;
  private accepting = false;
  private stopped = false;
  private polling: Promise<void> | undefined;
  /** Aborts the start's `getMe` and the tries after it, at `stop`. */
  private abort: AbortController | undefined;
  private readonly callbackListeners: Array<(ctx: Context) => void | Promise<void>> = [];
  /** The command names last sent to setMyCommands. */
  private menu = '';

  constructor(options: TelegramChannelOptions) {
    this.options = options;
    this.log = options.log;
    this.apiRoot = options.config.api_root.replace(/\/+$/, '');
    this.bot = new Bot(options.config.token, { client: { apiRoot: this.apiRoot } });
    this.bot.api.config.use(telegramRetry({ log: this.log }));
    this.bot.on('callback_query', (ctx) => {
      for (const listener of this.callbackListeners) {
        Promise.resolve(listener(ctx)).catch((error: unknown) => this.log.error({ err: error }, 'telegram: callback listener failed'));
      }
    });
    this.bot.on('message', (ctx) => {
      // Not awaited: grammy handles one batch at a time, and a slow turn in one chat must not hold the others.
      this.onMessage(ctx);
    });
    this.bot.catch((error) => this.log.error({ err: error.error }, 'telegram: update handler failed'));
  }

  /**
   * Asks Telegram who the bot is (`getMe`, with the daemon's retries: a few seconds, 20 at most), then polls. Not grammy's
   * `bot.init()`: it retries a network error or a 5xx without end, so an unreachable Bot API held the whole daemon's
   * start (no "ready", no scheduler) and a stop signal with it. Unreachable, it throws StartRetrying and keeps
   * trying in the background (the network is often not up yet at boot); a rejected token is a fix, not a wait.
   */
  async start(): Promise<void> {
    this.stopped = false;
    const stop = new AbortController();
    this.abort = stop;
    try {
      this.bot.botInfo = await this.whoAmI(stop.signal);
    } catch (error) {
      const failure = error instanceof AppError ? error : this.startError(error);
      if (stop.signal.aborted || failure.code === 'TELEGRAM_AUTH') throw failure;
      throw new StartRetrying(failure, this.connectLater(stop.signal));
    }
    await this.begin();
  }

  /** Stops polling (grammy confirms the last offset), or the tries to connect; replies of running turns still go out. */
  async stop(): Promise<void> {
    this.accepting = false;
    this.stopped = true;
    this.abort?.abort(new AppError('TELEGRAM_STOPPED', 'telegram: stopped'));
    if (this.bot.isRunning()) await this.bot.stop().catch((error: unknown) => this.log.debug({ err: error }, 'telegram: stop'));
    await this.polling;
  }

  async close(): Promise<void> {
    this.accepting = false;
  }

  /**
   * Button presses (callback queries) go to these listeners at once, outside any chat's turn queue, so an
   * approval asked by a running turn can be answered. May be called before or after `start`.
   */
  onCallbackQuery(listener: (ctx: Context) => void | Promise<void>): void {
    this.callbackListeners.push(listener);
  }

  async doctor(): Promise<DoctorLine[]> {
    try {
      // Its own client, without the daemon's retries: a check answers in seconds and logs nothing.
      const me = await new Api(this.options.config.token, { apiRoot: this.apiRoot, timeoutSeconds: 10 }).getMe();
      return [{ status: 'ok', label: 'telegram', detail: `@${me.username}` }];
    } catch (error) {
      const rejected = error instanceof GrammyError && (error.error_code === 401 || error.error_code === 404);
      return [{
        status: 'fail', label: 'telegram', detail: rejected ? `token rejected (${(error as GrammyError).error_code})` : `cannot reach ${this.apiRoot} (${networkReason(error)})`,
        fix: rejected ? 'set channels.telegram.token to the token @BotFather gave you' : 'check the network, and channels.telegram.api_root if you set it',
      }];
    }
  }

  /** Sends a reply to a chat (also used by jobs through the ChannelHub). */
  async send(chatId: string, reply: OutboundReply, replyTo?: number): Promise<void> {
    if (!this.bot.isInited()) throw new AppError('CHANNEL_UNAVAILABLE', 'telegram is not running (it failed to start or was stopped)');
    const parts = renderTelegramParts(reply.text, TELEGRAM_LIMIT);
    // Buttons go under the last part: the whole text is above them.
    const keyboard = reply.buttons && reply.buttons.length > 0
      ? { reply_markup: { inline_keyboard: [reply.buttons.map((button) => ({ text: button.label, callback_data: button.data }))] } }
      : {};
    for (const [index, part] of parts.entries()) {
      await this.sendPart(chatId, part, index === 0 ? replyTo : undefined, index === parts.length - 1 ? keyboard : {});
    }
    for (const artifact of reply.artifacts ?? []) await this.sendArtifact(chatId, artifact);
  }

  /**
   * `getMe` for the start, given up after 20 s: a Bot API that takes the connection and never answers would hold the
   * start for grammy's 500 s timeout. A `deadline` (src/lib/abort.ts), not `AbortSignal.timeout` in `AbortSignal.any`:
   * Node 20 may collect that timeout signal before it fires.
   */
  private async whoAmI(stop: AbortSignal): Promise<Bot['botInfo']> {
    const limit = deadline(START_TIMEOUT_MS, stop);
    try {
      return await this.bot.api.getMe(limit.signal as GrammySignal);
    } catch (error) {
      // Aborted by the time limit (its TimeoutError), not by stop() or the network.
      if ((limit.signal.reason as Error | undefined)?.name !== 'TimeoutError') throw error;
      throw new AppError('TELEGRAM_UNREACHABLE', `telegram: ${this.apiRoot} did not answer within ${START_TIMEOUT_MS / 1000} s`, { cause: error });
    } finally {
      limit.done();
    }
  }

  /** What a start does once Telegram answered: the command menu, the messages a crash left, polling. */
  private async begin(): Promise<void> {
    // Stopped while Telegram answered (a stop signal during start-up): polling would outlive the daemon's close.
    if (this.stopped) return;
    await this.registerCommands();
    this.accepting = true;
    // Messages whose turn a crash cut are queued before the first poll, so they keep their place in their chat.
    const replayed = this.options.router.replay(this.name, (update) => this.chatIo(update));
    if (replayed > 0) this.log.info({ replayed }, 'telegram: answering messages left unanswered by the last run');
    this.poll();
    this.log.info({ bot: this.bot.botInfo.username }, 'telegram: polling');
  }

  /**
   * `getMe` again, 5 s after the failed start and then less and less often (a minute at most), until Telegram
   * answers (then it polls), rejects the token, or `stop` aborts. One plain request a try, logged at debug: the
   * daemon's retries would log four warnings a try through a long outage.
   */
  private async connectLater(signal: AbortSignal): Promise<void> {
    const api = new Api(this.options.config.token, { apiRoot: this.apiRoot, timeoutSeconds: 30 });
    for (let attempt = 0; ; attempt += 1) {
      await sleep(Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** attempt), undefined, { signal });
      try {
        this.bot.botInfo = await api.getMe(signal as GrammySignal);
        break;
      } catch (error) {
        const failure = this.startError(error);
        if (signal.aborted) throw failure;
        if (failure.code === 'TELEGRAM_AUTH') {
          this.log.error({ err: failure }, 'telegram: the bot token was rejected; no more tries (fix it and restart)');
          throw failure;
        }
        this.log.debug({ attempt: attempt + 1, reason: networkReason(error) }, 'telegram: still cannot reach the Bot API');
      }
    }
    signal.throwIfAborted();
    await this.begin();
  }

  private startError(error: unknown): AppError {
    if (error instanceof GrammyError && (error.error_code === 401 || error.error_code === 404)) {
      return new AppError('TELEGRAM_AUTH', 'telegram: the bot token was rejected; check channels.telegram.token (from @BotFather)', { cause: error });
    }
    return new AppError('TELEGRAM_UNREACHABLE', `telegram: cannot reach ${this.apiRoot}: ${networkReason(error)}`, { cause: error });
  }

  private poll(): void {
    this.polling = this.bot
      .start({ allowed_updates: ['message', 'callback_query'], timeout: 30 })
      .catch((error: unknown) => {
        if (this.stopped) return;
        const fatal = error instanceof GrammyError && error.error_code === 401;
        this.log.error({ err: error }, fatal ? 'telegram: polling stopped: the token was rejected' : 'telegram: polling failed; restarting in 5 s');
        // 409 (another instance polled) and other failures are usually transient: poll again.
        if (!fatal) setTimeout(() => { if (!this.stopped) this.poll(); }, 5000).unref();
      });
  }

  private async registerCommands(): Promise<void> {
    const commands = [...this.options.commands.entries()]
      .filter(([name]) => COMMAND_NAME.test(name))
      .slice(0, 100)
      .map(([command, { description }]) => ({ command, description: description.slice(0, 256) || command }));
    this.menu = commands.map((command) => command.command).join(' ');
    try {
      await this.bot.api.setMyCommands(commands);
    } catch (error) {
      this.log.warn({ err: error }, 'telegram: setMyCommands failed; the command menu may be out of date');
    }
  }

  /**
   * The command list changes while the daemon runs (MCP prompts come and go with their servers): the menu is set
   * again, in the background, when a message arrives and the names differ from the last ones sent.
   */
  private syncCommands(): void {
    const names = [...this.options.commands.keys()].filter((name) => COMMAND_NAME.test(name)).slice(0, 100).join(' ');
    if (names === this.menu) return;
    this.menu = names;
    this.registerCommands().catch((error: unknown) => this.log.debug({ err: error }, 'telegram: command menu not updated'));
  }

  private onMessage(ctx: Context): void {
    const message = ctx.message;
    if (!this.accepting || !message?.from || message.from.is_bot) return;
    this.syncCommands();
    const isDirect = message.chat.type === 'private';
    const rawText = message.text ?? message.caption ?? '';
    const entities = message.entities ?? message.caption_entities ?? [];
    if (!isDirect && this.options.config.group_mention_only && !this.addressed(message, rawText, entities)) return;
    const chatId = String(message.chat.id);
    const update: InboundUpdate = {
      channel: this.name,
      chatId,
      userId: String(message.from.id),
      // Names are the sender's to choose: stripped of control and reordering characters before anything prints them.
      userName: cleanName(message.from.username ?? [message.from.first_name, message.from.last_name].filter(Boolean).join(' ')),
      text: isDirect ? rawText : this.stripMention(rawText),
      attachments: this.attachmentsOf(message),
      platformMessageId: String(message.message_id),
      ...(message.reply_to_message ? { replyTo: String(message.reply_to_message.message_id) } : {}),
      isDirect,
      ...(message.forward_origin ? { forwarded: true } : {}),
    };
    void this.options.router.handle(update, this.chatIo(update));
  }

  /** Replies go to the message's chat; in groups they quote the message they answer. */
  private chatIo(update: InboundUpdate): ChatIo {
    const replyTo = update.isDirect ? undefined : Number(update.platformMessageId);
    return {
      send: (reply) => this.send(update.chatId, reply, replyTo),
      typing: async () => {
        await this.bot.api.sendChatAction(update.chatId, 'typing');
      },
      voice: {
        format: 'ogg_opus',
        send: (audio) => this.sendVoice(update.chatId, audio, replyTo),
        recording: async () => {
          await this.bot.api.sendChatAction(update.chatId, 'record_voice');
        },
      },
      // Plain text: a status line quotes a tool's words and must not be read as markup.
      sendEditable: async (text) => {
        const sent = await this.bot.api.sendMessage(update.chatId, text, { link_preview_options: { is_disabled: true } });
        return async (next) => {
          try {
            await this.bot.api.editMessageText(update.chatId, sent.message_id, next, { link_preview_options: { is_disabled: true } });
          } catch (error) {
            // Telegram refuses an edit to the same text; that is not a failure.
            if (!(error instanceof GrammyError && /not modified/i.test(error.description))) throw error;
          }
        };
      },
    };
  }

  /**
   * A spoken answer as a voice message (OGG/Opus, played inline). Someone who does not accept voice messages (a
   * Telegram privacy setting: VOICE_MESSAGES_FORBIDDEN) gets the same file as an audio message instead.
   */
  async sendVoice(chatId: string, audio: SpokenReply, replyTo?: number): Promise<void> {
    const reply = replyTo === undefined ? {} : { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } };
    const duration = Math.max(1, Math.round(audio.seconds));
    try {
      await this.bot.api.sendVoice(chatId, new InputFile(audio.data, audio.fileName), { duration, ...reply });
    } catch (error) {
      if (!(error instanceof GrammyError && /VOICE_MESSAGES_FORBIDDEN/i.test(error.description))) throw error;
      this.log.info('telegram: voice messages are refused in this chat; sending the spoken answer as audio');
      await this.bot.api.sendAudio(chatId, new InputFile(audio.data, audio.fileName), { duration, title: 'Spoken answer', ...reply });
    }
  }

  /** In groups: a mention of the bot, a command addressed to it, or a reply to one of its messages. */
  private addressed(message: Message, text: string, entities: readonly MessageEntity[]): boolean {
    const me = this.bot.botInfo;
    if (message.reply_to_message?.from?.id === me.id) return true;
    const username = `@${me.username}`.toLowerCase();
    return entities.some((entity) => {
      const value = text.slice(entity.offset, entity.offset + entity.length).toLowerCase();
      if (entity.type === 'mention') return value === username;
      if (entity.type === 'text_mention') return entity.user.id === me.id;
      if (entity.type === 'bot_command') return entity.offset === 0 && (!value.includes('@') || value.endsWith(username));
      return false;
    });
  }

  private stripMention(text: string): string {
    const pattern = new RegExp(`(^|\\s)@${this.bot.botInfo.username}\\b`, 'gi');
    return text.replace(pattern, '$1').trim();
  }

  private attachmentsOf(message: Message): RemoteAttachment[] {
    const files: RemoteAttachment[] = [];
    const id = message.message_id;
    const largest = message.photo?.at(-1);
    if (largest) files.push(this.remote(largest.file_id, 'image', `photo-${id}.jpg`, 'image/jpeg', largest.file_size));
    // Voice notes, audio files and round video notes carry speech: they are transcribed (voice.stt) and kept.
    if (message.voice) files.push(this.remote(message.voice.file_id, 'audio', `voice-${id}.ogg`, message.voice.mime_type ?? 'audio/ogg', message.voice.file_size, 'voice note'));
    if (message.video_note) files.push(this.remote(message.video_note.file_id, 'audio', `video-note-${id}.mp4`, 'video/mp4', message.video_note.file_size, 'video note'));
    if (message.audio) {
      const mimeType = message.audio.mime_type ?? 'audio/mpeg';
      files.push(this.remote(message.audio.file_id, 'audio', message.audio.file_name ?? `audio-${id}.${mimeType === 'audio/ogg' ? 'ogg' : 'mp3'}`, mimeType, message.audio.file_size, 'audio file'));
    }
    const document = message.document ?? message.video;
    if (document) {
      const mimeType = document.mime_type ?? 'application/octet-stream';
      const name = ('file_name' in document ? document.file_name : undefined) ?? `file-${id}`;
      const kind: AttachmentKind = mimeType.startsWith('image/') ? 'image' : mimeType.startsWith('audio/') ? 'audio' : 'file';
      files.push(this.remote(document.file_id, kind, name, mimeType, document.file_size, kind === 'audio' ? 'audio file' : undefined));
    }
    return files;
  }

  private remote(fileId: string, kind: AttachmentKind, name: string, mimeType: string, size: number | undefined, label?: string): RemoteAttachment {
    return {
      kind, name, mimeType, size: size ?? 0, ...(label !== undefined ? { label } : {}),
      fetch: async () => {
        const file = await this.bot.api.getFile(fileId);
        if (!file.file_path) throw new Error('Telegram gave no file_path (the file may be over 20 MB)');
        // The token is part of Telegram's file URL by design; this URL is never logged.
        const response = await fetch(`${this.apiRoot}/file/bot${this.options.config.token}/${file.file_path}`, { signal: AbortSignal.timeout(60_000) });
        if (!response.ok) throw new Error(`file download returned HTTP ${response.status}`);
        return Buffer.from(await response.arrayBuffer());
      },
    };
  }

  /**
   * One part as HTML; on any 400 (entities refused, a length or an empty text Telegram counts differently, a
   * parse error no test foresaw) the same visible text is sent plain, so the part is never lost.
   */
  private async sendPart(chatId: string, part: TelegramPart, replyTo: number | undefined, markup: { reply_markup?: InlineKeyboardMarkup } = {}): Promise<void> {
    const reply = { ...(replyTo === undefined ? {} : { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } }), ...markup };
    try {
      await this.bot.api.sendMessage(chatId, part.html, { parse_mode: 'HTML', link_preview_options: { is_disabled: true }, ...reply });
    } catch (error) {
      if (!(error instanceof GrammyError && error.error_code === 400)) throw error;
      this.log.warn({ description: error.description, length: part.text.length }, 'telegram: part refused as HTML; resending it as plain text');
      await this.bot.api.sendMessage(chatId, part.text, { link_preview_options: { is_disabled: true }, ...reply });
    }
  }

  private async sendArtifact(chatId: string, artifact: Artifact): Promise<void> {
    const data = typeof artifact.content === 'string' ? Buffer.from(artifact.content, 'utf8') : artifact.content;
    const name = artifact.type === 'json' && !/\.json$/i.test(artifact.name) ? `${artifact.name}.json` : artifact.name;
    if (artifact.type === 'image') {
      try {
        await this.bot.api.sendPhoto(chatId, new InputFile(data, name));
        return;
      } catch (error) {
        // Telegram refuses some images as photos (size, dimensions); a document always goes through.
        this.log.warn({ err: error, file: name }, 'telegram: sendPhoto failed; sending as a document');
      }
    }
    await this.bot.api.sendDocument(chatId, new InputFile(data, name));
  }
}

/** The innermost cause of a failed request, e.g. "connect ECONNREFUSED 127.0.0.1:1", without grammy's preamble. */
function networkReason(error: unknown): string {
  let current: unknown = error;
  // grammy's HttpError keeps the fetch error in `error`; fetch errors keep theirs in `cause`.
  for (let depth = 0; depth < 5; depth += 1) {
    const inner = current instanceof HttpError ? current.error : current instanceof Error ? current.cause : undefined;
    if (!(inner instanceof Error)) break;
    current = inner;
  }
  const code = (current as NodeJS.ErrnoException | undefined)?.code;
  const message = errorMessage(current).replace(/^request to \S+ failed, reason: /, '');
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
