// Contract: a fake of signal-cli's HTTP daemon (`signal-cli -a +NUMBER daemon --http`), single-account mode, with the
// shapes of signal-cli 0.14 (man/signal-cli-jsonrpc.5.adoc, HttpServerHandler, SignalJsonRpcCommandHandler and the
// Json*.java records): POST /api/v1/rpc (JSON-RPC 2.0: version, listContacts, send, sendTyping, getAttachment; its
// error codes and messages), GET /api/v1/events (Server-Sent Events `receive` with {account, envelope}), GET
// /api/v1/check. It keeps what was sent, so a test checks it, and lets a test play people writing to the account.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerBadGateway } from './bad-gateway.js';

type Json = Record<string, unknown>;

export interface Person { number?: string; uuid: string; name?: string }
export interface SentAttachment { contentType: string; filename: string | undefined; bytes: Buffer }
export interface SentSignal {
  timestamp: number;
  recipient?: string[] | undefined;
  groupId?: string | undefined;
  message: string;
  textStyle: string[];
  quote?: { timestamp: number; author: string } | undefined;
  attachments: SentAttachment[];
  voiceNote: boolean;
  editTimestamp?: number | undefined;
  params: Json;
}
export interface RpcCall { method: string; params: Json; error?: string | undefined }
export interface UserMessage {
  from: Person;
  text?: string;
  groupId?: string;
  /** Mentions the bot: a U+FFFC at the start of the text and a mention naming the bot's UUID. */
  mentionsBot?: boolean;
  /** Quotes a message (the bot's when `author` is left out). */
  quote?: { timestamp: number; author?: Person; text?: string };
  attachments?: Array<{ contentType: string; filename?: string; content: Buffer | string }>;
}

export interface FakeSignalCli {
  url: string;
  account: string;
  uuid: string;
  calls: RpcCall[];
  sent: SentSignal[];
  /** What went to a person (by number or UUID) or a group (by id), edits included. */
  sentTo(chat: { recipient: string } | { groupId: string }): SentSignal[];
  typing: Array<{ recipient?: string[] | undefined; groupId?: string | undefined }>;
  /** The events streams opened so far (a reconnection opens another). */
  connections: number;
  /** A person writes: emitted as a `receive` event; returns the envelope (to redeliver it). */
  sendUserMessage(message: UserMessage): Json;
  react(from: Person, emoji: string, targetTimestamp: number, groupId?: string): Json;
  /** Emits an envelope again, as signal-cli does after a restart before the server got its acknowledgement. */
  emit(envelope: Json): void;
  /** Ends every events stream (signal-cli restarting); the client must reconnect. */
  dropStreams(): void;
  /**
   * While `on`, every request is answered 502 Bad Gateway (nginx's page), as a proxy in front of a signal-cli that is
   * down or restarting answers; each is counted in `badGateways` (not in `calls`).
   */
  outage(on: boolean): void;
  readonly badGateways: number;
  /** The next call of `method` fails with a JSON-RPC error. */
  failNext(method: string, code: number, message: string): void;
  waitFor<T>(predicate: () => T | undefined | null | false, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

const STYLE = /^(\d+):(\d+):(BOLD|ITALIC|SPOILER|STRIKETHROUGH|MONOSPACE)$/;
const DATA_URI = /^data:(?<type>.+?\/.+?)?(?<parameters>;.+?=.+?)?(?<base64>;base64)?,(?<data>.+)$/is;

export async function startSignalCliServer(options: { account?: string; uuid?: string } = {}): Promise<FakeSignalCli> {
  const account = options.account ?? '+4915100000001';
  const uuid = options.uuid ?? '0a1b2c3d-0000-4000-8000-00000000b0f1';
  const calls: RpcCall[] = [];
  const sent: SentSignal[] = [];
  const typing: FakeSignalCli['typing'] = [];
  const streams = new Set<ServerResponse>();
  const stored = new Map<string, Buffer>();
  const failures = new Map<string, { code: number; message: string }>();
  let connections = 0;
  let down = false;
  let badGateways = 0;
  let clock = Date.now();
  const now = (): number => (clock = Math.max(clock + 1, Date.now()));

  class RpcError extends Error {
    constructor(readonly code: number, message: string) {
      super(message);
    }
  }

  const methods: Record<string, (params: Json) => unknown> = {
    version: () => ({ version: '0.14.6' }),
    listContacts: (params) => {
      const wanted = list(params['recipient']);
      const self = { number: account, uuid, username: null, name: '', isBlocked: false, profile: { givenName: 'Familiar' } };
      return wanted.length === 0 || wanted.includes(account) ? [self] : [];
    },
    send: (params) => {
      const recipient = params['recipient'] === undefined ? undefined : list(params['recipient']);
      const groupId = typeof params['groupId'] === 'string' ? params['groupId'] : undefined;
      if (!recipient?.length && groupId === undefined) throw new RpcError(-1, 'No recipients given');
      const message = typeof params['message'] === 'string' ? params['message'] : '';
      const attachments = list(params['attachments'] ?? params['attachment']).map(readAttachment);
      if (message === '' && attachments.length === 0 && params['quoteTimestamp'] === undefined) {
        throw new RpcError(-1, 'Sending empty message is not allowed, either a message, attachment or sticker must be given.');
      }
      const textStyle = list(params['textStyle']);
      for (const style of textStyle) if (!STYLE.test(style)) throw new RpcError(-1, `Invalid textStyle syntax (${style}) expected 'start:length:STYLE'`);
      let quote: SentSignal['quote'];
      if (params['quoteTimestamp'] !== undefined) {
        if (typeof params['quoteAuthor'] !== 'string') throw new RpcError(-1, 'Quote author parameter is missing');
        quote = { timestamp: Number(params['quoteTimestamp']), author: params['quoteAuthor'] };
      }
      const timestamp = now();
      sent.push({
        timestamp, recipient, groupId, message, textStyle, quote, attachments, voiceNote: params['voiceNote'] === true,
        editTimestamp: typeof params['editTimestamp'] === 'number' ? params['editTimestamp'] : undefined, params,
      });
      return { timestamp, results: (recipient ?? ['group']).map((id) => ({ recipientAddress: { uuid: randomUUID(), number: id }, type: 'SUCCESS' })) };
    },
    sendTyping: (params) => {
      typing.push({ recipient: params['recipient'] === undefined ? undefined : list(params['recipient']), groupId: typeof params['groupId'] === 'string' ? params['groupId'] : undefined });
      return { timestamp: now(), results: [] };
    },
    getAttachment: (params) => {
      const id = String(params['id'] ?? '');
      if (params['recipient'] === undefined && params['groupId'] === undefined) throw new RpcError(-32602, 'one of the arguments --recipient -g/--group-id is required');
      const bytes = stored.get(id);
      if (!bytes) throw new RpcError(-1, `Could not find attachment with ID: ${id}`);
      return { data: bytes.toString('base64') };
    },
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (down) {
      badGateways += 1;
      answerBadGateway(response);
      return;
    }
    const path = (request.url ?? '/').split('?')[0];
    if (path === '/api/v1/check') {
      response.writeHead(request.method === 'GET' ? 200 : 405).end();
      return;
    }
    if (path === '/api/v1/events') {
      if (request.method !== 'GET') return void response.writeHead(405).end();
      connections += 1;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
      streams.add(response);
      response.on('close', () => streams.delete(response));
      return;
    }
    if (path !== '/api/v1/rpc') return void response.writeHead(404).end();
    if (request.method !== 'POST') return void response.writeHead(405).end();
    if (!(request.headers['content-type'] ?? '').startsWith('application/json')) return void response.writeHead(415).end();
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let body: Json;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
    } catch {
      return reply(response, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error', data: null }, id: null });
    }
    const id = body['id'] ?? null;
    const method = typeof body['method'] === 'string' ? body['method'] : undefined;
    if (!method) return reply(response, { jsonrpc: '2.0', error: { code: -32600, message: 'method field must be set', data: null }, id: null });
    const params = (typeof body['params'] === 'object' && body['params'] !== null ? body['params'] : {}) as Json;
    const call: RpcCall = { method, params };
    calls.push(call);
    try {
      const failure = failures.get(method);
      if (failure) {
        failures.delete(method);
        throw new RpcError(failure.code, failure.message);
      }
      const run = Object.hasOwn(methods, method) ? methods[method] : undefined;
      if (!run) throw new RpcError(-32601, 'Method not implemented');
      reply(response, { jsonrpc: '2.0', result: run(params), id });
    } catch (error) {
      const { code, message } = error instanceof RpcError ? error : { code: -32603, message: String(error) };
      call.error = message;
      reply(response, { jsonrpc: '2.0', error: { code, message, data: null }, id });
    }
  }

  function emit(envelope: Json): void {
    const data = JSON.stringify({ account, envelope });
    for (const stream of streams) stream.write(`event:receive\ndata:${data}\n\n`);
  }

  function envelopeOf(from: Person, dataMessage: Json): Json {
    const timestamp = typeof dataMessage['timestamp'] === 'number' ? dataMessage['timestamp'] : now();
    return {
      source: from.number ?? from.uuid, sourceNumber: from.number ?? null, sourceUuid: from.uuid, sourceName: from.name ?? '', sourceDevice: 1,
      timestamp, serverReceivedTimestamp: timestamp + 5, serverDeliveredTimestamp: timestamp + 9,
      dataMessage: { timestamp, message: null, expiresInSeconds: 0, viewOnce: false, ...dataMessage },
    };
  }

  const fake: FakeSignalCli = {
    url: '', account, uuid, calls, sent, typing,
    get connections() {
      return connections;
    },
    get badGateways() {
      return badGateways;
    },
    outage(on) {
      down = on;
    },
    sentTo(chat) {
      return sent.filter((message) => ('groupId' in chat ? message.groupId === chat.groupId : message.recipient?.includes(chat.recipient)));
    },
    sendUserMessage(message) {
      const timestamp = now();
      const text = message.mentionsBot ? `\uFFFC ${message.text ?? ''}` : message.text;
      const attachments = (message.attachments ?? []).map((attachment) => {
        const id = `${randomUUID().replace(/-/g, '').slice(0, 20)}.${attachment.contentType.split('/')[1] ?? 'bin'}`;
        const bytes = Buffer.isBuffer(attachment.content) ? attachment.content : Buffer.from(attachment.content);
        stored.set(id, bytes);
        return { contentType: attachment.contentType, filename: attachment.filename ?? null, id, size: bytes.length, width: null, height: null, caption: null, uploadTimestamp: timestamp };
      });
      const quote = message.quote;
      const author = quote?.author ?? { number: account, uuid };
      const envelope = envelopeOf(message.from, {
        timestamp,
        message: text ?? null,
        ...(message.mentionsBot ? { mentions: [{ name: account, number: account, uuid, start: 0, length: 1 }] } : {}),
        ...(attachments.length > 0 ? { attachments } : {}),
        ...(quote ? { quote: { id: quote.timestamp, author: author.number ?? author.uuid, authorNumber: author.number ?? null, authorUuid: author.uuid, text: quote.text ?? '', attachments: [] } } : {}),
        ...(message.groupId ? { groupInfo: { groupId: message.groupId, groupName: 'Family', revision: 3, type: 'DELIVER' } } : {}),
      });
      emit(envelope);
      return envelope;
    },
    react(from, emoji, targetTimestamp, groupId) {
      const envelope = envelopeOf(from, {
        reaction: { emoji, targetAuthor: account, targetAuthorNumber: account, targetAuthorUuid: uuid, targetSentTimestamp: targetTimestamp, isRemove: false },
        ...(groupId ? { groupInfo: { groupId, groupName: 'Family', revision: 3, type: 'DELIVER' } } : {}),
      });
      emit(envelope);
      return envelope;
    },
    emit,
    dropStreams() {
      for (const stream of streams) stream.destroy();
      streams.clear();
    },
    failNext(method, code, message) {
      failures.set(method, { code, message });
    },
    async waitFor(predicate, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = predicate();
        if (value) return value;
        if (Date.now() > deadline) throw new Error('waitFor: timed out');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      for (const stream of streams) stream.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

function list(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/** As signal-cli's DataURI.of reads an attachment given as a data: URI (file paths are refused here: nothing is shared). */
function readAttachment(value: string): SentAttachment {
  const match = DATA_URI.exec(value);
  if (!match?.groups) throw new Error('The given string is not a valid data URI.');
  const { type, parameters, base64, data } = match.groups;
  const filename = /;filename=([^;]+)/.exec(parameters ?? '')?.[1];
  return {
    contentType: type ?? 'text/plain',
    filename: filename === undefined ? undefined : decodeURIComponent(filename.replace(/\+/g, ' ')),
    bytes: base64 ? Buffer.from(data ?? '', 'base64') : Buffer.from(decodeURIComponent(data ?? ''), 'utf8'),
  };
}

function reply(response: ServerResponse, body: Json): void {
  const bytes = Buffer.from(JSON.stringify(body));
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length }).end(bytes);
}
