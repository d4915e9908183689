import type { Database } from '../db/database.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { ChatCommandTurn, ChatCommands } from '../part.js';
import type { Workspaces } from '../workspace/workspace.js';
import { workspaceFor } from '../workspace/workspace-key.js';
import type { ChatTicket, StartTurn, TurnEvent } from '../turns/types.js';
import type { Turns } from '../turns/turns.js';
import { prepareInbound, type InboundUpdate } from './inbound.js';
import { ChannelInbox, type ReplayableMessage } from './inbox.js';
import { cleanName } from './display-name.js';
import { MAX_CODES_PER_PERSON_PER_DAY, MAX_PENDING_PER_CHANNEL, PairingStore } from './pairing.js';
import { createProgressView, type EditMessage } from './progress.js';
import type { ChannelVoice, OutboundReply } from './types.js';
import { speakAnswer, type VoiceOut } from './voice-notes.js';

export type { InboundUpdate };

/** How the router answers in the chat a message came from; the adapter binds reply-to and formatting. */
export interface ChatIo {
  send(reply: OutboundReply): Promise<void>;
  typing(): Promise<void>;
  /** How this chat plays a spoken answer; absent where nothing can be played. */
  voice?: VoiceOut;
  /** Sends a short plain-text status message and returns how to replace its text (progress of a long call). */
  sendEditable?(text: string): Promise<EditMessage>;
  /** The turn's progress as it runs (tool calls; with `stream`, the answer's text as it is generated). */
  onEvent?: (event: TurnEvent) => void;
  stream?: boolean;
  /** The message became a turn (it was not a chat command): its reply is the turn's answer. */
  turnStarted?(): void;
}

/** Runs work as the person a sender is (a household); the router never decides who that is. */
export type RunAs = <T>(channel: string, userId: string, run: () => T) => T;

export interface ChannelRouterOptions {
  db: Database;
  log: Logger;
  /** Received files are stored under `data_dir/workspaces/<conversation>/uploads/`. */
  dataDir: string;
  /** `llm.vision`: images also go to the model as image content. */
  vision: boolean;
  /** Chat commands answered without an LLM call (`/help` and the parts' commands). */
  commands: ChatCommands;
  conversations: { resolve(channel: string, chatId: string): string };
  startTurn: StartTurn;
  /** Each message's place in its chat's line, `/stop` and the count of messages in flight. */
  turns: Pick<Turns, 'enter' | 'stop' | 'waiting'>;
  /** The workspaces (pinned, size-limited) that uploads go into; undefined: plain folders under `dataDir`. */
  workspaces?: Workspaces | undefined;
  /** `channels.<name>.allowed_users` from the config; paired users are read from SQLite per message. */
  allowedUsers: ReadonlyMap<string, ReadonlySet<string>>;
  /** Voice notes transcribed, answers spoken (the voice part's service); absent: audio is only stored. */
  voice?: ChannelVoice | undefined;
  typingIntervalMs?: number;
  /** A long call's progress message is edited at most this often (platforms rate-limit edits). */
  progressIntervalMs?: number;
  maxAttachmentBytes?: number;
  /** Chat commands run as their sender (a household's person: their tasks, their memory, their /undo). */
  runAs?: RunAs | undefined;
}

const PAIRING_TEXT = (code: string): string =>
  `I don't know you yet. To let you in, my owner runs:\n\nfamiliar pairing approve ${code}\n\nThe code is valid for 1 hour.`;

const WELCOME_TEXT = 'Welcome! The owner invited you, so you are in: write to me any time.';

const REPLY_CAP = 600;
const FULL_WARNING_INTERVAL_MS = 60_000;

/** A message cut by a crash is answered after the restart only if it came in at most this long ago. */
export const REPLAY_WINDOW_MS = 3600 * 1000;

/**
 * The platform-independent path of every chat message:
 * access (allowlist, pairing) -> dedupe -> chat commands -> ChatQueue -> agent -> reply.
 * Contract: `handle` never throws; an unknown user's message never reaches the LLM.
 */
export class ChannelRouter {
  private readonly deps: ChannelRouterOptions;
  private readonly log: Logger;
  private readonly allowedUsers: ReadonlyMap<string, ReadonlySet<string>>;
  readonly inbox: ChannelInbox;
  readonly pairing: PairingStore;
  private readonly typingIntervalMs: number;
  private readonly progressIntervalMs: number;
  private readonly maxAttachmentBytes: number;
  /** The one per-chat state the router keeps: the typing indicator while the chat's turns run (order is the turns'). */
  private readonly typingLoops = new Map<string, { count: number; timer: NodeJS.Timeout }>();
  /** Messages being handled, until their reply is sent and recorded: shutdown waits for them (`settle`). */
  private readonly active = new Set<Promise<void>>();
  /** When each channel last warned that its pairing codes are all taken. */
  private readonly fullWarnedAt = new Map<string, number>();

  constructor(options: ChannelRouterOptions) {
    this.deps = options;
    this.log = options.log.child({ component: 'channels' });
    this.allowedUsers = options.allowedUsers;
    this.inbox = new ChannelInbox(options.db);
    this.pairing = new PairingStore(options.db);
    this.typingIntervalMs = options.typingIntervalMs ?? 4000;
    this.progressIntervalMs = options.progressIntervalMs ?? 3000;
    this.maxAttachmentBytes = options.maxAttachmentBytes ?? 20 * 1024 * 1024;
  }

  /** Every command the chats answer (the parts' and the built-in ones). */
  get commands(): ChatCommands {
    return this.deps.commands;
  }

  isAllowed(channel: string, userId: string): boolean {
    return this.allowedUsers.get(channel)?.has(userId) === true || this.pairing.isPaired(channel, userId);
  }

  handle(update: InboundUpdate, io: ChatIo): Promise<void> {
    return this.track(this.accept(update, io));
  }

  /**
   * Waits, at most `timeoutMs`, until every message being handled has its reply sent and recorded. The app's
   * drain ends when the turns end; the replies go out after that, and recording one after the database is
   * closed would leave it "unanswered" and answer it again at the next start. Contract: never throws.
   */
  async settle(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([Promise.allSettled([...this.active]), timeout]);
    clearTimeout(timer);
  }

  private track(work: Promise<void>): Promise<void> {
    this.active.add(work);
    void work.finally(() => this.active.delete(work));
    return work;
  }

  private async accept(update: InboundUpdate, io: ChatIo): Promise<void> {
    const log = this.log.child({ channel: update.channel, chatId: update.chatId, messageId: update.platformMessageId });
    try {
      if (!this.isAllowed(update.channel, update.userId)) {
        await this.handleStranger(update, io, log);
        return;
      }
      const key = `${update.chatId}/${update.platformMessageId}`;
      if (!this.inbox.claim(update.channel, key, update.chatId, Date.now(), replayable(update))) {
        log.info('redelivered message dropped (already answered or in progress)');
        return;
      }
      // What came in, never its text: `familiar logs -f` answers "did my message arrive?".
      log.info({ userId: update.userId, chars: update.text.length, attachments: update.attachments.length }, 'message in');
      await this.answer(update, io, log, key);
    } catch (error) {
      // Contract: never throws — a failure here must not stop the adapter's update loop.
      log.error({ err: error }, 'message handling failed');
    }
  }

  /**
   * Answers, once, the messages of `channel` that were accepted but never answered because the process died
   * during their turn (Telegram does not send them again once its offset has moved). Called by the adapter
   * when it can send, before it takes new updates, so the replayed messages keep their place in each chat.
   * Their files are not kept: the agent is told so. Returns how many were re-queued. Contract: never throws.
   */
  replay(channel: string, ioFor: (update: InboundUpdate) => ChatIo): number {
    try {
      const { messages, expired, unconfirmed } = this.inbox.pending(channel, Date.now() - REPLAY_WINDOW_MS);
      if (expired > 0) this.log.warn({ channel, expired }, 'messages cut by a crash more than an hour ago are not answered now');
      if (unconfirmed > 0) this.log.warn({ channel, unconfirmed }, 'the process died while sending replies; they are not sent again (the platform had most likely received them)');
      for (const pending of messages) {
        const { attachments, ...message } = pending.message;
        const update: InboundUpdate = {
          ...message, channel, chatId: pending.chatId, platformMessageId: pending.messageKey.slice(pending.chatId.length + 1),
          attachments: attachments.map((attachment) => ({
            ...attachment,
            fetch: () => Promise.reject(new Error('the file was not kept across a restart of the daemon; ask the person to send it again')),
          })),
        };
        const log = this.log.child({ channel, chatId: update.chatId, messageId: update.platformMessageId });
        if (!this.isAllowed(channel, update.userId)) {
          this.inbox.finish(channel, pending.messageKey, 'ignored');
          continue;
        }
        log.info('answering a message whose turn was cut by a crash or kill');
        this.track(this.answer(update, ioFor(update), log, pending.messageKey)).catch((error: unknown) => log.error({ err: error }, 'replayed message failed'));
      }
      return messages.length;
    } catch (error) {
      this.log.error({ err: error, channel }, 'replaying unanswered messages failed');
      return 0;
    }
  }

  private async answer(update: InboundUpdate, io: ChatIo, log: Logger, key: string): Promise<void> {
    // A forwarded message is someone else's words: "/reset" or an MCP prompt in it is not the person's command.
    const command = update.forwarded === true ? undefined : await this.runCommand(update, io, log);
    if (command === 'answered') {
      this.inbox.finish(update.channel, key, 'command');
      return;
    }
    // A command that starts a turn (an MCP prompt) runs it as a message would: queued, typing, /stop, progress.
    const ticket = this.deps.turns.enter(update, command?.conversationId);
    const status = await this.runTurn(update, io, log, ticket, command?.turn);
    this.inbox.finish(update.channel, key, status);
  }

  /** Aborts the running turn of a chat; false when nothing was running. */
  stop(channel: string, chatId: string): boolean {
    return this.deps.turns.stop(channel, chatId);
  }

  /** Messages accepted and not finished, in every chat (what `/status` calls the queue). */
  queued(): number {
    return this.deps.turns.waiting();
  }

  /**
   * An unknown user: in a group, nothing. In a direct chat, an owner's invite code lets them in at once; else they
   * get one pairing code, within the per-person and per-channel limits (pairing.ts), and nothing more.
   */
  private async handleStranger(update: InboundUpdate, io: ChatIo, log: Logger): Promise<void> {
    const userName = cleanName(update.userName);
    if (!update.isDirect) {
      log.debug({ userId: update.userId }, 'message from an unknown user in a group ignored');
      return;
    }
    const invite = this.pairing.redeem({ channel: update.channel, userId: update.userId, userName, text: update.text });
    if (invite.kind === 'paired') {
      log.info({ userId: update.userId, userName }, 'unknown user paired with an invite code (familiar pairing invite)');
      await io.send({ text: WELCOME_TEXT });
      return;
    }
    if (invite.kind === 'wrong') log.info({ userId: update.userId, userName, attemptsLeft: invite.attemptsLeft }, 'unknown user sent a wrong invite code');
    if (invite.kind === 'limited') {
      log.debug({ userId: update.userId }, 'unknown user has no invite attempts left today');
      return;
    }
    const outcome = this.pairing.request({ channel: update.channel, userId: update.userId, userName, chatId: update.chatId });
    if (outcome.kind === 'full') {
      // A flood of strangers must not flood the log too: one warning a minute per channel, the rest at debug.
      const now = Date.now();
      const loud = now - (this.fullWarnedAt.get(update.channel) ?? 0) >= FULL_WARNING_INTERVAL_MS;
      if (loud) this.fullWarnedAt.set(update.channel, now);
      log[loud ? 'warn' : 'debug']({ userId: update.userId, userName }, `unknown user not given a pairing code: ${MAX_PENDING_PER_CHANNEL} codes are already pending on this channel (familiar pairing list; familiar pairing invite lets someone in regardless)`);
      return;
    }
    if (outcome.kind === 'person_limit') {
      log.info({ userId: update.userId, userName }, `unknown user not given a pairing code: already had ${MAX_CODES_PER_PERSON_PER_DAY} today`);
      return;
    }
    if (outcome.kind === 'silent') return;
    log.info({ userId: update.userId, userName, code: outcome.code }, 'unknown user: pairing code issued (approve with: familiar pairing approve CODE)');
    await io.send({ text: PAIRING_TEXT(outcome.code) });
  }

  /**
   * A `/command` known to the app is answered here, without an LLM call ('answered'), or gives the turn to start
   * instead. Unknown commands go to the agent (undefined).
   */
  private async runCommand(update: InboundUpdate, io: ChatIo, log: Logger): Promise<'answered' | (ChatCommandTurn & { conversationId: string }) | undefined> {
    const match = /^\/([a-zA-Z0-9_]{1,32})(?:@\S+)?(?:\s+([\s\S]*))?$/.exec(update.text.trim());
    if (!match) return undefined;
    const name = (match[1] ?? '').toLowerCase();
    const command = this.deps.commands.get(name);
    if (!command) return undefined;
    let text: string;
    try {
      const conversationId = this.deps.conversations.resolve(update.channel, update.chatId);
      const input = { channel: update.channel, chatId: update.chatId, userId: update.userId, args: (match[2] ?? '').trim(), conversationId };
      const runAs = this.deps.runAs;
      const reply = await (runAs ? runAs(update.channel, update.userId, () => command.run(input)) : command.run(input));
      // A command that starts a turn: the turn runs in the conversation the command saw.
      if (typeof reply !== 'string') return { ...reply, conversationId };
      text = reply;
    } catch (error) {
      log.error({ err: error, command: name }, 'chat command failed');
      text = `/${name} failed: ${errorMessage(error).slice(0, 300)}`;
    }
    if (text.trim() !== '') await io.send({ text });
    return 'answered';
  }

  /**
   * The message as a turn, in its place in the chat's line (`Turns.enter`): when the earlier messages are queued, its
   * files and audio are prepared (inbound.ts), its turn queued, and its reply sent after theirs.
   */
  private async runTurn(update: InboundUpdate, io: ChatIo, log: Logger, ticket: ChatTicket, commandTurn?: ChatCommandTurn['turn']): Promise<'answered' | 'failed'> {
    const chatKey = `${update.channel}:${update.chatId}`;
    const messageKey = `${update.chatId}/${update.platformMessageId}`;
    io.turnStarted?.();
    this.startTyping(chatKey, io);
    const sendEditable = io.sendEditable?.bind(io);
    const progress = sendEditable ? createProgressView({ sendEditable }, { intervalMs: this.progressIntervalMs, log }) : undefined;
    try {
      await ticket.inLine();
      const conversationId = ticket.conversation();
      // In a household the sender's own workspace in this chat (the turn decides the same way).
      const workspaceId = this.deps.runAs ? this.deps.runAs(update.channel, update.userId, () => workspaceFor(conversationId)) : conversationId;
      const prepared = await prepareInbound({ ...this.deps, log, maxAttachmentBytes: this.maxAttachmentBytes }, update, conversationId, workspaceId, ticket.signal, commandTurn);
      if (prepared.failures.length > 0) {
        // Said at once, after the previous message's answer: the person need not wait for a turn to learn it.
        await ticket.reply(async () => {
          // Nothing else in the message: the notice is its answer, and no turn runs.
          if (!prepared.needsTurn) this.inbox.replying(update.channel, messageKey);
          await io.send({ text: prepared.failures.join('\n') });
        });
        if (!prepared.needsTurn) return 'answered';
      }
      // Who watches the turn: the progress message of a long tool call, and the channel itself (the console).
      const watch = io.onEvent;
      const onEvent = progress || watch ? (event: TurnEvent) => {
        progress?.onEvent(event);
        watch?.(event);
      } : undefined;
      const result = await this.deps.startTurn({
        text: prepared.text || '(empty message)',
        origin: { channel: update.channel, chatId: update.chatId, userId: update.userId },
        source: 'chat',
        chat: ticket,
        signal: ticket.signal,
        ...(prepared.images.length > 0 ? { images: prepared.images } : {}),
        ...(prepared.taint.length > 0 ? { taint: prepared.taint } : {}),
        ...(onEvent ? { onEvent } : {}),
        ...(io.stream ? { stream: true } : {}),
      });
      progress?.close();
      const reply = result.status === 'llm_error' && result.text.length > REPLY_CAP ? `${result.text.slice(0, REPLY_CAP)}…` : result.text;
      await ticket.reply(async () => {
        this.inbox.replying(update.channel, messageKey);
        await io.send({ text: reply, artifacts: result.artifacts });
      });
      log.info({ status: result.status, chars: reply.length, artifacts: result.artifacts.length }, 'reply out');
      await speakAnswer({
        voice: this.deps.voice, out: io.voice, channel: update.channel, chatId: update.chatId, turnId: result.turnId, answer: result.text,
        answered: result.status === 'ok', heardVoice: prepared.heardVoice, conversationId, signal: ticket.signal, log,
        sendText: (line) => io.send({ text: line }),
      });
      return 'answered';
    } catch (error) {
      log.error({ err: error }, 'turn or reply failed');
      await ticket.reply(async () => {
        this.inbox.replying(update.channel, messageKey);
        await io.send({ text: 'Sorry, something went wrong on my side; the details are in the logs.' }).catch(() => undefined);
      });
      return 'failed';
    } finally {
      progress?.close();
      ticket.done();
      this.stopTyping(chatKey);
    }
  }

  /** One typing loop per chat while any of its turns is queued or running (the platforms' indicator fades after ~5 s). */
  private startTyping(chatKey: string, io: ChatIo): void {
    const loop = this.typingLoops.get(chatKey);
    if (loop) {
      loop.count += 1;
      return;
    }
    const tick = (): void => {
      io.typing().catch((error: unknown) => this.log.debug({ err: error, chat: chatKey }, 'typing indicator failed'));
    };
    tick();
    const timer = setInterval(tick, this.typingIntervalMs);
    timer.unref();
    this.typingLoops.set(chatKey, { count: 1, timer });
  }

  private stopTyping(chatKey: string): void {
    const loop = this.typingLoops.get(chatKey);
    if (!loop) return;
    loop.count -= 1;
    if (loop.count > 0) return;
    clearInterval(loop.timer);
    this.typingLoops.delete(chatKey);
  }
}

function replayable(update: InboundUpdate): ReplayableMessage {
  return {
    userId: update.userId, userName: update.userName, text: update.text, isDirect: update.isDirect,
    ...(update.replyTo !== undefined ? { replyTo: update.replyTo } : {}),
    attachments: update.attachments.map(({ kind, label, name, mimeType, size }) => ({ kind, ...(label !== undefined ? { label } : {}), name, mimeType, size })),
    ...(update.forwarded === true ? { forwarded: true } : {}),
  };
}
