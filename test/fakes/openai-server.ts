// Contract: a local OpenAI-compatible Chat Completions server that plays scripted replies and records every request.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolCall {
  name: string;
  /** An object is JSON-encoded; a string is sent as is (for malformed-JSON tests). */
  arguments: Record<string, unknown> | string;
  id?: string;
}

/** How a streamed answer (`stream: true`) is sent: the content in these pieces, each after `chunkDelayMs`. */
export interface Streaming {
  chunks?: string[];
  chunkDelayMs?: number;
  /** Stops the stream (the connection is destroyed) after this many content chunks: a server failing mid-answer. */
  failAfterChunks?: number;
}

export type ScriptedReply =
  | ({ content: string; toolCalls?: ScriptedToolCall[]; delayMs?: number; usage?: { prompt_tokens: number; completion_tokens: number } } & Streaming)
  | ({ toolCalls: ScriptedToolCall[]; content?: string; delayMs?: number; usage?: { prompt_tokens: number; completion_tokens: number } } & Streaming)
  | { status: number; headers?: Record<string, string>; error?: string; delayMs?: number }
  /** Never answers until the client gives up (timeouts). */
  | { hang: true };

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: ChatRequestBody;
  at: number;
}

export interface ChatRequestBody {
  model: string;
  messages: Array<{ role: string; content?: unknown; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>; tool_call_id?: string }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  [key: string]: unknown;
}

/** A promised reply is held until it settles: a turn that waits on the model until the test lets it go. */
export type ReplyHandler = (request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply> | undefined;

/**
 * One answer of `POST /images/generations`, as the Images API sends it: each image as `b64_json` or as a `url` (served
 * by this fake at GET /files/…, without the API key, like a provider's signed link); `usage` as gpt-image-1 reports it
 * (DALL·E reports none). Default: the form the request's `response_format` asks for, else b64_json, without usage.
 */
export type ImageReply =
  | { form?: 'b64_json' | 'url'; usage?: { input_tokens: number; output_tokens: number }; image?: Buffer; url?: string }
  | { status: number; error?: string };

export interface FakeImages {
  /** The bodies of the image requests, in order. */
  requests: Array<Record<string, unknown>>;
  script(...replies: ImageReply[]): void;
}

/** A 1×1 PNG. */
export const TINY_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/**
 * `POST /embeddings`: deterministic vectors, a hashed bag of words (64 dimensions), so texts that share words are
 * near. `concepts` maps words to one shared word first ("rest" and "sleep" → "sleep"): meaning, scripted.
 */
export interface FakeEmbeddings {
  /** The inputs of each request, in order. */
  requests: string[][];
  concepts: Map<string, string>;
  /** Answer every embeddings request with this HTTP status (a failing endpoint), until set back to undefined. */
  failWith: number | undefined;
}

export const EMBEDDING_DIMENSIONS = 64;

export function bagOfWordsVector(text: string, concepts: ReadonlyMap<string, string> = new Map()): number[] {
  const vector = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const word = concepts.get(raw) ?? raw;
    let hash = 2166136261;
    for (const char of word) hash = Math.imul(hash ^ (char.codePointAt(0) ?? 0), 16777619);
    const slot = (hash >>> 0) % EMBEDDING_DIMENSIONS;
    vector[slot] = (vector[slot] ?? 0) + 1;
  }
  // Never the zero vector: an empty text still has a direction.
  vector[0] = (vector[0] ?? 0) + 0.01;
  return vector;
}

export interface FakeOpenAI {
  baseUrl: string;
  apiKey: string;
  requests: RecordedRequest[];
  /** Queue replies, played in order, one per chat completion request. */
  script(...replies: ScriptedReply[]): void;
  /** Decide replies from the request (used when the script queue is empty). */
  handle(handler: ReplyHandler): void;
  /** Models that `GET /models` lists. */
  models: string[];
  /** The images endpoint. */
  images: FakeImages;
  embeddings: FakeEmbeddings;
  lastSystemPrompt(): string;
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startOpenAiServer(options: { apiKey?: string; models?: string[] } = {}): Promise<FakeOpenAI> {
  const apiKey = options.apiKey ?? 'sk-test-fake-key-0123456789';
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  let handler: ReplyHandler = () => ({ content: 'ok' });
  let completionId = 0;
  const hanging = new Set<ServerResponse>();
  const images: FakeImages = { requests: [], script: (...replies) => imageQueue.push(...replies) };
  const embeddings: FakeEmbeddings = { requests: [], concepts: new Map(), failWith: undefined };
  const answerEmbeddings = (res: ServerResponse, body: { model?: string; input?: string | string[] }): void => {
    const input = typeof body.input === 'string' ? [body.input] : body.input ?? [];
    embeddings.requests.push(input);
    if (embeddings.failWith !== undefined) return sendError(res, embeddings.failWith, `scripted ${embeddings.failWith}`, 'scripted');
    const data = input.map((text, index) => ({ object: 'embedding', index, embedding: bagOfWordsVector(text, embeddings.concepts) }));
    sendJson(res, 200, { object: 'list', data, model: body.model ?? '', usage: { prompt_tokens: input.length, total_tokens: input.length } });
  };
  const imageQueue: ImageReply[] = [];
  const files = new Map<string, Buffer>();
  const answerImages = (res: ServerResponse, body: Record<string, unknown>): void => {
    images.requests.push(body);
    const reply = imageQueue.shift() ?? {};
    if ('status' in reply) return sendError(res, reply.status, reply.error ?? `scripted ${reply.status}`, 'scripted');
    const form = reply.form ?? (body.response_format === 'url' ? 'url' : 'b64_json');
    const data = Array.from({ length: typeof body.n === 'number' ? body.n : 1 }, () => {
      const image = reply.image ?? TINY_PNG;
      if (form === 'b64_json') return { b64_json: image.toString('base64') };
      const name = `img-${files.size + 1}.png`;
      files.set(name, image);
      return { url: reply.url ?? `${fake.baseUrl}/files/${name}` };
    });
    const usage = reply.usage ? { ...reply.usage, total_tokens: reply.usage.input_tokens + reply.usage.output_tokens, input_tokens_details: { text_tokens: reply.usage.input_tokens, image_tokens: 0 } } : undefined;
    sendJson(res, 200, { created: Math.floor(Date.now() / 1000), data, ...(usage ? { usage } : {}) });
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const url = new URL(req.url ?? '/', 'http://localhost');
      const path = url.pathname.replace(/^\/v1/, '');
      if (req.method === 'GET' && path.startsWith('/files/')) {
        const file = files.get(path.slice('/files/'.length));
        if (!file) return sendError(res, 404, 'no such file', 'not_found');
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': file.length });
        return res.end(file);
      }
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        return sendError(res, 401, 'Incorrect API key provided.', 'invalid_api_key');
      }
      if (req.method === 'GET' && path === '/models') {
        return sendJson(res, 200, { object: 'list', data: fake.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })) });
      }
      if (req.method === 'GET' && path.startsWith('/models/')) {
        const id = decodeURIComponent(path.slice('/models/'.length));
        if (!fake.models.includes(id)) return sendError(res, 404, `The model '${id}' does not exist`, 'model_not_found');
        return sendJson(res, 200, { id, object: 'model', created: 0, owned_by: 'fake' });
      }
      if (req.method === 'POST' && path === '/embeddings') return answerEmbeddings(res, JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model?: string; input?: string | string[] });
      if (req.method === 'POST' && path === '/images/generations') return answerImages(res, JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
      if (req.method !== 'POST' || path !== '/chat/completions') return sendError(res, 404, `no route ${req.method} ${path}`, 'not_found');
      let body: ChatRequestBody;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequestBody;
      } catch {
        return sendError(res, 400, 'invalid JSON body', 'invalid_request_error');
      }
      const recorded: RecordedRequest = { path, headers: req.headers, body, at: Date.now() };
      requests.push(recorded);
      const reply = queue.shift() ?? (await handler(recorded)) ?? { content: 'ok' };
      if ('hang' in reply) {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      if ('status' in reply) return sendError(res, reply.status, reply.error ?? `scripted ${reply.status}`, 'scripted', reply.headers);
      completionId += 1;
      const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({
        id: call.id ?? `call_${completionId}_${index}`,
        type: 'function',
        function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
      }));
      const usage = reply.usage ?? { prompt_tokens: 100, completion_tokens: 20 };
      if (body.stream === true) return streamReply(res, { id: `chatcmpl-${completionId}`, model: body.model, reply, toolCalls, usage, includeUsage: (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true });
      return sendJson(res, 200, {
        id: `chatcmpl-${completionId}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: reply.content ?? null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
            finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
          },
        ],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
    })().catch((error: unknown) => sendError(res, 500, String(error), 'fake_crashed'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const fake: FakeOpenAI = {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    apiKey,
    requests,
    images,
    embeddings,
    models: options.models ?? ['gpt-test', 'gpt-fallback'],
    script: (...replies) => queue.push(...replies),
    handle: (next) => {
      handler = next;
    },
    lastSystemPrompt() {
      const last = requests.at(-1);
      const system = last?.body.messages.find((message) => message.role === 'system');
      return typeof system?.content === 'string' ? system.content : '';
    },
    async waitForRequests(count, timeoutMs = 5000) {
      const until = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > until) throw new Error(`fake OpenAI got ${requests.length} requests, expected ${count}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string, code: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error: { message, type: code, param: null, code } }, headers);
}

/**
 * A streamed Chat Completion as OpenAI sends it: `data:` lines of chunks (role, content pieces, tool calls as
 * argument fragments keyed by index, then finish_reason), the usage chunk when asked for, then `data: [DONE]`.
 */
async function streamReply(res: ServerResponse, input: {
  id: string; model: string; reply: { content?: string } & Streaming; usage: { prompt_tokens: number; completion_tokens: number }; includeUsage: boolean;
  toolCalls: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
}): Promise<void> {
  const { reply } = input;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: input.id, object: 'chat.completion.chunk', created, model: input.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
  const pause = () => new Promise((resolve) => setTimeout(resolve, reply.chunkDelayMs ?? 0));
  res.write(chunk({ role: 'assistant', content: '' }));
  const content = reply.content ?? '';
  const pieces = reply.chunks ?? (content ? content.match(/\S+\s*|\s+/g) ?? [content] : []);
  for (const [index, piece] of pieces.entries()) {
    if (reply.failAfterChunks !== undefined && index >= reply.failAfterChunks) {
      res.destroy();
      return;
    }
    await pause();
    res.write(chunk({ content: piece }));
  }
  for (const [index, call] of input.toolCalls.entries()) {
    res.write(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    const args = call.function.arguments;
    const half = Math.ceil(args.length / 2);
    for (const part of [args.slice(0, half), args.slice(half)]) if (part) res.write(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
  }
  res.write(chunk({}, input.toolCalls.length > 0 ? 'tool_calls' : 'stop'));
  if (input.includeUsage) {
    res.write(`data: ${JSON.stringify({ id: input.id, object: 'chat.completion.chunk', created, model: input.model, choices: [], usage: { ...input.usage, total_tokens: input.usage.prompt_tokens + input.usage.completion_tokens } })}\n\n`);
  }
  res.end('data: [DONE]\n\n');
}
