import {
  ClientEvent, HttpApiEvent, MatrixError, Method, RoomEvent, RoomMemberEvent, SyncState, createClient,
  type IRoomTimelineData, type MatrixClient, type MatrixEvent, type Room, type RoomMember,
} from 'matrix-js-sdk';
import type { Config } from '../../config/schema.js';
import { AppError, errorMessage } from '../../errors.js';
import { deadline } from '../../lib/abort.js';
import type { Logger } from '../../log.js';
import type { DoctorLine } from '../../part.js';
import { cleanName } from '../display-name.js';
import { REPLAY_WINDOW_MS, type ChannelRouter, type ChatIo, type InboundUpdate } from '../router.js';
import type { ChannelAdapter, OutboundReply } from '../types.js';
import type { EventContent } from './matrix-content.js';
import { mentions, readMessage, remoteFile, stripMention } from './matrix-inbound.js';
import { routeSdkLogs } from './matrix-log.js';
import { MatrixSender } from './matrix-sender.js';

export type MatrixConfig = NonNullable<Config['channels']['matrix']>;

/** A reaction someone put on a message (`m.annotation`): approvals and reply buttons are answered this way. */
export interface MatrixReaction {
  roomId: string;
  sender: string;
  /** The sender's display name, cleaned. */
  senderName: string;
  /** The message reacted to. */
  target: string;
  key: string;
}

export interface MatrixChannelOptions {
  router: ChannelRouter;
  config: MatrixConfig;
  log: Logger;
}

const START_TIMEOUT_MS = 30_000;
const CHECK_TIMEOUT_MS = 10_000;
/** The timeline of each room the first sync brings: recent enough to answer what came while the daemon was down. */
const INITIAL_SYNC_LIMIT = 20;
const ENCRYPTED_NOTICE = 'This room is end-to-end encrypted, and I cannot read encrypted messages, so I see nothing you write here. '
  + 'Please talk to me in a room without encryption (in Element: create a room with "Enable end-to-end encryption" turned off, then invite me).';

/**
 * Matrix through matrix-js-sdk's sync loop: direct rooms, and group rooms when the bot is mentioned or replied to;
 * Markdown replies as Matrix HTML in parts of at most 16,000 characters; files in (authenticated media) and out;
 * voice messages both ways; invites joined (see onMembership). The SDK retries a dropped /sync on its own (it polls
 * /versions until the server answers); the router's dedupe by event id makes an event seen twice harmless. Each
 * start syncs afresh and answers, once, what allowed people wrote in the last hour that was never claimed.
 * Encrypted rooms are refused with one notice: the Rust crypto this SDK needs is not set up (docs/channels/matrix.md).
 * Contract: `start` throws AppError MATRIX_AUTH for a rejected token, MATRIX_UNREACHABLE when the homeserver cannot be
 * reached (then it may be called again); nothing after start throws out of a listener.
 */
export class MatrixChannel implements ChannelAdapter {
  readonly name = 'matrix';
  private readonly options: MatrixChannelOptions;
  private readonly log: Logger;
  private readonly baseUrl: string;
  private client: MatrixClient | undefined;
  private sender: MatrixSender | undefined;
  private me = '';
  private accepting = false;
  /** Aborts a start under way, at `stop`. */
  private abort: AbortController | undefined;
  private replayed = false;
  /** The first sync is processed: what arrives now is news (an encryption switched on, a join). */
  private prepared = false;
  private startedAt = 0;
  private lost = false;
  /** Messages are handed to the router one after the other, in timeline order (a mention check may fetch). */
  private inbound: Promise<void> = Promise.resolve();
  private readonly reactionListeners: Array<(reaction: MatrixReaction) => void | Promise<void>> = [];
  /** Rooms told this run that encryption keeps the bot out. */
  private readonly refused = new Set<string>();

  constructor(options: MatrixChannelOptions) {
    this.options = options;
    this.log = options.log;
    this.baseUrl = options.config.homeserver_url.replace(/\/+$/, '');
  }

  /** The bot's user id (known once started). */
  get userId(): string {
    return this.me;
  }

  /** Sending: replies, files, edits and reactions (throws CHANNEL_UNAVAILABLE before start). */
  get out(): MatrixSender {
    if (!this.sender) throw new AppError('CHANNEL_UNAVAILABLE', 'matrix is not running (it failed to start or was closed)');
    return this.sender;
  }

  /** Reactions go to these listeners at once, outside any chat's turn queue (an approval's answer must not wait). */
  onReaction(listener: (reaction: MatrixReaction) => void | Promise<void>): void {
    this.reactionListeners.push(listener);
  }

  /**
   * Checks the token (`whoami`), then syncs with a new client; the messages the last run left are answered once a run,
   * as soon as the homeserver answers. A start that throws leaves no client syncing, so it can run again; `stop`
   * during the start stops the client it made and ends the wait for the first sync.
   */
  async start(): Promise<void> {
    const { config } = this.options;
    const stop = new AbortController();
    this.abort = stop;
    const who = await this.whoAmI(stop.signal);
    if (stop.signal.aborted) throw stopped();
    if (!who.ok) throw new AppError(who.rejected ? 'MATRIX_AUTH' : 'MATRIX_UNREACHABLE', `matrix: ${who.detail}; ${who.fix}`);
    this.me = who.userId;
    const deviceId = config.device_id || who.deviceId;
    const client = createClient({ baseUrl: this.baseUrl, accessToken: config.access_token, userId: who.userId, ...(deviceId ? { deviceId } : {}) });
    this.client = client;
    this.sender = new MatrixSender({ client, log: this.log });
    client.on(RoomEvent.Timeline, (event, room, toStart, removed, data) => this.onTimeline(event, room, toStart, removed, data));
    client.on(RoomMemberEvent.Membership, (event, member) => this.onMembership(event, member));
    client.on(ClientEvent.Sync, (state) => this.onSync(state));
    client.on(HttpApiEvent.SessionLoggedOut, () => this.log.error('matrix: the homeserver no longer accepts the access token (logged out); set a new channels.matrix.access_token and restart'));
    this.startedAt = Date.now();
    this.accepting = true;
    // Messages whose turn a crash cut are queued before the first sync, so they keep their place in their room. Once
    // per run: a start tried again after one that failed does not answer them twice.
    if (!this.replayed) {
      this.replayed = true;
      const replayed = this.options.router.replay(this.name, (update) => this.chatIo(update));
      if (replayed > 0) this.log.info({ replayed }, 'matrix: answering messages left unanswered by the last run');
    }
    const ready = this.firstSync(client, stop.signal);
    // Handled here as well: a stop rejects it while startClient still runs, before it is awaited.
    ready.catch(() => undefined);
    try {
      // startClient asks for /versions before it syncs: a stop during that request leaves a client that syncs after it.
      await client.startClient({ initialSyncLimit: INITIAL_SYNC_LIMIT, lazyLoadMembers: false });
      await ready;
    } catch (error) {
      this.accepting = false;
      client.stopClient();
      if (stop.signal.aborted) throw stopped();
      throw new AppError('MATRIX_UNREACHABLE', `matrix: the first sync with ${this.baseUrl} did not complete: ${errorMessage(error)}`, { cause: error });
    }
    this.prepared = true;
    this.log.info({ user: this.me, rooms: client.getRooms().length }, 'matrix: syncing');
  }

  /** Stops syncing, or a start under way; sending still works, so replies of running turns go out. */
  async stop(): Promise<void> {
    this.accepting = false;
    this.abort?.abort();
    this.client?.stopClient();
  }

  async close(): Promise<void> {
    this.accepting = false;
    this.client?.stopClient();
    this.sender = undefined;
  }

  async doctor(): Promise<DoctorLine[]> {
    const who = await this.whoAmI();
    if (!who.ok) return [{ status: 'fail', label: 'matrix', detail: who.detail, fix: who.fix }];
    return [{ status: 'ok', label: 'matrix', detail: who.userId }];
  }

  /** Sends a reply to a room (also used by jobs through the ChannelHub). */
  async send(chatId: string, reply: OutboundReply, replyTo?: string): Promise<void> {
    await this.out.reply(chatId, reply, replyTo);
  }

  /** One cheap authenticated request (`/account/whoami`), each failure with the key to fix; `stop` aborts it. */
  private async whoAmI(stop?: AbortSignal): Promise<{ ok: true; userId: string; deviceId: string | undefined } | { ok: false; rejected: boolean; detail: string; fix: string }> {
    const { config } = this.options;
    routeSdkLogs(this.log);
    // A client of its own, without the sync loop: a check answers in seconds.
    const probe = createClient({ baseUrl: this.baseUrl, accessToken: config.access_token, localTimeoutMs: CHECK_TIMEOUT_MS });
    const abort = (): void => probe.http.abort();
    stop?.addEventListener('abort', abort, { once: true });
    try {
      const me = await probe.whoami();
      if (config.user_id && config.user_id !== me.user_id) {
        return { ok: false, rejected: true, detail: `the access token belongs to ${me.user_id}, not ${config.user_id}`, fix: `set channels.matrix.user_id to ${me.user_id} (or leave it empty), or use ${config.user_id}'s access token` };
      }
      return { ok: true, userId: me.user_id, deviceId: me.device_id };
    } catch (error) {
      if (error instanceof MatrixError && (error.httpStatus === 401 || error.httpStatus === 403)) {
        return { ok: false, rejected: true, detail: `access token rejected (${error.errcode ?? error.httpStatus})`, fix: 'set channels.matrix.access_token to the bot account\'s token (docs/channels/matrix.md shows how to get one)' };
      }
      return { ok: false, rejected: false, detail: `cannot reach ${this.baseUrl} (${errorMessage(error)})`, fix: 'check the network and channels.matrix.homeserver_url' };
    } finally {
      stop?.removeEventListener('abort', abort);
    }
  }

  /** Resolves at the first sync; rejects after 30 s, or at once when `stop` aborts (its timer is cleared either way). */
  private firstSync(client: MatrixClient, stop: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const limit = deadline(START_TIMEOUT_MS, stop);
      const finish = (error?: Error): void => {
        limit.done();
        limit.signal.removeEventListener('abort', onAbort);
        client.off(ClientEvent.Sync, onSync);
        if (error) reject(error);
        else resolve();
      };
      const onSync = (state: SyncState): void => {
        if (state === SyncState.Prepared || state === SyncState.Syncing) finish();
      };
      const onAbort = (): void => finish(stop.aborted ? stopped() : new Error(`no answer in ${START_TIMEOUT_MS / 1000} s`));
      limit.signal.addEventListener('abort', onAbort, { once: true });
      client.on(ClientEvent.Sync, onSync);
    });
  }

  private onSync(state: SyncState): void {
    if (state === SyncState.Error || state === SyncState.Reconnecting) {
      if (!this.lost && this.accepting) this.log.warn({ state }, 'matrix: the sync connection was lost; matrix-js-sdk retries until the homeserver answers');
      this.lost = true;
    } else if (state === SyncState.Syncing && this.lost) {
      this.lost = false;
      this.log.info('matrix: reconnected');
    }
  }

  private onTimeline(event: MatrixEvent, room: Room | undefined, toStart: boolean | undefined, removed: boolean, data: IRoomTimelineData): void {
    if (!this.accepting || toStart || removed || !room || !data.liveEvent) return;
    const sender = event.getSender();
    if (!sender || sender === this.me || event.isRedacted()) return;
    // The first sync brings each room's recent timeline: older events were either answered or are too old to answer.
    if (event.getTs() < this.startedAt - REPLAY_WINDOW_MS) return;
    const type = event.getType();
    if (type === 'm.room.message') {
      this.inbound = this.inbound.then(() => this.onMessage(event, room)).catch((error: unknown) => this.log.error({ err: error }, 'matrix: message handling failed'));
    } else if (type === 'm.reaction') {
      this.onReactionEvent(event, room, sender);
    } else if (this.prepared && (type === 'm.room.encrypted' || (type === 'm.room.encryption' && event.isState()))) {
      this.refuseEncrypted(room.roomId, sender);
    }
  }

  private async onMessage(event: MatrixEvent, room: Room): Promise<void> {
    const message = readMessage(event.getContent());
    const sender = event.getSender();
    const eventId = event.getId();
    if (!message || !sender || !eventId) return;
    // Plain text in an encrypted room (some clients allow it) is not answered either: the answer could not be sent.
    if (room.hasEncryptionStateEvent()) {
      this.refuseEncrypted(room.roomId, sender);
      return;
    }
    // Two members, the bot and one person: a direct room (also when nobody marked it as one in m.direct).
    const isDirect = room.getJoinedMemberCount() === 2;
    let text = message.text;
    if (!isDirect) {
      const me = { userId: this.me, displayName: room.getMember(this.me)?.name };
      const addressed = mentions(message, me) || (message.replyTo !== undefined && await this.senderOf(room, message.replyTo) === this.me);
      if (!addressed) return;
      text = stripMention(text, me);
    }
    const update: InboundUpdate = {
      channel: this.name,
      chatId: room.roomId,
      userId: sender,
      // Names are the sender's to choose: stripped of control and reordering characters before anything prints them.
      userName: cleanName(room.getMember(sender)?.name ?? sender),
      text,
      attachments: message.file ? [remoteFile(message.file, (mxc) => this.out.download(mxc))] : [],
      platformMessageId: eventId,
      ...(message.replyTo ? { replyTo: message.replyTo } : {}),
      isDirect,
    };
    void this.options.router.handle(update, this.chatIo(update));
  }

  /** Who sent the event replied to: from memory, else one request. */
  private async senderOf(room: Room, eventId: string): Promise<string | undefined> {
    const known = room.findEventById(eventId)?.getSender();
    if (known) return known;
    try {
      return (await this.client?.fetchRoomEvent(room.roomId, eventId))?.sender;
    } catch (error) {
      this.log.debug({ err: error, eventId }, 'matrix: the event replied to could not be fetched');
      return undefined;
    }
  }

  /** Replies go to the message's room; in group rooms they are replies to the message they answer. */
  private chatIo(update: InboundUpdate): ChatIo {
    const roomId = update.chatId;
    const replyTo = update.isDirect ? undefined : update.platformMessageId;
    return {
      send: (reply) => this.out.reply(roomId, reply, replyTo),
      typing: () => this.out.typing(roomId),
      voice: { format: 'ogg_opus', send: (audio) => this.out.voice(roomId, audio) },
      sendEditable: async (text) => {
        const sent = await this.out.text(roomId, text, { notice: true, plain: true });
        return (next) => this.out.edit(roomId, sent, next, true);
      },
    };
  }

  private onReactionEvent(event: MatrixEvent, room: Room, sender: string): void {
    const relation = event.getRelation();
    if (relation?.rel_type !== 'm.annotation' || !relation.event_id || typeof relation.key !== 'string') return;
    const reaction: MatrixReaction = {
      roomId: room.roomId, sender, senderName: cleanName(room.getMember(sender)?.name ?? sender) || sender, target: relation.event_id, key: relation.key,
    };
    for (const listener of this.reactionListeners) {
      Promise.resolve(listener(reaction)).catch((error: unknown) => this.log.error({ err: error }, 'matrix: reaction listener failed'));
    }
  }

  /**
   * Invites: a direct invite (`is_direct`) is joined from anyone, so a stranger can ask to pair as on Telegram; a
   * group room only from someone who may talk to the bot; other invites are declined. Once joined after start, an
   * encrypted room is told at once that the bot cannot read it.
   */
  private onMembership(event: MatrixEvent | undefined, member: RoomMember): void {
    if (!this.accepting || member.userId !== this.me || !this.client) return;
    const client = this.client;
    if (member.membership === 'join' && this.prepared && client.getRoom(member.roomId)?.hasEncryptionStateEvent()) {
      this.refuseEncrypted(member.roomId, undefined);
      return;
    }
    if (member.membership !== 'invite') return;
    const inviter = event?.getSender() ?? '';
    const direct = event?.getContent()['is_direct'] === true;
    const allowed = this.options.router.isAllowed(this.name, inviter);
    const log = this.log.child({ roomId: member.roomId, inviter });
    if (allowed || direct) {
      client.joinRoom(member.roomId).then(
        () => log.info({ direct }, 'matrix: invite accepted'),
        (error: unknown) => log.warn({ err: error }, 'matrix: could not join the room it was invited to'),
      );
      return;
    }
    log.info('matrix: group invite from someone not allowed declined (allow them with channels.matrix.allowed_users or pairing)');
    client.leave(member.roomId).catch((error: unknown) => log.debug({ err: error }, 'matrix: declining the invite failed'));
  }

  /** Once per room and run: a plain notice that encrypted messages cannot be read, and a log line. Never throws. */
  private refuseEncrypted(roomId: string, sender: string | undefined): void {
    if (this.refused.has(roomId)) return;
    // Strangers are not answered, here as anywhere.
    if (sender !== undefined && !this.options.router.isAllowed(this.name, sender)) return;
    this.refused.add(roomId);
    this.log.warn({ roomId }, 'matrix: this room is end-to-end encrypted; Familiar cannot read it (use a room without encryption)');
    const client = this.client;
    if (!client) return;
    const content: EventContent = { msgtype: 'm.notice', body: ENCRYPTED_NOTICE, 'm.mentions': {} };
    // Through the HTTP layer: the SDK, without crypto, refuses to send into an encrypted room, and this line is no secret.
    const path = `/rooms/${encodeURIComponent(roomId)}/send/m.room.message/${encodeURIComponent(client.makeTxnId())}`;
    client.http.authedRequest(Method.Put, path, undefined, content).catch((error: unknown) => {
      this.log.warn({ err: error, roomId }, 'matrix: the notice about encryption could not be sent');
    });
  }
}

function stopped(): AppError {
  return new AppError('MATRIX_STOPPED', 'matrix: stopped while connecting');
}
