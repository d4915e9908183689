import { SocketModeClient } from '@slack/socket-mode';
import { ErrorCode, WebClient, type ChatPostMessageArguments, type KnownBlock } from '@slack/web-api';
import type { Config } from '../../config/schema.js';
import { AppError, errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { DoctorLine } from '../../part.js';
import { cleanName } from '../display-name.js';
import type { ChannelRouter, ChatIo, InboundUpdate } from '../router.js';
import type { ChannelAdapter, OutboundReply } from '../types.js';
import type { VoiceOut } from '../voice-notes.js';
import { remoteFiles } from './slack-files.js';
import { SLACK_LIMIT, SLACK_SECTION_LIMIT, escapeText, toMrkdwnParts } from './slack-format.js';
import { blockActions, chatIdOf, messageEvent, parseChatId, slashCommand, type BlockActions, type MessageEvent, type SlashCommand } from './slack-events.js';
import { slackLogger } from './slack-log.js';

export type SlackConfig = NonNullable<Config['channels']['slack']>;

export interface SlackChannelOptions {
  router: ChannelRouter;
  config: SlackConfig;
  log: Logger;
}

/** What a Socket Mode envelope hands its listener (the client's `slack_event`). */
interface Envelope {
  type: string;
  body: unknown;
  ack: (response?: Record<string, unknown>) => Promise<void>;
  retry_num?: number;
}

/** A button press handler (approvals, reply buttons): true when the press was its own. */
export type PressHandler = (press: BlockActions) => Promise<boolean>;

/** Web API calls are retried a little (Slack's 429s are honoured by the library); a turn's reply must not hang. */
const RETRY = { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 5000 };
const CHECK_TIMEOUT_MS = 10_000;
const API_ERRORS_OF_AUTH = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired']);

/**
 * Slack through its own libraries: the Events API over Socket Mode (`@slack/socket-mode`: no public endpoint) and
 * the Web API (`@slack/web-api`). Direct messages, and in channels messages that mention the bot or follow up in a
 * thread it answered in; every reply in the message's thread. Every envelope is acknowledged at once; one Slack
 * delivers again (unacknowledged, `retry_attempt`) has the same channel and ts, which the router's dedupe drops.
 * Contract: `start` throws AppError SLACK_AUTH naming the key whose token was rejected, SLACK_UNREACHABLE when Slack
 * cannot be reached (then it may be called again).
 */
export class SlackChannel implements ChannelAdapter {
  readonly name = 'slack';
  readonly web: WebClient;
  readonly socket: SocketModeClient;
  private readonly options: SlackChannelOptions;
  private readonly log: Logger;
  private readonly apiUrl: string;
  private readonly presses: PressHandler[] = [];
  /** Threads the bot answered in (this run): a follow-up there needs no mention. */
  private readonly threads = new Set<string>();
  private botUserId: string | undefined;
  private accepting = false;
  /** The start's check of the bot token: no retries and quiet, as a start that fails is tried again (start-retry.ts). */
  private readonly check: WebClient;
  /** Aborts a start under way, at `stop`. */
  private abort: AbortController | undefined;
  private replayed = false;

  constructor(options: SlackChannelOptions) {
    this.options = options;
    this.log = options.log;
    this.apiUrl = options.config.api_url.replace(/\/*$/, '/');
    const logger = slackLogger(options.log);
    this.web = new WebClient(options.config.bot_token, { slackApiUrl: this.apiUrl, logger, retryConfig: RETRY });
    this.check = new WebClient(options.config.bot_token, { slackApiUrl: this.apiUrl, logger: slackLogger(options.log, { quiet: true }), retryConfig: { retries: 0 }, timeout: CHECK_TIMEOUT_MS });
    this.socket = new SocketModeClient({ appToken: options.config.app_token, logger, clientOptions: { slackApiUrl: this.apiUrl, retryConfig: RETRY } });
    this.socket.on('slack_event', (envelope: Envelope) => {
      this.onEnvelope(envelope).catch((error: unknown) => this.log.error({ err: error, type: envelope.type }, 'slack: event handling failed'));
    });
  }

  /** Adds a handler of button presses (`block_actions`); handlers are asked in order until one takes the press. */
  onPress(handler: PressHandler): void {
    this.presses.push(handler);
  }

  /**
   * Checks the bot token (`auth.test`, once: a start that fails is tried again later), answers the messages the last
   * run left (once a run, as soon as Slack answers), and opens the Socket Mode connection. `stop` during the start
   * makes it give up at once.
   */
  async start(): Promise<void> {
    const stop = new AbortController();
    this.abort = stop;
    try {
      const me = await this.check.auth.test();
      this.botUserId = me.user_id;
    } catch (error) {
      throw startError(error, 'channels.slack.bot_token', 'the bot token (xoxb-…, OAuth & Permissions → Bot User OAuth Token)');
    }
    if (stop.signal.aborted) throw stopped();
    // Messages cut by a crash are queued before new ones arrive, so they keep their place in each chat. Once per run:
    // a start tried again after one that failed does not answer them twice.
    if (!this.replayed) {
      this.replayed = true;
      const replayed = this.options.router.replay(this.name, (update) => this.io(update));
      if (replayed > 0) this.log.info({ replayed }, 'slack: answering messages left unanswered by the last run');
    }
    this.accepting = true;
    // The Socket Mode client cannot be told to give up a start: stop disconnects it (which ends its own tries) and
    // the start gives up at once; a socket its start still opens after that is disconnected when it does.
    const disconnect = (): void => {
      this.socket.disconnect().catch((error: unknown) => this.log.debug({ err: error }, 'slack: disconnect failed'));
    };
    const connecting = this.socket.start();
    connecting.then(() => {
      if (stop.signal.aborted) disconnect();
    }, () => undefined);
    let giveUp = (): void => undefined;
    const abandoned = new Promise<never>((_resolve, reject) => {
      giveUp = () => {
        disconnect();
        reject(stopped());
      };
      stop.signal.addEventListener('abort', giveUp, { once: true });
    });
    try {
      await Promise.race([connecting, abandoned]);
    } catch (error) {
      this.accepting = false;
      throw stop.signal.aborted ? stopped() : startError(error, 'channels.slack.app_token', 'the app-level token (xapp-…, Basic Information → App-Level Tokens, scope connections:write)');
    } finally {
      // Once running, stop leaves the socket to `close` (after the drain), as before.
      stop.signal.removeEventListener('abort', giveUp);
    }
    this.log.info({ bot: this.botUserId }, 'slack: connected (Socket Mode)');
  }

  async stop(): Promise<void> {
    this.accepting = false;
    this.abort?.abort();
  }

  async close(): Promise<void> {
    this.accepting = false;
    await this.socket.disconnect().catch((error: unknown) => this.log.debug({ err: error }, 'slack: disconnect failed'));
  }

  async doctor(): Promise<DoctorLine[]> {
    const logger = slackLogger(this.log);
    const lines: DoctorLine[] = [];
    // No retries: a check answers in seconds.
    const bot = new WebClient(this.options.config.bot_token, { slackApiUrl: this.apiUrl, logger, retryConfig: { retries: 0 }, timeout: 10_000 });
    try {
      const me = await bot.auth.test();
      lines.push({ status: 'ok', label: 'slack: bot_token', detail: `${me.user ?? me.user_id ?? 'bot'} in ${me.team ?? 'the workspace'}` });
    } catch (error) {
      lines.push(doctorFailure('slack: bot_token', error, 'set channels.slack.bot_token to the Bot User OAuth Token (xoxb-…) under OAuth & Permissions'));
    }
    const app = new WebClient('', { slackApiUrl: this.apiUrl, logger, retryConfig: { retries: 0 }, timeout: 10_000, headers: { Authorization: `Bearer ${this.options.config.app_token}` } });
    try {
      await app.apps.connections.open({});
      lines.push({ status: 'ok', label: 'slack: app_token', detail: 'Socket Mode connection offered' });
    } catch (error) {
      lines.push(doctorFailure('slack: app_token', error, 'set channels.slack.app_token to an app-level token (xapp-…) with connections:write, and turn Socket Mode on'));
    }
    return lines;
  }

  /** Sends a reply to a chat id (a channel, or `<channel>/<thread ts>`); also used by jobs through the ChannelHub. */
  async send(chatId: string, reply: OutboundReply): Promise<void> {
    const { channel, threadTs } = parseChatId(chatId);
    const where = { channel, ...(threadTs !== undefined ? { thread_ts: threadTs } : {}) };
    const parts = toMrkdwnParts(reply.text);
    const buttons = reply.buttons && reply.buttons.length > 0 ? reply.buttons : undefined;
    for (const [index, text] of parts.entries()) {
      const last = index === parts.length - 1;
      // Buttons go under the last part: in a section block when it fits one (3000 characters), else on their own.
      if (last && buttons && text.length <= SLACK_SECTION_LIMIT) {
        await this.post({ ...where, text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }, actionsBlock(buttons)] });
      } else {
        await this.postText(where, text, reply.text);
      }
    }
    if (buttons && (parts.length === 0 || (parts.at(-1)?.length ?? 0) > SLACK_SECTION_LIMIT)) {
      await this.post({ ...where, text: '⬆', blocks: [actionsBlock(buttons)] });
    }
    for (const artifact of reply.artifacts ?? []) {
      const name = artifact.type === 'json' && !/\.json$/i.test(artifact.name) ? `${artifact.name}.json` : artifact.name;
      const file = typeof artifact.content === 'string' ? Buffer.from(artifact.content, 'utf8') : artifact.content;
      await this.upload(channel, threadTs, file, name);
    }
    if (threadTs !== undefined) this.threads.add(chatId);
  }

  /** A message as given, with link unfurling off: Slack's servers fetching an address the model wrote would leak it. */
  async post(message: ChatPostMessageArguments): Promise<string> {
    const sent = await this.web.chat.postMessage({ unfurl_links: false, unfurl_media: false, ...message } as ChatPostMessageArguments);
    return sent.ts ?? '';
  }

  /** A file into a channel or a thread (files.getUploadURLExternal, the upload, files.completeUploadExternal). */
  private async upload(channel: string, threadTs: string | undefined, file: Buffer, filename: string): Promise<void> {
    const common = { channel_id: channel, file, filename, title: filename };
    await this.web.filesUploadV2(threadTs !== undefined ? { ...common, thread_ts: threadTs } : common);
  }

  /** A part in mrkdwn; when Slack refuses it for its markup, the same words as plain text. */
  private async postText(where: { channel: string; thread_ts?: string }, text: string, markdown: string): Promise<void> {
    try {
      await this.post({ ...where, text });
    } catch (error) {
      if (!isPlatformError(error) || API_ERRORS_OF_AUTH.has(error.data.error) || markdown.length > SLACK_LIMIT) throw error;
      this.log.warn({ err: error }, 'slack: the formatted text was refused; sent as plain text');
      await this.post({ ...where, text: escapeText(markdown), mrkdwn: false });
    }
  }

  private async onEnvelope(envelope: Envelope): Promise<void> {
    // Not acknowledged while stopping: Slack delivers it again, to the next run.
    if (!this.accepting) return;
    await envelope.ack();
    if (envelope.type === 'events_api') {
      const event = messageEvent.safeParse((envelope.body as { event?: unknown } | undefined)?.event);
      if (event.success) this.onMessage(event.data, envelope.retry_num);
      return;
    }
    if (envelope.type === 'interactive') {
      const press = blockActions.safeParse(envelope.body);
      if (!press.success) return;
      for (const handler of this.presses) if (await handler(press.data)) return;
      return;
    }
    if (envelope.type === 'slash_commands') {
      const command = slashCommand.safeParse(envelope.body);
      if (command.success) this.onSlashCommand(command.data);
    }
  }

  private onMessage(event: MessageEvent, retry: number | undefined): void {
    const me = this.botUserId;
    // Only what a person wrote (a plain message or one with files): not edits, joins, bots, nor the bot itself.
    if (!me || event.user === undefined || event.user === me || event.bot_id !== undefined) return;
    if (event.subtype !== undefined && event.subtype !== 'file_share' && event.subtype !== 'thread_broadcast') return;
    const isDirect = event.channel_type === 'im' || (event.type === 'message' && event.channel.startsWith('D'));
    const mention = `<@${me}>`;
    // A mention at the top of a channel starts a thread: the answer goes there, and the thread is the chat.
    const chatId = isDirect ? chatIdOf(event.channel, event.ts, event.thread_ts) : `${event.channel}/${event.thread_ts ?? event.ts}`;
    const addressed = isDirect || event.type === 'app_mention' || event.text.includes(mention) || event.parent_user_id === me || this.threads.has(chatId);
    if (!addressed) return;
    if (retry !== undefined && retry > 0) this.log.debug({ chatId, retry }, 'slack: event delivered again');
    const update: InboundUpdate = {
      channel: this.name,
      chatId,
      userId: event.user,
      userName: cleanName(event.user),
      text: event.text.split(mention).join('').trim(),
      attachments: remoteFiles(event.files, { token: this.options.config.bot_token, apiUrl: this.apiUrl, log: this.log }),
      platformMessageId: event.ts,
      ...(event.thread_ts !== undefined && event.thread_ts !== event.ts ? { replyTo: event.thread_ts } : {}),
      isDirect,
    };
    void this.options.router.handle(update, this.io(update));
  }

  /**
   * A slash command: Slack keeps every message that starts with `/` for itself, so the chat commands come as
   * `/familiar stop` (→ `/stop`), or as a command of their own when the app declares one (`/stop`).
   */
  private onSlashCommand(command: SlashCommand): void {
    const words = command.text.trim();
    const text = command.command === '/familiar' ? `/${words === '' ? 'help' : words}` : `${command.command} ${words}`.trim();
    const update: InboundUpdate = {
      channel: this.name, chatId: command.channel_id, userId: command.user_id, userName: cleanName(command.user_name ?? command.user_id),
      text, attachments: [], platformMessageId: `command-${command.trigger_id}`, isDirect: command.channel_id.startsWith('D'),
    };
    void this.options.router.handle(update, this.io(update));
  }

  /** How the router answers in a message's chat (also for a message replayed after a restart). */
  private io(update: InboundUpdate): ChatIo {
    const { channel, threadTs } = parseChatId(update.chatId);
    const where = { channel, ...(threadTs !== undefined ? { thread_ts: threadTs } : {}) };
    return {
      send: (reply) => this.send(update.chatId, reply),
      // Slack has no typing indicator for bots (the RTM `typing` message is gone for Socket Mode apps, and
      // assistant.threads.setStatus works only in an AI app's assistant threads): nothing is shown.
      typing: async () => undefined,
      voice: this.voiceOut(channel, threadTs),
      sendEditable: async (text) => {
        // Plain text: a status line quotes a tool's words, which must not be read as markup or mentions.
        const ts = await this.post({ ...where, text: escapeText(text), mrkdwn: false });
        return async (next) => {
          await this.web.chat.update({ channel, ts, text: escapeText(next) });
        };
      },
    };
  }

  /** A spoken answer as an MP3 file in the chat: Slack plays audio files inline. */
  private voiceOut(channel: string, threadTs: string | undefined): VoiceOut {
    return {
      format: 'mp3',
      send: async (audio) => {
        await this.upload(channel, threadTs, audio.data, audio.fileName);
      },
    };
  }
}

function actionsBlock(buttons: ReadonlyArray<{ label: string; data: string }>): KnownBlock {
  return {
    type: 'actions',
    elements: buttons.map((button) => ({ type: 'button', text: { type: 'plain_text', text: button.label.slice(0, 75) }, action_id: button.data, value: button.data })),
  };
}

export function isPlatformError(error: unknown): error is Error & { data: { error: string } } {
  return error instanceof Error && (error as { code?: unknown }).code === ErrorCode.PlatformError
    && typeof (error as { data?: { error?: unknown } }).data?.error === 'string';
}

function startError(error: unknown, key: string, what: string): AppError {
  if (isPlatformError(error) && API_ERRORS_OF_AUTH.has(error.data.error)) {
    return new AppError('SLACK_AUTH', `slack: ${key.split('.').at(-1) ?? key} was rejected (${error.data.error}); check ${key}: ${what}`, { cause: error });
  }
  return new AppError('SLACK_UNREACHABLE', `slack: cannot connect: ${errorMessage(error)}; check the network and channels.slack.api_url`, { cause: error });
}

function stopped(): AppError {
  return new AppError('SLACK_STOPPED', 'slack: stopped while connecting');
}

function doctorFailure(label: string, error: unknown, fix: string): DoctorLine {
  if (isPlatformError(error)) return { status: 'fail', label, detail: `refused (${error.data.error})`, fix };
  return { status: 'fail', label, detail: errorMessage(error), fix: 'check the network and channels.slack.api_url' };
}
