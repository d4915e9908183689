// Contract: a wire-faithful fake of Discord (REST under /api[/v10] + gateway v10 JSON over ws) that the real discord.js Client talks to in tests.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, WebSocket } from 'ws';
import { answerBadGateway } from './bad-gateway.js';

type Json = Record<string, unknown>;
export interface FakeChannelSpec { id: string; name?: string }
export interface FakeGuildSpec { id: string; name?: string; channels: FakeChannelSpec[] }
export interface DiscordServerOptions {
  token?: string; botId?: string; botUsername?: string; guilds?: FakeGuildSpec[];
  /** HELLO heartbeat_interval (ms); default 41250 like Discord. */
  heartbeatIntervalMs?: number;
  /** Dispatch MESSAGE_CREATE/UPDATE/DELETE for the bot's own REST writes, as Discord does (default true). */
  echoBotMessages?: boolean;
}
export interface SentFile { name: string; bytes: Buffer; contentType?: string | undefined }
export interface SentMessage {
  id: string; channelId: string; content: string; files: SentFile[]; components: unknown[]; embeds: unknown[];
  replyToMessageId?: string | undefined; edits: string[]; deleted: boolean; at: number; raw: Json;
}
export interface TypingEvent { channelId: string; at: number }
export interface InteractionResponse {
  kind: 'callback' | 'editOriginal' | 'followup'; interactionId: string; token: string;
  type?: number | undefined; data?: Json | undefined; at: number;
}
export interface RecordedRequest { method: string; path: string; query: string; status: number; body?: unknown; at: number }
export interface UserMessageOptions {
  channelId?: string; guildId?: string; userId: string; username?: string; content: string; dm?: boolean;
  mentionsBot?: boolean; replyToMessageId?: string;
  attachments?: Array<{ filename: string; content: Buffer | string; contentType?: string }>;
  /** A voice message recorded in the app (flag IS_VOICE_MESSAGE, 1 << 13; its one attachment is OGG/Opus). */
  voiceMessage?: boolean;
}
export interface ClickButtonOptions { channelId: string; messageId: string; customId: string; userId: string; guildId?: string; username?: string }
export interface FakeDiscord {
  url: string; restApi: string; gatewayUrl: string; token: string; botId: string; botUser: Json;
  close(): Promise<void>;
  sendUserMessage(opts: UserMessageOptions): { messageId: string; channelId: string };
  /** Dispatch the same MESSAGE_CREATE again (new seq). Note discord.js drops a repeat of a cached non-bot message itself. */
  redispatch(messageId: string): void;
  clickButton(opts: ClickButtonOptions): { interactionId: string; token: string };
  /** Raw dispatch escape hatch; returns the seq. */
  dispatch(t: string, d: Json): number;
  /** Close the client socket: no code / 1006 → terminate (abnormal); 4000 etc. → resume; 1000 → fresh IDENTIFY (throttled ~5 s). */
  dropConnection(code?: number): void;
  /**
   * While `on`, every request and gateway connection is answered 502 Bad Gateway (nginx's page), as Cloudflare or a
   * reverse proxy answers for a server that is down; each is counted in `badGateways`.
   */
  outage(on: boolean): void;
  badGateways: number;
  /** route: "[METHOD ]/path" with `:param` wildcards, e.g. "POST /channels/:id/messages". One-shot. */
  failNext(route: string, status: number, body?: Json, retryAfterSeconds?: number): void;
  dmChannelId(userId: string): string;
  messages: SentMessage[]; messagesIn(channelId: string): SentMessage[]; typing: TypingEvent[];
  interactionResponses: InteractionResponse[]; requests: RecordedRequest[];
  /** `open`: gateway connections open now. */
  gateway: { connections: number; open: number; identifies: number; resumes: number; heartbeats: number };
  waitFor<T>(predicate: () => T | undefined | null | false, timeoutMs?: number): Promise<T>;
}

interface Channel { id: string; type: 0 | 1; guildId?: string | undefined; name?: string | undefined; recipientId?: string | undefined; position: number }
interface Session { id: string; seq: number; intents: number; history: Array<{ s: number; t: string; d: Json }>; ws: WebSocket | null }
interface Failure { method?: string | undefined; re: RegExp; status: number; body?: Json | undefined; retryAfter?: number | undefined }
interface Part { name: string; filename?: string | undefined; contentType?: string | undefined; data: Buffer }
interface StoredInteraction { id: string; token: string; channelId: string; messageId: string }

const EPOCH = 1420070400000n;
let counter = 0n;
const snowflake = (): string => (((BigInt(Date.now()) - EPOCH) << 22n) | (counter++ & 0x3fffffn)).toString();
const INTENT = { GuildMessages: 1 << 9, DirectMessages: 1 << 12, MessageContent: 1 << 15 };

class HttpError extends Error {
  constructor(readonly status: number, readonly body: Json) { super(String(body.message)); }
}
const unknown = (what: 'Channel' | 'Message', code: number): HttpError => new HttpError(404, { message: `Unknown ${what}`, code });

export function parseMultipart(body: Buffer, contentType: string): Part[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const delim = Buffer.from(`--${boundary?.[1] ?? boundary?.[2] ?? ''}`);
  const parts: Part[] = [];
  let pos = body.indexOf(delim);
  while (pos !== -1) {
    const start = pos + delim.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delim, start);
    if (next === -1) break;
    const chunk = body.subarray(start + 2, next - 2);
    const headEnd = chunk.indexOf('\r\n\r\n');
    const head = chunk.subarray(0, headEnd).toString('utf8');
    const disp = /content-disposition:([^\r\n]*)/i.exec(head)?.[1] ?? '';
    const param = (key: string): string | undefined => {
      const m = new RegExp(`(?:^|;)\\s*${key}=(?:"([^"]*)"|([^;]+))`, 'i').exec(disp);
      return m ? (m[1] ?? m[2] ?? '').trim() : undefined;
    };
    parts.push({ name: param('name') ?? '', filename: param('filename'), contentType: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim(), data: Buffer.from(chunk.subarray(headEnd + 4)) });
    pos = next;
  }
  return parts;
}

export async function startDiscordServer(opts: DiscordServerOptions = {}): Promise<FakeDiscord> {
  const token = opts.token ?? 'fake-bot-token';
  const botId = opts.botId ?? '900000000000000001';
  const botUser: Json = { id: botId, username: opts.botUsername ?? 'familiar', discriminator: '0', global_name: null, avatar: null, bot: true, flags: 0, verified: true, mfa_enabled: false };
  const echo = opts.echoBotMessages ?? true;
  const guilds = opts.guilds ?? [{ id: '800000000000000001', name: 'Test Guild', channels: [{ id: '800000000000000002', name: 'general' }] }];
  const channels = new Map<string, Channel>();
  guilds.forEach((g) => g.channels.forEach((c, i) => channels.set(c.id, { id: c.id, type: 0, guildId: g.id, name: c.name ?? `channel-${i}`, position: i })));
  const dmByUser = new Map<string, string>();
  const users = new Map<string, Json>();
  const allMessages = new Map<string, Json>();
  const userMessages = new Map<string, Json>();
  const attachments = new Map<string, { bytes: Buffer; contentType: string }>();
  const interactions = new Map<string, StoredInteraction>();
  const failures: Failure[] = [];
  const sessions = new Map<string, Session>();
  let current: Session | null = null;
  let base = '';
  let down = false;

  const fake: FakeDiscord = {
    url: '', restApi: '', gatewayUrl: '', token, botId, botUser,
    messages: [], typing: [], interactionResponses: [], requests: [], badGateways: 0,
    outage(on) { down = on; },
    gateway: { connections: 0, open: 0, identifies: 0, resumes: 0, heartbeats: 0 },
    messagesIn: (channelId) => fake.messages.filter((m) => m.channelId === channelId),
    close, sendUserMessage, redispatch, clickButton, dispatch, dropConnection, dmChannelId, waitFor,
    failNext(route, status, body, retryAfter) {
      const m = /^([A-Z]+)\s+(.*)$/.exec(route.trim());
      const path = (m?.[2] ?? route.trim()).replace(/^\/api(\/v\d+)?/, '').split('?')[0] ?? '';
      const re = new RegExp(`^${path.split('/').map((s) => (s.startsWith(':') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`);
      failures.push({ method: m?.[1], re, status, body, retryAfter });
    },
  };

  // ---- model helpers
  const userObj = (id: string, username?: string): Json => {
    const u = users.get(id) ?? { id, username: username ?? `user${id.slice(-4)}`, discriminator: '0', global_name: username ?? null, avatar: null, bot: false, public_flags: 0 };
    if (username) u.username = username;
    users.set(id, u);
    return u;
  };
  const member = (): Json => ({ roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0, nick: null, avatar: null, premium_since: null, pending: false });
  function dmChannelId(userId: string): string {
    let id = dmByUser.get(userId);
    if (!id) { id = snowflake(); dmByUser.set(userId, id); channels.set(id, { id, type: 1, recipientId: userId, position: 0 }); }
    return id;
  }
  const channelObj = (c: Channel): Json => c.type === 1
    ? { id: c.id, type: 1, last_message_id: null, flags: 0, recipients: [userObj(c.recipientId ?? '0')] }
    : { id: c.id, type: 0, guild_id: c.guildId, name: c.name, position: c.position, permission_overwrites: [], parent_id: null, nsfw: false, topic: null, last_message_id: null, rate_limit_per_user: 0, flags: 0 };
  const guildCreate = (g: FakeGuildSpec): Json => ({
    id: g.id, name: g.name ?? 'Test Guild', icon: null, splash: null, discovery_splash: null, owner_id: '1', afk_channel_id: null, afk_timeout: 300,
    verification_level: 0, default_message_notifications: 0, explicit_content_filter: 0, mfa_level: 0, application_id: null, system_channel_id: null,
    system_channel_flags: 0, rules_channel_id: null, vanity_url_code: null, description: null, banner: null, premium_tier: 0, preferred_locale: 'en-US',
    public_updates_channel_id: null, nsfw_level: 0, premium_progress_bar_enabled: false, features: [], emojis: [], stickers: [],
    roles: [{ id: g.id, name: '@everyone', color: 0, hoist: false, icon: null, unicode_emoji: null, position: 0, permissions: '2248473465835073', managed: false, mentionable: false, flags: 0 }],
    joined_at: new Date().toISOString(), large: false, unavailable: false, member_count: 2, voice_states: [], presences: [], threads: [],
    stage_instances: [], guild_scheduled_events: [], soundboard_sounds: [],
    members: [{ ...member(), user: botUser }],
    channels: [...channels.values()].filter((c) => c.guildId === g.id).map(channelObj),
  });
  const attachmentObj = (channelId: string, f: SentFile): Json => {
    const id = snowflake();
    const url = `${base}/attachments/${channelId}/${id}/${encodeURIComponent(f.name)}`;
    attachments.set(`/attachments/${channelId}/${id}/${encodeURIComponent(f.name)}`, { bytes: f.bytes, contentType: f.contentType ?? 'application/octet-stream' });
    return { id, filename: f.name, size: f.bytes.length, url, proxy_url: url, content_type: f.contentType ?? 'application/octet-stream' };
  };
  const withGuild = (msg: Json): Json => {
    const c = channels.get(String(msg.channel_id));
    return c?.guildId ? { ...msg, guild_id: c.guildId, ...(msg.author === botUser ? { member: member() } : {}) } : { ...msg, channel_type: 1 };
  };

  // ---- gateway
  function visible(t: string, d: Json, intents: number): Json | null {
    if (!t.startsWith('MESSAGE_')) return d;
    const guild = 'guild_id' in d;
    if (!(intents & (guild ? INTENT.GuildMessages : INTENT.DirectMessages))) return null;
    const author = d.author as Json | undefined;
    const mentioned = Array.isArray(d.mentions) && (d.mentions as Json[]).some((u) => u.id === botId);
    if (t !== 'MESSAGE_DELETE' && guild && !(intents & INTENT.MessageContent) && author?.id !== botId && !mentioned) return { ...d, content: '', embeds: [], attachments: [], components: [] };
    return d;
  }
  const send = (ws: WebSocket | null, payload: Json): void => { if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify(payload)); };
  const deliver = (sess: Session, ev: { s: number; t: string; d: Json }): void => {
    const d = visible(ev.t, ev.d, sess.intents);
    if (d) send(sess.ws, { op: 0, t: ev.t, s: ev.s, d });
  };
  function dispatch(t: string, d: Json): number {
    if (!current) throw new Error(`fake discord: no gateway session to dispatch ${t} on (log the client in first)`);
    const ev = { s: ++current.seq, t, d };
    current.history.push(ev);
    deliver(current, ev);
    return ev.s;
  }
  function dropConnection(code?: number): void {
    const ws = current?.ws;
    if (!current || !ws) return;
    current.ws = null;
    if (code === undefined || code === 1006) ws.terminate(); else ws.close(code, 'fake: dropped');
  }

  const http = createServer((req, res) => { void handle(req, res); });
  const wss = new WebSocketServer({
    server: http,
    verifyClient: (_info, accept) => {
      if (!down) return accept(true);
      fake.badGateways++;
      accept(false, 502, 'Bad Gateway');
    },
  });
  wss.on('connection', (ws) => {
    fake.gateway.connections++;
    fake.gateway.open++;
    send(ws, { op: 10, d: { heartbeat_interval: opts.heartbeatIntervalMs ?? 41250 }, s: null, t: null });
    ws.on('message', (raw) => {
      let msg: { op?: number; d?: Json | number | null };
      try { msg = JSON.parse(raw.toString()) as typeof msg; } catch { ws.close(4002, 'Error while decoding payload.'); return; }
      const d = (msg.d ?? {}) as Json;
      if (msg.op === 1) { fake.gateway.heartbeats++; send(ws, { op: 11 }); return; }
      if (msg.op !== 2 && msg.op !== 6) return;
      if (d.token !== token && d.token !== `Bot ${token}`) { ws.close(4004, 'Authentication failed.'); return; }
      if (msg.op === 2) {
        fake.gateway.identifies++;
        if (current?.ws && current.ws !== ws) current.ws.close(4009, 'Session superseded');
        const sess: Session = { id: snowflake(), seq: 0, intents: Number(d.intents ?? 0), history: [], ws };
        sessions.set(sess.id, sess);
        current = sess;
        dispatch('READY', {
          v: 10, user: botUser, guilds: guilds.map((g) => ({ id: g.id, unavailable: true })), session_id: sess.id, session_type: 'normal',
          resume_gateway_url: fake.gatewayUrl, shard: [0, 1], application: { id: botId, flags: 0 }, private_channels: [], relationships: [], user_settings: {}, presences: [], guild_join_requests: [], geo_ordered_rtc_regions: [],
        });
        for (const g of guilds) dispatch('GUILD_CREATE', guildCreate(g));
        return;
      }
      fake.gateway.resumes++;
      const sess = sessions.get(String(d.session_id));
      if (!sess || sess !== current) { send(ws, { op: 9, d: false }); return; }
      sess.ws = ws;
      for (const ev of sess.history) if (ev.s > Number(d.seq ?? 0)) deliver(sess, ev);
      dispatch('RESUMED', {});
    });
    ws.on('close', () => { fake.gateway.open--; if (current?.ws === ws) current.ws = null; });
    ws.on('error', () => undefined);
  });

  // ---- REST
  const readBody = (req: IncomingMessage): Promise<Buffer> => new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
  });
  function parseBody(req: IncomingMessage, raw: Buffer): { payload: Json; files: SentFile[] } {
    const ct = req.headers['content-type'] ?? '';
    if (ct.startsWith('multipart/form-data')) {
      const parts = parseMultipart(raw, ct);
      const pj = parts.find((p) => p.name === 'payload_json');
      const files = parts.filter((p) => /^files\[\d+\]$/.test(p.name) || p.filename !== undefined && p.name !== 'payload_json')
        .map((p) => ({ name: p.filename ?? p.name, bytes: p.data, contentType: p.contentType }));
      return { payload: pj ? JSON.parse(pj.data.toString('utf8')) as Json : {}, files };
    }
    return { payload: raw.length ? JSON.parse(raw.toString('utf8')) as Json : {}, files: [] };
  }
  function validate(payload: Json, files: SentFile[], creating: boolean): void {
    const content = typeof payload.content === 'string' ? payload.content : '';
    if (content.length > 2000) {
      throw new HttpError(400, { message: 'Invalid Form Body', code: 50035, errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } } });
    }
    const has = (k: string): boolean => Array.isArray(payload[k]) && (payload[k] as unknown[]).length > 0;
    if (creating && !content && !files.length && !has('embeds') && !has('components') && !has('sticker_ids') && !payload.poll) {
      throw new HttpError(400, { message: 'Cannot send an empty message', code: 50006 });
    }
  }
  function createBotMessage(channelId: string, payload: Json, files: SentFile[]): Json {
    const ref = payload.message_reference as Json | undefined;
    const raw: Json = {
      id: snowflake(), type: ref ? 19 : 0, channel_id: channelId, author: botUser, content: typeof payload.content === 'string' ? payload.content : '',
      timestamp: new Date().toISOString(), edited_timestamp: null, tts: Boolean(payload.tts), mention_everyone: false, mentions: [], mention_roles: [],
      attachments: files.map((f) => attachmentObj(channelId, f)), embeds: payload.embeds ?? [], components: payload.components ?? [], pinned: false, flags: Number(payload.flags ?? 0) & ~4096,
      ...(payload.nonce !== undefined ? { nonce: payload.nonce } : {}),
      ...(ref?.message_id ? { message_reference: { type: 0, message_id: ref.message_id, channel_id: channelId, ...(channels.get(channelId)?.guildId ? { guild_id: channels.get(channelId)?.guildId } : {}) }, referenced_message: allMessages.get(String(ref.message_id)) ?? null } : {}),
    };
    allMessages.set(String(raw.id), raw);
    fake.messages.push({ id: String(raw.id), channelId, content: String(raw.content), files, components: raw.components as unknown[], embeds: raw.embeds as unknown[], replyToMessageId: ref?.message_id === undefined ? undefined : String(ref.message_id), edits: [], deleted: false, at: Date.now(), raw });
    if (echo && current) dispatch('MESSAGE_CREATE', withGuild(raw));
    return raw;
  }
  function editMessage(id: string, payload: Json, files: SentFile[]): Json {
    const raw = allMessages.get(id);
    const sent = fake.messages.find((m) => m.id === id);
    if (!raw || !sent || sent.deleted) throw unknown('Message', 10008);
    validate(payload, files, false);
    if (typeof payload.content === 'string') { sent.edits.push(sent.content); sent.content = payload.content; raw.content = payload.content; }
    if (Array.isArray(payload.components)) raw.components = sent.components = payload.components as unknown[];
    if (Array.isArray(payload.embeds)) raw.embeds = sent.embeds = payload.embeds as unknown[];
    if (files.length) { sent.files.push(...files); raw.attachments = [...(raw.attachments as Json[]), ...files.map((f) => attachmentObj(sent.channelId, f))]; }
    raw.edited_timestamp = new Date().toISOString();
    if (echo && current) dispatch('MESSAGE_UPDATE', withGuild(raw));
    return raw;
  }
  const channel = (id: string): Channel => { const c = channels.get(id); if (!c) throw unknown('Channel', 10003); return c; };

  async function route(method: string, path: string, req: IncomingMessage, raw: Buffer): Promise<[number, unknown]> {
    const seg = path.split('/').filter(Boolean).map(decodeURIComponent);
    const is = (m: string, ...pattern: string[]): boolean => m === method && pattern.length === seg.length && pattern.every((p, i) => p === '*' || p === seg[i]);
    const publicRoute = seg[0] === 'interactions' || seg[0] === 'webhooks';
    if (!publicRoute && req.headers.authorization !== `Bot ${token}`) return [401, { message: '401: Unauthorized', code: 0 }];
    if (is('GET', 'gateway', 'bot')) return [200, { url: fake.gatewayUrl, shards: 1, session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 } }];
    if (is('GET', 'gateway')) return [200, { url: fake.gatewayUrl }];
    if (is('GET', 'users', '@me')) return [200, botUser];
    if (is('GET', 'users', '*')) return [200, seg[1] === botId ? botUser : userObj(seg[1] ?? '')];
    if (is('GET', 'applications', '@me') || is('GET', 'oauth2', 'applications', '@me')) return [200, { id: botId, name: botUser.username, icon: null, description: '', bot_public: false, bot_require_code_grant: false, flags: 0, bot: botUser, owner: { id: '1', username: 'owner', discriminator: '0', avatar: null }, team: null, verify_key: '0' }];
    if (is('POST', 'users', '@me', 'channels')) {
      const { payload } = parseBody(req, raw);
      return [200, channelObj(channel(dmChannelId(String(payload.recipient_id))))];
    }
    if (is('GET', 'channels', '*')) return [200, channelObj(channel(seg[1] ?? ''))];
    if (is('POST', 'channels', '*', 'typing')) { channel(seg[1] ?? ''); fake.typing.push({ channelId: seg[1] ?? '', at: Date.now() }); return [204, undefined]; }
    if (is('POST', 'channels', '*', 'messages')) {
      const c = channel(seg[1] ?? '');
      const { payload, files } = parseBody(req, raw);
      validate(payload, files, true);
      return [200, createBotMessage(c.id, payload, files)];
    }
    if (is('GET', 'channels', '*', 'messages', '*')) {
      const m = allMessages.get(seg[3] ?? '');
      if (!m || m.channel_id !== seg[1]) throw unknown('Message', 10008);
      return [200, m];
    }
    if (is('PATCH', 'channels', '*', 'messages', '*')) { const { payload, files } = parseBody(req, raw); return [200, editMessage(seg[3] ?? '', payload, files)]; }
    if (is('DELETE', 'channels', '*', 'messages', '*')) {
      const sent = fake.messages.find((m) => m.id === seg[3] && m.channelId === seg[1] && !m.deleted);
      if (!sent) throw unknown('Message', 10008);
      sent.deleted = true;
      if (echo && current) dispatch('MESSAGE_DELETE', withGuild({ id: sent.id, channel_id: sent.channelId }));
      return [204, undefined];
    }
    if (is('POST', 'interactions', '*', '*', 'callback')) {
      const it = interactions.get(seg[1] ?? '');
      if (!it || it.token !== seg[2]) return [404, { message: 'Unknown interaction', code: 10062 }];
      const { payload, files } = parseBody(req, raw);
      const data = (payload.data ?? undefined) as Json | undefined;
      fake.interactionResponses.push({ kind: 'callback', interactionId: it.id, token: it.token, type: Number(payload.type), data, at: Date.now() });
      if (payload.type === 7 && data) editMessage(it.messageId, data, files);
      if (payload.type === 4 && data) { validate(data, files, true); it.messageId = String(createBotMessage(it.channelId, data, files).id); }
      return [204, undefined];
    }
    if (seg[0] === 'webhooks' && seg[1] === botId) {
      const it = [...interactions.values()].find((i) => i.token === seg[2]);
      if (!it) return [404, { message: 'Unknown Webhook', code: 10015 }];
      const { payload, files } = parseBody(req, raw);
      if (is('PATCH', 'webhooks', '*', '*', 'messages', '@original')) {
        fake.interactionResponses.push({ kind: 'editOriginal', interactionId: it.id, token: it.token, data: payload, at: Date.now() });
        return [200, editMessage(it.messageId, payload, files)];
      }
      if (is('POST', 'webhooks', '*', '*')) {
        validate(payload, files, true);
        fake.interactionResponses.push({ kind: 'followup', interactionId: it.id, token: it.token, data: payload, at: Date.now() });
        return [200, createBotMessage(it.channelId, payload, files)];
      }
    }
    return [404, { message: '404: Not Found', code: 0 }];
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (down) { fake.badGateways++; answerBadGateway(res); return; }
    const url = new URL(req.url ?? '/', base);
    const method = req.method ?? 'GET';
    const reply = (status: number, body?: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, body === undefined ? headers : { 'content-type': 'application/json', ...headers });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    const raw = await readBody(req);
    if (method === 'GET' && url.pathname.startsWith('/attachments/')) {
      const a = attachments.get(url.pathname);
      if (!a) { reply(404, { message: 'Not Found' }); return; }
      res.writeHead(200, { 'content-type': a.contentType, 'content-length': String(a.bytes.length) }).end(a.bytes);
      return;
    }
    const api = /^\/api(?:\/v\d+)?(\/.*)$/.exec(url.pathname);
    const path = api?.[1] ?? url.pathname;
    const record = (status: number): void => {
      let body: unknown;
      try { body = raw.length && !String(req.headers['content-type']).startsWith('multipart') ? JSON.parse(raw.toString('utf8')) : (raw.length ? '<multipart>' : undefined); } catch { body = raw.toString('utf8'); }
      fake.requests.push({ method, path, query: url.search, status, body, at: Date.now() });
    };
    const fi = failures.findIndex((f) => (!f.method || f.method === method) && f.re.test(path));
    if (api && fi !== -1) {
      const [f] = failures.splice(fi, 1);
      if (!f) return;
      const headers: Record<string, string> = {};
      let body = f.body;
      if (f.status === 429) {
        const ra = f.retryAfter ?? 1;
        body ??= { message: 'You are being rate limited.', retry_after: ra, global: false };
        Object.assign(headers, { 'retry-after': String(ra), 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Date.now() / 1000 + ra), 'x-ratelimit-reset-after': String(ra), 'x-ratelimit-bucket': 'fakebucket', 'x-ratelimit-scope': 'user' });
      }
      record(f.status);
      reply(f.status, body ?? { message: `fake failure ${f.status}`, code: 0 }, headers);
      return;
    }
    let status: number; let body: unknown;
    if (!api) [status, body] = [404, { message: '404: Not Found', code: 0 }];
    else {
      try { [status, body] = await route(method, path, req, raw); } catch (err) {
        if (err instanceof HttpError) [status, body] = [err.status, err.body];
        else if (err instanceof SyntaxError) [status, body] = [400, { message: 'The request body contains invalid JSON.', code: 50109 }];
        else [status, body] = [500, { message: String(err), code: 0 }];
      }
    }
    record(status);
    reply(status, body);
  }

  // ---- test control
  function sendUserMessage(o: UserMessageOptions): { messageId: string; channelId: string } {
    const author = userObj(o.userId, o.username);
    let ch: Channel;
    if (o.dm) ch = channel(o.channelId ?? dmChannelId(o.userId));
    else {
      const gid = o.guildId ?? (o.channelId ? channels.get(o.channelId)?.guildId : undefined) ?? guilds[0]?.id;
      const cid = o.channelId ?? [...channels.values()].find((c) => c.guildId === gid)?.id;
      if (!gid || !cid) throw new Error('fake discord: no guild channel to send into');
      ch = channels.get(cid) ?? { id: cid, type: 0, guildId: gid, name: `channel-${cid}`, position: channels.size };
      channels.set(cid, ch);
    }
    const id = snowflake();
    const content = o.mentionsBot ? `<@${botId}> ${o.content}` : o.content;
    const ref = o.replyToMessageId ? allMessages.get(o.replyToMessageId) : undefined;
    const files = (o.attachments ?? []).map((a) => ({ name: a.filename, bytes: Buffer.from(a.content), contentType: a.contentType }));
    const guildId = ch.guildId;
    // A reply to the bot pings it by default (Discord clients' "mention on reply").
    const mentions = o.mentionsBot || ref?.author === botUser ? [{ ...botUser, ...(guildId ? { member: member() } : {}) }] : [];
    const d: Json = {
      id, type: o.replyToMessageId ? 19 : 0, channel_id: ch.id, author, content, timestamp: new Date().toISOString(), edited_timestamp: null, tts: false,
      mention_everyone: false, mentions, mention_roles: [], attachments: files.map((f) => attachmentObj(ch.id, f)), embeds: [], components: [], pinned: false, flags: o.voiceMessage ? 1 << 13 : 0, nonce: id,
      ...(guildId ? { guild_id: guildId, member: member() } : { channel_type: 1 }),
      ...(o.replyToMessageId ? { message_reference: { type: 0, message_id: o.replyToMessageId, channel_id: ch.id, ...(guildId ? { guild_id: guildId } : {}) }, referenced_message: ref ?? null } : {}),
    };
    allMessages.set(id, d);
    userMessages.set(id, d);
    dispatch('MESSAGE_CREATE', d);
    return { messageId: id, channelId: ch.id };
  }
  function redispatch(messageId: string): void {
    const d = userMessages.get(messageId);
    if (!d) throw new Error(`fake discord: no user message ${messageId}`);
    dispatch('MESSAGE_CREATE', d);
  }
  function clickButton(o: ClickButtonOptions): { interactionId: string; token: string } {
    const ch = channel(o.channelId);
    const msg = allMessages.get(o.messageId);
    if (!msg) throw new Error(`fake discord: no message ${o.messageId}`);
    const guildId = o.guildId ?? ch.guildId;
    const user = userObj(o.userId, o.username);
    const id = snowflake();
    const tok = `itok-${id}`;
    interactions.set(id, { id, token: tok, channelId: ch.id, messageId: o.messageId });
    dispatch('INTERACTION_CREATE', {
      id, application_id: botId, type: 3, token: tok, version: 1, channel_id: ch.id, channel: channelObj(ch),
      data: { custom_id: o.customId, component_type: 2 }, message: msg, app_permissions: '2248473465835073', locale: 'en-US',
      entitlements: [], attachment_size_limit: 10485760,
      ...(guildId
        ? { guild_id: guildId, guild_locale: 'en-US', guild: { id: guildId, locale: 'en-US', features: [] }, context: 0, authorizing_integration_owners: { 0: guildId }, member: { ...member(), user, permissions: '2248473465835073' } }
        : { user, context: 1, authorizing_integration_owners: { 1: o.userId } }),
    });
    return { interactionId: id, token: tok };
  }
  async function waitFor<T>(predicate: () => T | undefined | null | false, timeoutMs = 5000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = predicate();
      if (v !== undefined && v !== null && v !== false) return v;
      if (Date.now() > deadline) {
        throw new Error(`fake discord: waitFor timed out after ${timeoutMs} ms (${fake.messages.length} bot messages, ${fake.typing.length} typing, ${fake.interactionResponses.length} interaction responses; last requests: ${fake.requests.slice(-5).map((r) => `${r.method} ${r.path} → ${r.status}`).join(', ') || 'none'})`);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  async function close(): Promise<void> {
    for (const ws of wss.clients) ws.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
    http.closeAllConnections();
    await new Promise<void>((r) => http.close(() => r()));
  }

  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  Object.assign(fake, { url: base, restApi: `${base}/api`, gatewayUrl: `ws://127.0.0.1:${port}` });
  return fake;
}
