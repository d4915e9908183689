// Contract: a wire-faithful fake of Slack that the real @slack/web-api WebClient and @slack/socket-mode
// SocketModeClient talk to in tests. Web API: POST /api/<method> with form or JSON bodies, bearer tokens,
// `{ ok: true, … }` or `{ ok: false, error }` at HTTP 200 (api.slack.com's shapes); the files upload of
// files.getUploadURLExternal → POST upload_url → files.completeUploadExternal; private file downloads that need
// the bot token. Socket Mode: apps.connections.open gives a ws:// address; the socket says `hello`, sends
// envelopes `{ envelope_id, type, payload, accepts_response_payload, retry_attempt }`, records the acks
// (`{ envelope_id }`) and can ask the client to reconnect (`{ type: 'disconnect' }`).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { answerBadGateway, BAD_GATEWAY_UPGRADE } from './bad-gateway.js';

type Json = Record<string, unknown>;

export interface SlackFileSpec { name: string; content: Buffer | string; mimetype: string; subtype?: string }
export interface PostedFile { id: string; name: string; bytes: Buffer; channel: string; threadTs?: string | undefined }
export interface PostedMessage {
  ts: string; channel: string; text: string; threadTs?: string | undefined; blocks?: unknown[] | undefined;
  mrkdwn: boolean; unfurlLinks?: unknown; edits: Array<{ text: string; blocks?: unknown[] | undefined }>;
}
export interface EphemeralMessage { channel: string; user: string; text: string; threadTs?: string | undefined }
export interface UserMessage {
  user: string; text?: string; channel?: string; threadTs?: string; files?: SlackFileSpec[];
  /** `im` (default for D… channels), `channel`, …; app_mention events carry none. */
  channelType?: string; eventType?: 'message' | 'app_mention'; subtype?: string; botId?: string;
}

export interface FakeSlack {
  apiUrl: string; appToken: string; botToken: string; botUserId: string;
  messages: PostedMessage[]; ephemerals: EphemeralMessage[]; files: PostedFile[]; acks: string[];
  calls: Array<{ method: string; body: Json }>;
  socket: { connections: number };
  messagesIn(channel: string, threadTs?: string): PostedMessage[];
  /** A message event (and its envelope); returns the message's ts and the envelope sent. */
  sendUserMessage(message: UserMessage): { ts: string; envelope: Json };
  /** The same envelope payload again, as Slack retries an event: a new envelope id and `retry_attempt`. */
  redeliver(envelope: Json): void;
  pressButton(options: { user: string; message: PostedMessage; actionId: string; username?: string }): void;
  slashCommand(options: { user: string; channel: string; command: string; text: string }): void;
  /**
   * While `on`, every request and socket connection is answered 502 Bad Gateway (nginx's page), as a proxy answers
   * for a server that is down; each is counted in `badGateways`.
   */
  outage(on: boolean): void;
  badGateways: number;
  /** Slack's "refresh": `{ type: 'disconnect' }`; the client asks apps.connections.open for a new socket. */
  askToReconnect(): void;
  waitFor<T>(predicate: () => T | undefined | null | false, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

const TEAM = 'T0FAKE';
const JSON_FIELDS = new Set(['blocks', 'files', 'attachments']);

export async function startSlackServer(options: { botUserId?: string } = {}): Promise<FakeSlack> {
  const botUserId = options.botUserId ?? 'UBOT00001';
  const appToken = `xapp-1-${randomBytes(8).toString('hex')}`;
  const botToken = `xoxb-${randomBytes(8).toString('hex')}`;
  let clock = 1_700_000_000;
  let counter = 0;
  const nextTs = (): string => `${clock++}.${String(++counter).padStart(6, '0')}`;
  const stored = new Map<string, { bytes: Buffer; mimetype: string }>();
  const uploads = new Map<string, { name: string; bytes?: Buffer }>();
  const sockets = new Set<WebSocket>();
  let down = false;

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request, socket, head) => {
    if (down) {
      fake.badGateways += 1;
      socket.end(BAD_GATEWAY_UPGRADE);
      return;
    }
    if (!request.url?.startsWith('/link/')) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      fake.socket.connections += 1;
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      ws.on('message', (data) => {
        const message = JSON.parse(String(data)) as { envelope_id?: string };
        if (message.envelope_id) fake.acks.push(message.envelope_id);
      });
      ws.send(JSON.stringify({ type: 'hello', num_connections: sockets.size, debug_info: { host: 'fake', approximate_connection_time: 18060 }, connection_info: { app_id: 'A0FAKE' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const envelope = (type: string, payload: Json, retryAttempt = 0): Json => ({
    envelope_id: randomBytes(8).toString('hex'), type, payload, accepts_response_payload: type !== 'events_api', retry_attempt: retryAttempt, retry_reason: retryAttempt > 0 ? 'timeout' : '',
  });
  const deliver = (message: Json): void => {
    for (const ws of sockets) ws.send(JSON.stringify(message));
  };

  async function body(request: IncomingMessage): Promise<{ raw: Buffer; json: Json }> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const type = request.headers['content-type'] ?? '';
    if (type.startsWith('application/json')) return { raw, json: JSON.parse(raw.toString() || '{}') as Json };
    if (type.startsWith('application/x-www-form-urlencoded')) {
      const json: Json = {};
      // The WebClient sends objects (blocks, files) as JSON text inside the form.
      for (const [key, value] of new URLSearchParams(raw.toString())) json[key] = JSON_FIELDS.has(key) ? JSON.parse(value) : value;
      return { raw, json };
    }
    return { raw, json: {} };
  }

  const reply = (response: ServerResponse, data: Json): void => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(data));
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (down) {
      fake.badGateways += 1;
      answerBadGateway(response);
      return;
    }
    const url = new URL(request.url ?? '/', base);
    const auth = request.headers.authorization ?? '';
    if (url.pathname.startsWith('/files-pri/')) {
      const file = stored.get(url.pathname);
      if (auth !== `Bearer ${botToken}` || !file) {
        // Slack answers a download without the token with its sign-in page.
        response.writeHead(auth === `Bearer ${botToken}` ? 404 : 302, { location: `${base}/signin` }).end();
        return;
      }
      response.writeHead(200, { 'content-type': file.mimetype }).end(file.bytes);
      return;
    }
    if (url.pathname.startsWith('/upload/')) {
      const upload = uploads.get(url.pathname.slice('/upload/'.length));
      if (!upload || request.method !== 'POST') return void response.writeHead(404).end();
      const { raw } = await body(request);
      const form = await new Request(base, { method: 'POST', headers: { 'content-type': request.headers['content-type'] ?? '' }, body: raw }).formData();
      const part = [...form.values()].find((value) => typeof value !== 'string');
      upload.bytes = part !== undefined && typeof part !== 'string' ? Buffer.from(await part.arrayBuffer()) : raw;
      response.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${upload.bytes.length}`);
      return;
    }
    const method = /^\/api\/([a-zA-Z.]+)$/.exec(url.pathname)?.[1];
    if (!method || request.method !== 'POST') return void response.writeHead(404).end();
    const { json } = await body(request);
    fake.calls.push({ method, body: json });
    const token = auth.replace(/^Bearer /, '');
    if (method === 'apps.connections.open') {
      if (token !== appToken) return reply(response, { ok: false, error: token.startsWith('xapp-') || token === '' ? 'invalid_auth' : 'not_allowed_token_type' });
      return reply(response, { ok: true, url: `${base.replace('http', 'ws')}/link/?ticket=${randomBytes(6).toString('hex')}&app_id=A0FAKE` });
    }
    if (token !== botToken) return reply(response, { ok: false, error: token === '' ? 'not_authed' : 'invalid_auth' });
    reply(response, api(method, json));
  }

  function api(method: string, args: Json): Json {
    const text = typeof args['text'] === 'string' ? args['text'] : '';
    const blocks = Array.isArray(args['blocks']) ? args['blocks'] : undefined;
    switch (method) {
      case 'auth.test':
        return { ok: true, url: 'https://fake.slack.com/', team: 'Fake Team', user: 'familiar', team_id: TEAM, user_id: botUserId, bot_id: 'B0FAKE' };
      case 'chat.postMessage': {
        const channel = String(args['channel'] ?? '');
        if (channel === '') return { ok: false, error: 'channel_not_found' };
        if (text === '' && !blocks) return { ok: false, error: 'no_text' };
        if (text.length > 40_000) return { ok: false, error: 'msg_too_long' };
        const message: PostedMessage = {
          ts: nextTs(), channel, text, threadTs: args['thread_ts'] as string | undefined, blocks, mrkdwn: args['mrkdwn'] !== 'false' && args['mrkdwn'] !== false,
          unfurlLinks: args['unfurl_links'], edits: [],
        };
        fake.messages.push(message);
        return { ok: true, channel, ts: message.ts, message: { type: 'message', text, user: botUserId, ts: message.ts, bot_id: 'B0FAKE' } };
      }
      case 'chat.update': {
        const message = fake.messages.find((candidate) => candidate.ts === args['ts'] && candidate.channel === args['channel']);
        if (!message) return { ok: false, error: 'message_not_found' };
        message.edits.push({ text, blocks });
        message.text = text;
        message.blocks = blocks;
        return { ok: true, channel: message.channel, ts: message.ts, text };
      }
      case 'conversations.open': {
        const user = String(args['users'] ?? '');
        return user === '' ? { ok: false, error: 'users_not_found' } : { ok: true, channel: { id: `D${user.slice(1)}` } };
      }
      case 'chat.postEphemeral':
        fake.ephemerals.push({ channel: String(args['channel']), user: String(args['user']), text, threadTs: args['thread_ts'] as string | undefined });
        return { ok: true, message_ts: nextTs() };
      case 'files.getUploadURLExternal': {
        const id = `F${randomBytes(5).toString('hex').toUpperCase()}`;
        uploads.set(id, { name: String(args['filename']) });
        return { ok: true, upload_url: `${base}/upload/${id}`, file_id: id };
      }
      case 'files.completeUploadExternal': {
        const list = (Array.isArray(args['files']) ? args['files'] : []) as Array<{ id: string; title?: string }>;
        for (const entry of list) {
          const upload = uploads.get(entry.id);
          if (!upload?.bytes) return { ok: false, error: 'file_not_found' };
          fake.files.push({ id: entry.id, name: upload.name, bytes: upload.bytes, channel: String(args['channel_id']), threadTs: args['thread_ts'] as string | undefined });
        }
        return { ok: true, files: list.map((entry) => ({ id: entry.id, title: entry.title ?? '' })) };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  const fake: FakeSlack = {
    apiUrl: `${base}/api/`, appToken, botToken, botUserId, messages: [], ephemerals: [], files: [], acks: [], calls: [], socket: { connections: 0 },
    badGateways: 0,
    outage(on) {
      down = on;
    },
    messagesIn: (channel, threadTs) => fake.messages.filter((message) => message.channel === channel && message.threadTs === threadTs),
    sendUserMessage(message) {
      const ts = nextTs();
      const channel = message.channel ?? `D${message.user.slice(1)}`;
      const files = (message.files ?? []).map((file) => {
        const id = `F${randomBytes(5).toString('hex').toUpperCase()}`;
        const path = `/files-pri/${TEAM}-${id}/download/${encodeURIComponent(file.name)}`;
        const bytes = Buffer.from(file.content);
        stored.set(path, { bytes, mimetype: file.mimetype });
        return { id, name: file.name, title: file.name, mimetype: file.mimetype, size: bytes.length, url_private: `${base}${path}`, url_private_download: `${base}${path}`, ...(file.subtype ? { subtype: file.subtype } : {}) };
      });
      const eventType = message.eventType ?? 'message';
      const event: Json = {
        type: eventType, user: message.user, text: message.text ?? '', ts, channel, event_ts: ts, team: TEAM,
        ...(eventType === 'message' ? { channel_type: message.channelType ?? (channel.startsWith('D') ? 'im' : 'channel') } : {}),
        ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
        ...(files.length > 0 ? { files, subtype: 'file_share' } : {}),
        ...(message.subtype ? { subtype: message.subtype } : {}),
        ...(message.botId ? { bot_id: message.botId } : {}),
      };
      const sent = envelope('events_api', { token: 'verification', team_id: TEAM, api_app_id: 'A0FAKE', event, type: 'event_callback', event_id: `Ev${counter}`, event_time: clock });
      deliver(sent);
      return { ts, envelope: sent };
    },
    redeliver(sent) {
      deliver({ ...envelope(String(sent['type']), sent['payload'] as Json, Number(sent['retry_attempt'] ?? 0) + 1) });
    },
    pressButton({ user, message, actionId, username }) {
      deliver(envelope('interactive', {
        type: 'block_actions', user: { id: user, username: username ?? `name-${user}`, name: username ?? `name-${user}`, team_id: TEAM }, api_app_id: 'A0FAKE', token: 'verification',
        container: { type: 'message', message_ts: message.ts, channel_id: message.channel, is_ephemeral: false, ...(message.threadTs ? { thread_ts: message.threadTs } : {}) },
        trigger_id: `${counter}.trigger`, team: { id: TEAM, domain: 'fake' }, channel: { id: message.channel, name: 'chat' },
        message: { type: 'message', user: botUserId, ts: message.ts, text: message.text, blocks: message.blocks, ...(message.threadTs ? { thread_ts: message.threadTs } : {}) },
        response_url: `${base}/actions/${counter}`, actions: [{ action_id: actionId, block_id: 'b', type: 'button', value: actionId, action_ts: `${clock}.000` }],
      }));
    },
    slashCommand({ user, channel, command, text }) {
      deliver(envelope('slash_commands', {
        token: 'verification', team_id: TEAM, channel_id: channel, channel_name: channel.startsWith('D') ? 'directmessage' : 'general', user_id: user, user_name: `name-${user}`,
        command, text, api_app_id: 'A0FAKE', response_url: `${base}/commands/${counter}`, trigger_id: `${++counter}.trigger`,
      }));
    },
    askToReconnect() {
      deliver({ type: 'disconnect', reason: 'refresh_requested', debug_info: { host: 'fake' } });
    },
    async waitFor(predicate, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = predicate();
        if (value !== undefined && value !== null && value !== false) return value;
        if (Date.now() > deadline) throw new Error('waitFor: timed out');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
