// Contract: a node:http fake of a Matrix homeserver's Client-Server API (spec.matrix.org v1.11 shapes) that the real
// matrix-js-sdk talks to in tests: /versions, whoami, capabilities, push rules, filters, long-polled /sync (rooms,
// timelines, state, invites), send (idempotent by transaction id), redact, typing, join/leave, joined members, one
// event, media upload and authenticated download, with the spec's error shape ({errcode, error}). Tests act as the
// other people: they post events into rooms, invite the bot, react, and read what the bot sent.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerBadGateway } from './bad-gateway.js';

type Json = Record<string, unknown>;

export interface MatrixEvent {
  type: string;
  event_id: string;
  sender: string;
  origin_server_ts: number;
  content: Json;
  state_key?: string;
  room_id?: string;
  unsigned?: Json;
}

/** An event the bot sent, as the fake stored it. */
export interface SentEvent extends MatrixEvent {
  roomId: string;
  txnId: string;
}

interface Room {
  id: string;
  /** Current state by `type\u0000state_key`. */
  state: Map<string, MatrixEvent>;
  timeline: MatrixEvent[];
}

/** One position in the server's stream: a timeline event, or an invite of the bot. */
interface StreamEntry {
  position: number;
  roomId: string;
  event?: MatrixEvent;
  invite?: MatrixEvent[];
}

export interface FakeMatrix {
  baseUrl: string;
  accessToken: string;
  botUserId: string;
  deviceId: string;
  /** Every request (method, path without query, query, JSON body). */
  requests: Array<{ method: string; path: string; query: URLSearchParams; body: unknown }>;
  /** Events the bot sent, in order. */
  sent: SentEvent[];
  typing: Array<{ roomId: string; typing: boolean; timeout?: number }>;
  uploads: Array<{ mxc: string; fileName: string | undefined; contentType: string; bytes: Buffer }>;
  /** A room the bot is in (`members` joined besides the bot), with `m.room.encryption` when `encrypted`. */
  createRoom(options: { members: string[]; encrypted?: boolean; name?: string; id?: string }): string;
  /** The bot is invited to a new room by `inviter` (direct: `is_direct` on the invite, as Element's DMs). */
  invite(options: { inviter: string; direct?: boolean; encrypted?: boolean }): string;
  /** A person posts an event into a room; returns its event id. */
  post(roomId: string, sender: string, type: string, content: Json, stateKey?: string): string;
  /** A person sends a text message (`m.text`); `mentions` are user ids put in `m.mentions`. */
  say(roomId: string, sender: string, body: string, options?: { mentions?: string[]; replyTo?: string }): string;
  react(roomId: string, sender: string, eventId: string, key: string): string;
  /** Stores bytes as media (as a person's client uploads them) and returns the mxc:// URI. */
  putMedia(bytes: Buffer, contentType: string): string;
  /** Puts an already delivered event into the stream again (a server handing it out twice). */
  redeliver(eventId: string): void;
  /** Answers the next `count` requests whose path contains `fragment` with an error (`extra`: more fields, e.g. retry_after_ms). */
  failNext(fragment: string, status: number, errcode: string, count?: number, extra?: Json): void;
  /**
   * While `on`, every request is answered 502 Bad Gateway (nginx's page), as the reverse proxy in front of a homeserver
   * that is down or restarting answers; each is counted in `badGateways` (not in `requests`).
   */
  outage(on: boolean): void;
  badGateways: number;
  /** Ends the open /sync requests by destroying their sockets, and refuses /sync for `ms` (a dropped connection). */
  dropConnection(ms: number): void;
  /** The bot's `m.room.message` events in a room, each with its latest edit applied. */
  messagesIn(roomId: string): Array<SentEvent & { shown: Json }>;
  media(mxc: string): Buffer | undefined;
  waitFor<T>(predicate: () => T | undefined | false | null, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

const SERVER = 'example.org';
const stateKeyOf = (event: MatrixEvent): string => `${event.type}\u0000${event.state_key ?? ''}`;

export async function startMatrixServer(options: { botUserId?: string; accessToken?: string } = {}): Promise<FakeMatrix> {
  const botUserId = options.botUserId ?? `@familiar:${SERVER}`;
  const accessToken = options.accessToken ?? `syt_${randomBytes(12).toString('hex')}`;
  const deviceId = 'FAKEDEVICE';
  const rooms = new Map<string, Room>();
  const stream: StreamEntry[] = [];
  const pendingInvites = new Map<string, MatrixEvent[]>();
  const mediaStore = new Map<string, { bytes: Buffer; contentType: string; fileName?: string | undefined }>();
  const transactions = new Map<string, string>();
  const failures: Array<{ fragment: string; status: number; errcode: string; left: number; extra: Json }> = [];
  const waiters = new Set<() => void>();
  const openSyncs = new Set<IncomingMessage>();
  let refuseSyncUntil = 0;
  let down = false;
  let counter = 0;
  let position = 0;

  const fake: FakeMatrix = {
    baseUrl: '', accessToken, botUserId, deviceId, requests: [], sent: [], typing: [], uploads: [],
    badGateways: 0,
    outage(on) {
      down = on;
    },
    createRoom({ members, encrypted, name, id }) {
      const roomId = id ?? `!room${++counter}:${SERVER}`;
      const room: Room = { id: roomId, state: new Map(), timeline: [] };
      rooms.set(roomId, room);
      const creator = members[0] ?? botUserId;
      const quiet = (type: string, sender: string, content: Json, stateKey: string): void => {
        const event = makeEvent(type, sender, content, stateKey);
        room.state.set(stateKeyOf(event), event);
      };
      quiet('m.room.create', creator, { creator, room_version: '10' }, '');
      for (const member of members) quiet('m.room.member', member, { membership: 'join', displayname: member.slice(1).split(':')[0] }, member);
      if (name) quiet('m.room.name', creator, { name }, '');
      if (encrypted) quiet('m.room.encryption', creator, { algorithm: 'm.megolm.v1.aes-sha2' }, '');
      // The bot's join goes through the stream: a room made while the bot syncs arrives with its whole state.
      addToRoom(room, makeEvent('m.room.member', botUserId, { membership: 'join', displayname: 'Familiar' }, botUserId));
      return roomId;
    },
    invite({ inviter, direct, encrypted }) {
      const roomId = `!invite${++counter}:${SERVER}`;
      const room: Room = { id: roomId, state: new Map(), timeline: [] };
      rooms.set(roomId, room);
      const create = makeEvent('m.room.create', inviter, { creator: inviter, room_version: '10' }, '');
      const join = makeEvent('m.room.member', inviter, { membership: 'join', displayname: inviter.slice(1).split(':')[0] }, inviter);
      const invite = makeEvent('m.room.member', inviter, { membership: 'invite', ...(direct ? { is_direct: true } : {}) }, botUserId);
      const encryption = encrypted ? [makeEvent('m.room.encryption', inviter, { algorithm: 'm.megolm.v1.aes-sha2' }, '')] : [];
      for (const event of [create, join, invite, ...encryption]) room.state.set(stateKeyOf(event), event);
      const stripped = [create, join, invite, ...encryption].map(({ type, sender, content, state_key }) => ({ type, sender, content, state_key }) as MatrixEvent);
      pendingInvites.set(roomId, stripped);
      append({ position: 0, roomId, invite: stripped });
      return roomId;
    },
    post(roomId, sender, type, content, stateKey) {
      const room = rooms.get(roomId);
      if (!room) throw new Error(`no room ${roomId}`);
      const event = makeEvent(type, sender, content, stateKey);
      addToRoom(room, event);
      return event.event_id;
    },
    say(roomId, sender, body, extra = {}) {
      return fake.post(roomId, sender, 'm.room.message', {
        msgtype: 'm.text', body,
        ...(extra.mentions ? { 'm.mentions': { user_ids: extra.mentions } } : {}),
        ...(extra.replyTo ? { 'm.relates_to': { 'm.in_reply_to': { event_id: extra.replyTo } } } : {}),
      });
    },
    react(roomId, sender, eventId, key) {
      return fake.post(roomId, sender, 'm.reaction', { 'm.relates_to': { rel_type: 'm.annotation', event_id: eventId, key } });
    },
    putMedia(bytes, contentType) {
      const mxc = `mxc://${SERVER}/${randomBytes(9).toString('hex')}`;
      mediaStore.set(mxc, { bytes, contentType });
      return mxc;
    },
    redeliver(eventId) {
      const entry = stream.find((candidate) => candidate.event?.event_id === eventId);
      if (!entry) throw new Error(`no event ${eventId}`);
      append({ ...entry, position: 0 });
    },
    failNext(fragment, status, errcode, count = 1, extra = {}) {
      failures.push({ fragment, status, errcode, left: count, extra });
    },
    dropConnection(ms) {
      refuseSyncUntil = Date.now() + ms;
      for (const request of openSyncs) request.socket.destroy();
      openSyncs.clear();
    },
    messagesIn(roomId) {
      const edits = new Map<string, Json>();
      for (const event of fake.sent) {
        const relation = event.content['m.relates_to'] as { rel_type?: string; event_id?: string } | undefined;
        if (relation?.rel_type === 'm.replace' && relation.event_id) edits.set(relation.event_id, event.content['m.new_content'] as Json);
      }
      return fake.sent
        .filter((event) => event.roomId === roomId && event.type === 'm.room.message')
        .filter((event) => (event.content['m.relates_to'] as { rel_type?: string } | undefined)?.rel_type !== 'm.replace')
        .map((event) => ({ ...event, shown: edits.get(event.event_id) ?? event.content }));
    },
    media: (mxc) => mediaStore.get(mxc)?.bytes,
    async waitFor(predicate, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = predicate();
        if (value !== undefined && value !== false && value !== null) return value;
        if (Date.now() > deadline) throw new Error('matrix fake: timed out waiting');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      for (const request of openSyncs) request.socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  function makeEvent(type: string, sender: string, content: Json, stateKey?: string): MatrixEvent {
    return { type, sender, content, event_id: `$${randomBytes(12).toString('base64url')}`, origin_server_ts: Date.now(), ...(stateKey !== undefined ? { state_key: stateKey } : {}) };
  }
  function append(entry: StreamEntry): void {
    stream.push({ ...entry, position: ++position });
    for (const wake of waiters) wake();
  }
  function addToRoom(room: Room, event: MatrixEvent): void {
    room.timeline.push(event);
    if (event.state_key !== undefined) room.state.set(stateKeyOf(event), event);
    append({ position: 0, roomId: room.id, event });
  }
  const joined = (room: Room, user: string): boolean => (room.state.get(`m.room.member\u0000${user}`)?.content['membership'] === 'join');

  /** The /sync body from `since` (a stream position) to now; everything for an initial sync. */
  function syncBody(since: number | undefined, timelineLimit: number): Json {
    const join: Json = {};
    const invite: Json = {};
    const entries = since === undefined ? [] : stream.filter((entry) => entry.position > since);
    const roomsSeen = new Set(entries.map((entry) => entry.roomId));
    for (const room of rooms.values()) {
      if (!joined(room, botUserId)) {
        const stripped = pendingInvites.get(room.id);
        if (stripped && (since === undefined || roomsSeen.has(room.id))) invite[room.id] = { invite_state: { events: stripped } };
        continue;
      }
      if (since !== undefined && !roomsSeen.has(room.id)) continue;
      const roomEntries = entries.filter((entry) => entry.roomId === room.id && entry.event);
      // Just joined: the complete state comes with the room, as the spec asks of the sync that shows a join.
      const newlyJoined = since !== undefined && roomEntries.some((entry) => entry.event?.type === 'm.room.member' && entry.event.state_key === botUserId);
      const timeline = since === undefined ? room.timeline.slice(-timelineLimit) : roomEntries.map((entry) => entry.event as MatrixEvent);
      const inTimeline = new Set(timeline.map((event) => event.event_id));
      const state = since === undefined || newlyJoined ? [...room.state.values()].filter((event) => !inTimeline.has(event.event_id)) : [];
      join[room.id] = {
        timeline: { events: timeline, limited: since === undefined && room.timeline.length > timeline.length, prev_batch: `p${position}` },
        state: { events: state }, ephemeral: { events: [] }, account_data: { events: [] },
        unread_notifications: { highlight_count: 0, notification_count: 0 },
      };
    }
    return { next_batch: `s${position}`, rooms: { join, invite, leave: {} }, account_data: { events: [] }, presence: { events: [] }, to_device: { events: [] } };
  }

  const send = (res: ServerResponse, status: number, body: unknown): void => {
    if (!res.headersSent) res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const error = (res: ServerResponse, status: number, errcode: string, message: string): void => send(res, status, { errcode, error: message });

  async function route(req: IncomingMessage, res: ServerResponse, url: URL, raw: Buffer): Promise<void> {
    const path = decodeURIComponent(url.pathname);
    const method = req.method ?? 'GET';
    let body: unknown;
    const isJson = (req.headers['content-type'] ?? '').startsWith('application/json');
    if (raw.length > 0 && isJson) body = JSON.parse(raw.toString('utf8'));
    fake.requests.push({ method, path, query: url.searchParams, body });
    const failure = failures.find((candidate) => candidate.left > 0 && path.includes(candidate.fragment));
    if (failure) {
      failure.left -= 1;
      send(res, failure.status, { errcode: failure.errcode, error: `scripted failure (${failure.errcode})`, ...failure.extra });
      return;
    }
    if (path === '/_matrix/client/versions') {
      send(res, 200, { versions: ['v1.1', 'v1.2', 'v1.3', 'v1.4', 'v1.5', 'v1.6', 'v1.7', 'v1.8', 'v1.9', 'v1.10', 'v1.11'], unstable_features: {} });
      return;
    }
    // Media downloads are authenticated since v1.11; the old unauthenticated path is frozen, as on matrix.org.
    if (path.startsWith('/_matrix/media/v3/download/')) {
      error(res, 404, 'M_NOT_FOUND', 'unauthenticated media is frozen: use /_matrix/client/v1/media/download');
      return;
    }
    if (req.headers.authorization !== `Bearer ${accessToken}`) {
      error(res, 401, req.headers.authorization ? 'M_UNKNOWN_TOKEN' : 'M_MISSING_TOKEN', 'Invalid access token passed.');
      return;
    }
    const client = /^\/_matrix\/client\/(?:v3|r0|v1)(\/.*)$/.exec(path)?.[1];
    const mediaUpload = path === '/_matrix/media/v3/upload';
    if (mediaUpload && method === 'POST') {
      const mxc = `mxc://${SERVER}/${randomBytes(9).toString('hex')}`;
      const contentType = req.headers['content-type'] ?? 'application/octet-stream';
      const fileName = url.searchParams.get('filename') ?? undefined;
      mediaStore.set(mxc, { bytes: raw, contentType, fileName });
      fake.uploads.push({ mxc, fileName, contentType, bytes: raw });
      send(res, 200, { content_uri: mxc });
      return;
    }
    if (client === undefined) {
      error(res, 404, 'M_UNRECOGNIZED', 'Unrecognized request');
      return;
    }
    let match: RegExpExecArray | null;
    if (client === '/account/whoami') return send(res, 200, { user_id: botUserId, device_id: deviceId, is_guest: false });
    if (client === '/capabilities') return send(res, 200, { capabilities: { 'm.change_password': { enabled: false } } });
    if (client === '/pushrules/') return send(res, 200, { global: { override: [], content: [], room: [], sender: [], underride: [] } });
    if ((match = /^\/user\/([^/]+)\/filter$/.exec(client)) && method === 'POST') return send(res, 200, { filter_id: String(++counter) });
    if ((match = /^\/user\/([^/]+)\/filter\/([^/]+)$/.exec(client))) return send(res, 200, { room: { timeline: { limit: 20 } } });
    if ((match = /^\/media\/download\/([^/]+)\/([^/]+)/.exec(client))) {
      const stored = mediaStore.get(`mxc://${match[1]}/${match[2]}`);
      if (!stored) return error(res, 404, 'M_NOT_FOUND', 'Not found');
      res.writeHead(200, { 'content-type': stored.contentType, 'content-length': stored.bytes.length }).end(stored.bytes);
      return;
    }
    if (client === '/sync') return sync(req, res, url);
    if ((match = /^\/join\/([^/]+)$/.exec(client)) || (match = /^\/rooms\/([^/]+)\/join$/.exec(client))) {
      const room = rooms.get(match[1] ?? '');
      if (!room) return error(res, 404, 'M_NOT_FOUND', 'No known servers');
      pendingInvites.delete(room.id);
      addToRoom(room, makeEvent('m.room.member', botUserId, { membership: 'join', displayname: 'Familiar' }, botUserId));
      return send(res, 200, { room_id: room.id });
    }
    if ((match = /^\/rooms\/([^/]+)\/leave$/.exec(client))) {
      const room = rooms.get(match[1] ?? '');
      if (!room) return error(res, 404, 'M_NOT_FOUND', 'Unknown room');
      pendingInvites.delete(room.id);
      room.state.set(`m.room.member\u0000${botUserId}`, makeEvent('m.room.member', botUserId, { membership: 'leave' }, botUserId));
      return send(res, 200, {});
    }
    if ((match = /^\/rooms\/([^/]+)\/typing\/([^/]+)$/.exec(client)) && method === 'PUT') {
      const { typing, timeout } = body as { typing: boolean; timeout?: number };
      fake.typing.push({ roomId: match[1] ?? '', typing, ...(timeout !== undefined ? { timeout } : {}) });
      return send(res, 200, {});
    }
    if ((match = /^\/rooms\/([^/]+)\/joined_members$/.exec(client))) {
      const room = rooms.get(match[1] ?? '');
      if (!room || !joined(room, botUserId)) return error(res, 403, 'M_FORBIDDEN', 'You are not in this room');
      const members = [...room.state.values()].filter((event) => event.type === 'm.room.member' && event.content['membership'] === 'join');
      return send(res, 200, { joined: Object.fromEntries(members.map((event) => [event.state_key, { display_name: event.content['displayname'] ?? null, avatar_url: null }])) });
    }
    if ((match = /^\/rooms\/([^/]+)\/event\/([^/]+)$/.exec(client))) {
      const event = rooms.get(match[1] ?? '')?.timeline.find((candidate) => candidate.event_id === match?.[2]);
      return event ? send(res, 200, { ...event, room_id: match[1] }) : error(res, 404, 'M_NOT_FOUND', 'Event not found');
    }
    if ((match = /^\/rooms\/([^/]+)\/(send|redact)\/([^/]+)\/([^/]+)$/.exec(client)) && method === 'PUT') {
      const [, roomId = '', kind, target = '', txnId = ''] = match;
      const room = rooms.get(roomId);
      if (!room || !joined(room, botUserId)) return error(res, 403, 'M_FORBIDDEN', 'You are not in this room');
      // Idempotent by transaction id: a retried request gets the same event, as the spec requires.
      const known = transactions.get(`${roomId}/${txnId}`);
      if (known) return send(res, 200, { event_id: known });
      const type = kind === 'send' ? target : 'm.room.redaction';
      const content = kind === 'send' ? (body as Json) : { redacts: target, ...(body as Json) };
      if (Buffer.byteLength(JSON.stringify(content)) > 65_000) return error(res, 413, 'M_TOO_LARGE', 'event too large');
      const event = makeEvent(type, botUserId, content);
      event.unsigned = { transaction_id: txnId };
      transactions.set(`${roomId}/${txnId}`, event.event_id);
      fake.sent.push({ ...event, roomId, txnId });
      addToRoom(room, event);
      return send(res, 200, { event_id: event.event_id });
    }
    error(res, 404, 'M_UNRECOGNIZED', `Unrecognized request: ${method} ${path}`);
  }

  function sync(req: IncomingMessage, res: ServerResponse, url: URL): void {
    if (Date.now() < refuseSyncUntil) {
      req.socket.destroy();
      return;
    }
    const sinceText = url.searchParams.get('since');
    const since = sinceText === null ? undefined : Number(sinceText.slice(1));
    const filterText = url.searchParams.get('filter') ?? '';
    const limit = filterText.startsWith('{') ? ((JSON.parse(filterText) as { room?: { timeline?: { limit?: number } } }).room?.timeline?.limit ?? 20) : 20;
    const timeout = Number(url.searchParams.get('timeout') ?? '0');
    const ready = (): boolean => since === undefined || stream.some((entry) => entry.position > since);
    if (ready() || timeout === 0) {
      send(res, 200, syncBody(since, limit));
      return;
    }
    openSyncs.add(req);
    const finish = (): void => {
      waiters.delete(wake);
      clearTimeout(timer);
      openSyncs.delete(req);
      if (!req.socket.destroyed) send(res, 200, syncBody(since, limit));
    };
    const wake = (): void => {
      if (ready()) finish();
    };
    waiters.add(wake);
    const timer = setTimeout(finish, Math.min(timeout, 30_000));
    // The response's close, not the request's: the request closes once its (empty) body is read.
    res.on('close', () => {
      waiters.delete(wake);
      clearTimeout(timer);
      openSyncs.delete(req);
    });
  }

  const server = createServer((req, res) => {
    if (down) {
      fake.badGateways += 1;
      answerBadGateway(res);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      route(req, res, url, Buffer.concat(chunks)).catch((failure: unknown) => error(res, 500, 'M_UNKNOWN', String(failure)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
