import type { Config } from '../../config/schema.js';
import { AppError, errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { DoctorLine } from '../../part.js';
import type { ChannelRouter, ChatIo, InboundUpdate } from '../router.js';
import type { ChannelAdapter, OutboundReply, SpokenReply } from '../types.js';
import type { VoiceOut } from '../voice-notes.js';
import { SignalEvents, type ReceivedEvent } from './signal-events.js';
import { SignalReplyButtons, reactionHint } from './signal-buttons.js';
import { parseMessageId, readEnvelope, targetOf, type SignalReaction, type SignalSelf, type SignalTarget } from './signal-inbound.js';
import { plainSignalParts, renderSignalParts, type SignalPart } from './signal-format.js';
import { SignalRpc, SignalRpcError, START_HINT } from './signal-rpc.js';

export type SignalConfig = NonNullable<Config['channels']['signal']>;

/** Signal shows at most 32 attachments on a message; fewer keep each send small. */
const FILES_PER_MESSAGE = 10;

export interface SignalChannelOptions {
  router: ChannelRouter;
  config: SignalConfig;
  log: Logger;
  /** Waited before reopening an event stream signal-cli refused. */
  retryMs?: number;
}

/** A message the bot sent: its sent timestamp is its id (what a reaction or an edit names). */
export interface SentMessage {
  timestamp: number;
}

/**
 * Signal through the signal-cli daemon the person runs (`--http`): messages come as Server-Sent Events, everything
 * else is JSON-RPC. Direct chats, and groups when the bot is mentioned or its message is quoted; replies with
 * Signal's text styles in parts of at most 2000 bytes; files in (getAttachment) and out (data: URIs, so signal-cli may
 * run in another container); voice notes in and spoken answers out. Reactions go to the approval and reply-button
 * listeners, never to the router. Contract: `start` throws AppError SIGNAL_UNREACHABLE when signal-cli cannot be
 * reached (then it may be called again) and SIGNAL_ACCOUNT when it does not serve the configured account.
 */
export class SignalChannel implements ChannelAdapter {
  readonly name = 'signal';
  readonly rpc: SignalRpc;
  /** The reactions that stand for delivered replies' buttons. */
  readonly buttons = new SignalReplyButtons();
  private readonly options: SignalChannelOptions;
  private readonly log: Logger;
  private readonly self: SignalSelf;
  private readonly reactionListeners: Array<(reaction: SignalReaction) => void> = [];
  private events: SignalEvents | undefined;
  private accepting = false;
  /** Aborts a start under way, at `stop`. */
  private abort: AbortController | undefined;
  private replayed = false;

  constructor(options: SignalChannelOptions) {
    this.options = options;
    this.log = options.log;
    this.rpc = new SignalRpc({ url: options.config.url, account: options.config.account });
    this.self = { number: options.config.account, uuid: undefined };
  }

  /** Reactions to any message, handed over outside every chat's turn queue (an approval's turn is waiting in it). */
  onReaction(listener: (reaction: SignalReaction) => void): void {
    this.reactionListeners.push(listener);
  }

  /**
   * Finds the account's own entry (signal-cli answers), answers the messages the last run left (once a run, as soon
   * as signal-cli answers), and opens the event stream. A start that throws leaves no stream open, so it can run
   * again; `stop` during the start ends its request or the stream it opens.
   */
  async start(): Promise<void> {
    const stop = new AbortController();
    this.abort = stop;
    try {
      this.self.uuid = await this.whoAmI(undefined, stop.signal);
    } catch (error) {
      throw stop.signal.aborted ? stopped() : error;
    }
    if (stop.signal.aborted) throw stopped();
    this.accepting = true;
    // Before the stream opens: a message cut by the last run keeps its place ahead of the ones waiting at Signal. Once
    // per run: a start tried again after one that failed does not answer it twice.
    if (!this.replayed) {
      this.replayed = true;
      const replayed = this.options.router.replay(this.name, (update) => this.io(update));
      if (replayed > 0) this.log.info({ replayed }, 'signal: answering messages left unanswered by the last run');
    }
    const events = new SignalEvents({
      base: this.rpc.base, account: this.options.config.account, log: this.log, onEvent: (event) => this.onEvent(event),
      ...(this.options.retryMs !== undefined ? { retryMs: this.options.retryMs } : {}),
    });
    this.events = events;
    const giveUp = (): void => events.close();
    stop.signal.addEventListener('abort', giveUp, { once: true });
    try {
      await events.open();
    } catch (error) {
      events.close();
      this.accepting = false;
      if (stop.signal.aborted) throw stopped();
      throw new AppError('SIGNAL_UNREACHABLE', `signal-cli's event stream at ${this.rpc.base}/api/v1/events failed: ${errorMessage(error)}; ${START_HINT(this.options.config.account, this.rpc.base)}`, { cause: error });
    } finally {
      // Once running, the stream is closed by `close` (after the drain), not by stop.
      stop.signal.removeEventListener('abort', giveUp);
    }
    this.log.info({ account: this.options.config.account }, 'signal: connected');
  }

  async stop(): Promise<void> {
    this.accepting = false;
    this.abort?.abort();
  }

  async close(): Promise<void> {
    this.accepting = false;
    this.events?.close();
    this.events = undefined;
  }

  async doctor(): Promise<DoctorLine[]> {
    try {
      const [version] = await Promise.all([this.rpc.call<{ version?: string }>('version', {}, 10_000), this.whoAmI(10_000)]);
      return [{ status: 'ok', label: 'signal', detail: `signal-cli ${version.version ?? '?'}, account ${this.options.config.account}` }];
    } catch (error) {
      const unreachable = error instanceof AppError && error.code === 'SIGNAL_UNREACHABLE';
      return [{
        status: 'fail', label: 'signal', detail: errorMessage(error),
        fix: unreachable
          ? `${START_HINT(this.options.config.account, this.rpc.base)}; or set channels.signal.url to where it listens`
          : `register or link ${this.options.config.account} with signal-cli (see docs/channels/signal.md), or fix channels.signal.account`,
      }];
    }
  }

  /** Sends a reply to a chat id (a person's number or UUID, or `group:<id>`); also used by jobs through the ChannelHub. */
  async send(chatId: string, reply: OutboundReply): Promise<void> {
    await this.sendTo(chatId, reply);
  }

  /** Sends text parts (buttons offered as reactions under the last), then files. */
  private async sendTo(chatId: string, reply: OutboundReply, quote?: { author: string; timestamp: number }): Promise<void> {
    const target = targetOf(chatId);
    const buttons = reply.buttons ?? [];
    const parts = renderSignalParts(buttons.length > 0 ? `${reply.text}\n\n${reactionHint(buttons)}` : reply.text);
    let last: SentMessage | undefined;
    for (const [index, part] of parts.entries()) {
      last = await this.sendPart(target, part, index === 0 ? quote : undefined);
    }
    if (last && buttons.length > 0) this.buttons.remember(chatId, last.timestamp, parts.at(-1)?.text ?? '', buttons);
    const files = (reply.artifacts ?? []).map((artifact) => dataUri(artifact.mimeType ?? mimeOf(artifact.type, artifact.name), artifactName(artifact), typeof artifact.content === 'string' ? Buffer.from(artifact.content, 'utf8') : artifact.content));
    for (let index = 0; index < files.length; index += FILES_PER_MESSAGE) {
      await this.rpc.call('send', { ...params(target), attachments: files.slice(index, index + FILES_PER_MESSAGE) });
    }
  }

  /** Plain text, no Markdown read (an approval question: the arguments are the model's). */
  async sendPlain(target: SignalTarget, text: string): Promise<SentMessage> {
    let last: SentMessage | undefined;
    for (const part of plainSignalParts(text)) last = await this.sendPart(target, part, undefined);
    if (!last) throw new AppError('SIGNAL_EMPTY', 'signal: nothing to send');
    return last;
  }

  /** Replaces the text of a message the bot sent (Signal keeps the edit history; the apps show "edited"). */
  async edit(target: SignalTarget, timestamp: number, text: string): Promise<void> {
    const [part] = plainSignalParts(text);
    if (part) await this.rpc.call('send', { ...params(target), message: part.text, editTimestamp: timestamp });
  }

  private async sendPart(target: SignalTarget, part: SignalPart, quote: { author: string; timestamp: number } | undefined): Promise<SentMessage> {
    const base = { ...params(target), message: part.text, ...(quote ? { quoteTimestamp: quote.timestamp, quoteAuthor: quote.author } : {}) };
    if (part.textStyle.length === 0) return sent(await this.rpc.call('send', base));
    try {
      return sent(await this.rpc.call('send', { ...base, textStyle: part.textStyle }));
    } catch (error) {
      // An older signal-cli that refuses a style: the same words, unstyled.
      if (!(error instanceof SignalRpcError)) throw error;
      this.log.warn({ err: error }, 'signal: styled text refused; sent as plain text');
      return sent(await this.rpc.call('send', base));
    }
  }

  /** The bot's UUID, from signal-cli's own recipient entry (a local lookup, no request to Signal's servers). */
  private async whoAmI(timeoutMs?: number, signal?: AbortSignal): Promise<string | undefined> {
    const account = this.options.config.account;
    const contacts = await this.rpc.call<unknown>('listContacts', { recipient: [account], allRecipients: true }, timeoutMs, signal);
    const me = Array.isArray(contacts) ? (contacts as Array<{ number?: string; uuid?: string }>).find((contact) => contact.number === account) : undefined;
    if (!me) throw new AppError('SIGNAL_ACCOUNT', `signal-cli at ${this.rpc.base} does not know the account ${account}: register or link it (docs/channels/signal.md), or fix channels.signal.account`);
    return me.uuid?.toLowerCase();
  }

  private onEvent(event: ReceivedEvent): void {
    if (!this.accepting || !event.envelope) return;
    // A multi-account daemon given no account would send every account's messages.
    if (event.account !== undefined && event.account !== this.options.config.account) return;
    const inbound = readEnvelope(event.envelope, this.self, this.options.config.allowed_users, (id, target) => this.attachment(id, target));
    if (inbound.kind === 'reaction') {
      for (const listener of this.reactionListeners) listener(inbound.reaction);
      return;
    }
    if (inbound.kind !== 'message' || !inbound.addressed) return;
    void this.options.router.handle(inbound.update, this.io(inbound.update));
  }

  private async attachment(id: string, target: SignalTarget): Promise<Buffer> {
    const result = await this.rpc.call<{ data?: string }>('getAttachment', { id, ...('groupId' in target ? { groupId: target.groupId } : { recipient: target.recipient }) });
    if (typeof result.data !== 'string') throw new Error('signal-cli returned no attachment data');
    return Buffer.from(result.data, 'base64');
  }

  /** How the router answers in the chat of `update` (also for a message replayed after a restart). */
  private io(update: InboundUpdate): ChatIo {
    const target = targetOf(update.chatId);
    // In a group the answer quotes the message it answers, so it is clear whom it is for.
    const replied = update.isDirect ? undefined : parseMessageId(update.platformMessageId);
    return {
      send: (reply) => this.sendTo(update.chatId, reply, replied),
      typing: async () => {
        await this.rpc.call('sendTyping', params(target), 10_000);
      },
      voice: this.voiceOut(target),
    };
  }

  /** A spoken answer as an MP3 sent as a voice note (signal-cli 0.14.2+ marks it; older ones send a playable audio file). */
  private voiceOut(target: SignalTarget): VoiceOut {
    return {
      format: 'mp3',
      send: async (audio: SpokenReply) => {
        await this.rpc.call('send', { ...params(target), attachments: [dataUri(audio.mimeType, audio.fileName, audio.data)], voiceNote: true });
      },
    };
  }
}

function params(target: SignalTarget): Record<string, unknown> {
  return 'groupId' in target ? { groupId: target.groupId } : { recipient: [target.recipient] };
}

function sent(result: unknown): SentMessage {
  const timestamp = (result as { timestamp?: unknown } | undefined)?.timestamp;
  if (typeof timestamp !== 'number') throw new AppError('SIGNAL_BAD_ANSWER', 'signal-cli did not say when the message was sent (no timestamp in the answer to send)');
  return { timestamp };
}

/** RFC 2397, as signal-cli reads it: a file name as a URL-encoded parameter. */
function dataUri(mimeType: string, name: string, data: Buffer): string {
  return `data:${mimeType};filename=${encodeURIComponent(name)};base64,${data.toString('base64')}`;
}

function artifactName(artifact: { type: string; name: string }): string {
  return artifact.type === 'json' && !/\.json$/i.test(artifact.name) ? `${artifact.name}.json` : artifact.name;
}

const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

function mimeOf(type: string, name: string): string {
  if (type === 'json') return 'application/json';
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? '';
  if (Object.hasOwn(IMAGE_TYPES, extension)) return IMAGE_TYPES[extension] ?? 'application/octet-stream';
  return /^(txt|md|csv|log)$/.test(extension) ? 'text/plain' : 'application/octet-stream';
}

function stopped(): AppError {
  return new AppError('SIGNAL_STOPPED', 'signal: stopped while connecting');
}
