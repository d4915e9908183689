// Contract: a node:http fake of the Telegram Bot API (long polling, sends, uploads, files, Telegram's error shapes) that the real grammy client talks to in tests.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tdParseHtml } from '../helpers/tdlib.js';

type Json = Record<string, unknown>;
export type ChatId = number | string;
export interface TelegramError { error_code: number; description: string; retry_after?: number }
export interface Entity { type: string; offset: number; length: number; url?: string; language?: string; custom_emoji_id?: string; user?: Json }
export interface SentFile { source: 'upload' | 'file_id' | 'url'; fileId?: string | undefined; fileName?: string | undefined; mimeType?: string | undefined; bytes?: Buffer | undefined; url?: string | undefined }
export interface SentMessage {
  method: 'sendMessage' | 'sendPhoto' | 'sendDocument'; chat_id: ChatId; message_id: number; at: number;
  /** Visible text (tags stripped, entities decoded); for media: the visible caption. */
  text?: string | undefined; raw_text?: string | undefined; parse_mode?: string | undefined; caption?: string | undefined;
  entities?: Entity[] | undefined; reply_markup?: unknown; reply_to_message_id?: number | undefined;
  message_thread_id?: number | undefined; link_preview_options?: unknown; file?: SentFile | undefined;
  /** Earlier visible texts, oldest first, pushed by editMessageText. */
  edits: string[]; deleted: boolean;
}
export interface RecordedRequest { method: string; at: number; params: Json }
export interface ChatAction { chat_id: ChatId; action: string; at: number; message_thread_id?: number | undefined }
export interface CallbackAnswer { callback_query_id: string; text?: string | undefined; show_alert?: boolean | undefined; url?: string | undefined; at: number }
export interface BotCommand { command: string; description: string }
export interface UserMessageOptions {
  chatId: number; userId: number; text?: string; firstName?: string; username?: string;
  chatType?: 'private' | 'group' | 'supergroup'; replyToMessageId?: number; entities?: Entity[];
  document?: { content: Buffer | string; fileName: string; mimeType: string };
  photo?: { content: Buffer; width?: number; height?: number }; caption?: string;
}
export interface FakeTelegram {
  apiRoot: string; token: string; botUser: Json;
  close(): Promise<void>;
  pushUpdate(update: object): number;
  sendUserMessage(opts: UserMessageOptions): { updateId: number; messageId: number };
  /** Re-queue a delivered update (same update_id): the next getUpdates returns it whatever its offset, once. */
  redeliver(updateId: number): void;
  pressButton(opts: { chatId: number; userId: number; messageId: number; data: string; firstName?: string; username?: string }): { updateId: number; callbackQueryId: string };
  failNext(method: string, error: TelegramError, times?: number): void;
  setDelay(method: string, ms: number): void;
  sent: SentMessage[]; messagesTo(chatId: ChatId): SentMessage[]; chatActions: ChatAction[];
  commands: BotCommand[]; requests: RecordedRequest[]; callbackAnswers: CallbackAnswer[];
  waitFor<T>(predicate: () => T | undefined | false, timeoutMs?: number): Promise<T>;
}

class ApiError extends Error {
  constructor(readonly code: number, readonly description: string, readonly retryAfter?: number) { super(description); }
}
const bad = (reason: string): ApiError => new ApiError(400, `Bad Request: ${reason}`);
const JSON_FIELDS = ['reply_markup', 'reply_parameters', 'link_preview_options', 'entities', 'caption_entities', 'commands', 'allowed_updates', 'scope'];
const ACTIONS = ['typing', 'upload_photo', 'record_video', 'upload_video', 'record_voice', 'upload_voice', 'upload_document', 'choose_sticker', 'find_location', 'record_video_note', 'upload_video_note'];

// ---- HTML parse mode: parsed by Telegram's own parser (TDLib's parseTextEntities, which the Bot API uses for
// parse_mode HTML); returns the visible text and the entities in the Bot API's shape, or Telegram's 400.
const TD_ENTITY_TYPES: Record<string, string> = {
  textEntityTypeBold: 'bold', textEntityTypeItalic: 'italic', textEntityTypeUnderline: 'underline', textEntityTypeStrikethrough: 'strikethrough',
  textEntityTypeSpoiler: 'spoiler', textEntityTypeCode: 'code', textEntityTypePre: 'pre', textEntityTypePreCode: 'pre', textEntityTypeTextUrl: 'text_link',
  textEntityTypeMentionName: 'text_mention', textEntityTypeBlockQuote: 'blockquote', textEntityTypeExpandableBlockQuote: 'expandable_blockquote',
  textEntityTypeCustomEmoji: 'custom_emoji', textEntityTypeDateTime: 'date_time',
};
export function parseHtml(src: string): { text: string; entities: Entity[] } {
  const parsed = tdParseHtml(src);
  if (!parsed.success) throw bad(parsed.error.replace(/^C/, 'c'));
  const entities = parsed.value.entities.map((td): Entity => {
    const entity: Entity = { type: TD_ENTITY_TYPES[td.type._] ?? td.type._, offset: td.offset, length: td.length };
    if (td.type.url !== undefined) entity.url = td.type.url;
    if (td.type.language !== undefined && td.type.language !== '') entity.language = td.type.language;
    if (td.type.user_id !== undefined) entity.user = { id: td.type.user_id };
    return entity;
  });
  entities.sort((a, b) => a.offset - b.offset || b.length - a.length);
  return { text: parsed.value.text, entities };
}

// ---- Request bodies: JSON, urlencoded, multipart (grammy writes `filename=a.txt` unquoted, so parse by hand).
interface Upload { filename?: string | undefined; contentType?: string | undefined; bytes: Buffer }
function parseMultipart(body: Buffer, contentType: string): { fields: Json; uploads: Map<string, Upload> } {
  const bm = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const delim = Buffer.from(`--${bm?.[1] ?? bm?.[2] ?? ''}`);
  const fields: Json = {};
  const uploads = new Map<string, Upload>();
  for (let pos = body.indexOf(delim); pos >= 0;) {
    let start = pos + delim.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    if (body[start] === 13 && body[start + 1] === 10) start += 2;
    const next = body.indexOf(delim, start);
    if (next < 0) break;
    const end = body[next - 2] === 13 && body[next - 1] === 10 ? next - 2 : next;
    const part = body.subarray(start, end);
    const headEnd = part.indexOf('\r\n\r\n');
    const headers = new Map(part.subarray(0, headEnd).toString('utf8').split('\r\n').map((l): [string, string] => {
      const k = l.indexOf(':'); return [l.slice(0, k).trim().toLowerCase(), l.slice(k + 1).trim()];
    }));
    const disp: Record<string, string> = {};
    for (const m of (headers.get('content-disposition') ?? '').matchAll(/;\s*(name|filename)=(?:"([^"]*)"|([^;]*))/gi)) disp[(m[1] ?? '').toLowerCase()] = m[2] ?? (m[3] ?? '').trim();
    const content = part.subarray(headEnd + 4);
    const name = disp['name'] ?? '';
    if (disp['filename'] !== undefined) uploads.set(name, { filename: disp['filename'], contentType: headers.get('content-type'), bytes: Buffer.from(content) });
    else fields[name] = content.toString('utf8');
    pos = next;
  }
  return { fields, uploads };
}
async function readParams(req: IncomingMessage, url: URL): Promise<{ params: Json; uploads: Map<string, Upload> }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks);
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  let params: Json = Object.fromEntries(url.searchParams);
  let uploads = new Map<string, Upload>();
  if (body.length && type.startsWith('application/json')) {
    try { params = { ...params, ...(JSON.parse(body.toString('utf8')) as Json) }; } catch { throw bad("can't parse JSON encoded request parameters"); }
  } else if (body.length && type.startsWith('multipart/form-data')) {
    const mp = parseMultipart(body, req.headers['content-type'] ?? '');
    params = { ...params, ...mp.fields }; uploads = mp.uploads;
  } else if (body.length) params = { ...params, ...Object.fromEntries(new URLSearchParams(body.toString('utf8'))) };
  for (const k of JSON_FIELDS) {
    const v = params[k];
    if (typeof v === 'string' && /^\s*[[{]/.test(v)) { try { params[k] = JSON.parse(v); } catch { throw bad(`can't parse ${k} JSON object`); } }
  }
  return { params, uploads };
}
const str = (p: Json, k: string): string | undefined => (p[k] === undefined || p[k] === null ? undefined : String(p[k]));
const num = (p: Json, k: string): number | undefined => (p[k] === undefined || p[k] === null || p[k] === '' ? undefined : Number(p[k]));
const bool = (p: Json, k: string): boolean | undefined => (p[k] === undefined ? undefined : p[k] === true || p[k] === 'true');
const chatIdOf = (p: Json): ChatId => {
  const v = str(p, 'chat_id');
  if (v === undefined || v === '') throw bad('chat_id is empty');
  return /^-?\d+$/.test(v) ? Number(v) : v;
};
const now = (): number => Math.floor(Date.now() / 1000);

export async function startTelegramServer(opts: { token?: string; botUsername?: string } = {}): Promise<FakeTelegram> {
  const token = opts.token ?? '123456:TEST-TOKEN';
  const botUsername = opts.botUsername ?? 'familiar_test_bot';
  const botUser = { id: Number(token.split(':')[0]) || 123456, is_bot: true, first_name: 'Familiar Test', username: botUsername };
  const getMe = { ...botUser, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false, can_connect_to_business: false, has_main_web_app: false };

  let nextUpdateId = 1, nextFile = 1, nextCallback = 1;
  let queue: { update: Json; force: boolean }[] = [];
  const history = new Map<number, Json>();
  const chats = new Map<string, { chat: Json; nextId: number; messages: Map<number, Json> }>();
  const files = new Map<string, { file_unique_id: string; file_path: string; bytes: Buffer; fileName?: string | undefined; mimeType?: string | undefined }>();
  const failures = new Map<string, TelegramError[]>();
  const delays = new Map<string, number>();
  const callbackIds = new Set<string>();
  const listeners = new Set<() => void>();
  let poll: { wake: () => void; conflict: () => void } | undefined;
  const fake = { sent: [] as SentMessage[], chatActions: [] as ChatAction[], commands: [] as BotCommand[], requests: [] as RecordedRequest[], callbackAnswers: [] as CallbackAnswer[] };

  const chatOf = (id: ChatId): { chat: Json; nextId: number; messages: Map<number, Json> } => {
    let c = chats.get(String(id));
    if (!c) {
      const chat = typeof id === 'number' && id > 0 ? { id, type: 'private', first_name: 'User' } : { id, type: 'supergroup', title: 'Test Group' };
      c = { chat, nextId: 1, messages: new Map() }; chats.set(String(id), c);
    }
    return c;
  };
  const storeFile = (bytes: Buffer, kind: string, fileName?: string, mimeType?: string): string => {
    const n = nextFile++, fileId = `FILE${n}-${kind}`;
    files.set(fileId, { file_unique_id: `U${n}`, file_path: `${kind}/file_${n}${/\.[^./]+$/.exec(fileName ?? '')?.[0] ?? (kind === 'photos' ? '.jpg' : '')}`, bytes, fileName, mimeType });
    return fileId;
  };
  const fileMeta = (fileId: string): Json => { const f = files.get(fileId); return { file_id: fileId, file_unique_id: f?.file_unique_id, file_size: f?.bytes.length }; };
  const notify = (): void => { for (const l of [...listeners]) l(); };

  function pushUpdate(update: object): number {
    const u = { ...update } as Json;
    if (typeof u['update_id'] !== 'number') u['update_id'] = nextUpdateId;
    const id = u['update_id'] as number;
    nextUpdateId = Math.max(nextUpdateId, id + 1);
    const msg = u['message'] as Json | undefined;
    const chat = msg?.['chat'] as Json | undefined;
    if (msg && chat && typeof msg['message_id'] === 'number') {
      const c = chatOf(chat['id'] as ChatId);
      c.chat = chat; c.messages.set(msg['message_id'], msg); c.nextId = Math.max(c.nextId, msg['message_id'] + 1);
    }
    history.set(id, u); queue.push({ update: u, force: false }); queue.sort((a, b) => (a.update['update_id'] as number) - (b.update['update_id'] as number));
    poll?.wake(); notify();
    return id;
  }

  function autoEntities(text: string): Entity[] {
    const out: Entity[] = [];
    for (const m of text.matchAll(/(^|[\s(])(\/[a-zA-Z0-9_]{1,32}(?:@[a-zA-Z0-9_]{3,32})?|@[a-zA-Z0-9_]{5,32})/g)) {
      const body = m[2] ?? '';
      out.push({ type: body.startsWith('/') ? 'bot_command' : 'mention', offset: (m.index ?? 0) + (m[1] ?? '').length, length: body.length });
    }
    return out;
  }

  function sendUserMessage(o: UserMessageOptions): { updateId: number; messageId: number } {
    const type = o.chatType ?? 'private';
    const from = { id: o.userId, is_bot: false, first_name: o.firstName ?? 'Test', ...(o.username ? { username: o.username } : {}), language_code: 'en' };
    const chat = type === 'private' ? { id: o.chatId, type, first_name: from.first_name, ...(o.username ? { username: o.username } : {}) } : { id: o.chatId, type, title: 'Test Group' };
    const c = chatOf(o.chatId);
    const message: Json = { message_id: c.nextId, from, chat, date: now() };
    if (o.text !== undefined) { message['text'] = o.text; const e = o.entities ?? autoEntities(o.text); if (e.length) message['entities'] = e; }
    if (o.caption !== undefined) { message['caption'] = o.caption; const e = autoEntities(o.caption); if (e.length) message['caption_entities'] = e; }
    if (o.replyToMessageId !== undefined) message['reply_to_message'] = c.messages.get(o.replyToMessageId) ?? { message_id: o.replyToMessageId, chat, date: now() };
    if (o.document) {
      const bytes = Buffer.from(o.document.content);
      const id = storeFile(bytes, 'documents', o.document.fileName, o.document.mimeType);
      message['document'] = { ...fileMeta(id), file_name: o.document.fileName, mime_type: o.document.mimeType };
    }
    if (o.photo) {
      const id = storeFile(o.photo.content, 'photos');
      message['photo'] = [{ ...fileMeta(id), width: o.photo.width ?? 800, height: o.photo.height ?? 600 }];
    }
    return { updateId: pushUpdate({ message }), messageId: message['message_id'] as number };
  }

  // Stores a bot message in its chat and records it in `sent`; returns the Message JSON.
  function storeBotMessage(method: SentMessage['method'], p: Json, content: Json, record: Partial<SentMessage>): Json {
    const chatId = chatIdOf(p);
    const c = chatOf(chatId);
    const rp = p['reply_parameters'] as Json | undefined;
    const replyTo = num(rp ?? {}, 'message_id') ?? num(p, 'reply_to_message_id');
    const replyMsg = replyTo === undefined ? undefined : c.messages.get(replyTo);
    if (replyTo !== undefined && !replyMsg && !(rp?.['allow_sending_without_reply'] ?? bool(p, 'allow_sending_without_reply'))) throw bad('message to be replied not found');
    const markup = p['reply_markup'] as Json | undefined;
    const message: Json = { message_id: c.nextId++, from: botUser, chat: c.chat, date: now(), ...content };
    if (num(p, 'message_thread_id') !== undefined) message['message_thread_id'] = num(p, 'message_thread_id');
    if (replyMsg) message['reply_to_message'] = replyMsg;
    if (markup?.['inline_keyboard']) message['reply_markup'] = markup;
    c.messages.set(message['message_id'] as number, message);
    fake.sent.push({ method, chat_id: chatId, message_id: message['message_id'] as number, at: Date.now(), parse_mode: str(p, 'parse_mode'), reply_markup: p['reply_markup'], reply_to_message_id: replyMsg ? replyTo : undefined, message_thread_id: num(p, 'message_thread_id'), link_preview_options: p['link_preview_options'], edits: [], deleted: false, ...record });
    return message;
  }
  function formatted(raw: string | undefined, p: Json, limit: number, what: 'message' | 'caption'): { text: string; entities: Entity[] } {
    const mode = (str(p, 'parse_mode') ?? '').toLowerCase();
    const r = mode === 'html' ? parseHtml(raw ?? '') : { text: raw ?? '', entities: (p[what === 'message' ? 'entities' : 'caption_entities'] as Entity[] | undefined) ?? [] };
    if (what === 'message' && !r.text.trim()) throw bad('message text is empty');
    if (r.text.length > limit) throw bad(`message ${what === 'message' ? 'is' : 'caption is'} too long`);
    return r;
  }
  function botMessage(p: Json): { message: Json; record: SentMessage } {
    const chatId = chatIdOf(p), id = num(p, 'message_id');
    const message = id === undefined ? undefined : chats.get(String(chatId))?.messages.get(id);
    const record = fake.sent.find((s) => String(s.chat_id) === String(chatId) && s.message_id === id && !s.deleted);
    if (!message || !record) throw bad('message to edit not found');
    return { message, record };
  }
  function sendMedia(method: 'sendPhoto' | 'sendDocument', field: 'photo' | 'document', p: Json, uploads: Map<string, Upload>): Json {
    const v = str(p, field);
    const up = v?.startsWith('attach://') ? uploads.get(v.slice(9)) : uploads.get(field);
    let file: SentFile;
    if (up) {
      const fileId = storeFile(up.bytes, field === 'photo' ? 'photos' : 'documents', up.filename, up.contentType);
      file = { source: 'upload', fileId, fileName: up.filename, mimeType: up.contentType, bytes: up.bytes };
    } else if (v && /^https?:\/\//.test(v)) file = { source: 'url', url: v, fileId: storeFile(Buffer.alloc(0), field === 'photo' ? 'photos' : 'documents') };
    else if (v && files.has(v)) { const f = files.get(v); file = { source: 'file_id', fileId: v, fileName: f?.fileName, mimeType: f?.mimeType, bytes: f?.bytes }; }
    else throw bad(v ? 'wrong file identifier/HTTP URL specified' : `there is no ${field} in the request`);
    const cap = str(p, 'caption');
    const c = cap === undefined ? undefined : formatted(cap, p, 1024, 'caption');
    const meta = fileMeta(file.fileId ?? '');
    const content: Json = field === 'photo' ? { photo: [{ ...meta, width: 800, height: 600 }] } : { document: { ...meta, ...(file.fileName ? { file_name: file.fileName } : {}), ...(file.mimeType ? { mime_type: file.mimeType } : {}) } };
    if (c) { content['caption'] = c.text; if (c.entities.length) content['caption_entities'] = c.entities; }
    return storeBotMessage(method, p, content, { caption: c?.text, text: c?.text, raw_text: cap, file });
  }

  const methods: Record<string, (p: Json, uploads: Map<string, Upload>, res: ServerResponse) => unknown> = {
    getMe: () => getMe,
    deleteWebhook: (p) => { if (bool(p, 'drop_pending_updates')) queue = []; return true; },
    getWebhookInfo: () => ({ url: '', has_custom_certificate: false, pending_update_count: queue.length }),
    setMyCommands: (p) => {
      const cmds = (p['commands'] ?? []) as BotCommand[];
      if (cmds.some((c) => !/^[a-z0-9_]{1,32}$/.test(c.command))) throw bad('BOT_COMMAND_INVALID');
      if (cmds.some((c) => !c.description || c.description.length > 256)) throw bad('command description is empty');
      fake.commands.splice(0, Infinity, ...cmds); return true;
    },
    getMyCommands: () => fake.commands,
    deleteMyCommands: () => { fake.commands.length = 0; return true; },
    getUpdates: (p, _u, res) => {
      const offset = num(p, 'offset') ?? 0, limit = Math.min(Math.max(num(p, 'limit') ?? 100, 1), 100), timeout = num(p, 'timeout') ?? 0;
      poll?.conflict();
      const take = (): Json[] => {
        queue = queue.filter((q) => q.force || (q.update['update_id'] as number) >= offset);
        const batch = queue.slice(0, limit);
        for (const q of batch) q.force = false;
        return batch.map((q) => q.update);
      };
      const first = take();
      if (first.length || timeout <= 0) return first;
      return new Promise((resolve, reject) => {
        const done = (fn: () => void): void => { clearTimeout(timer); closers.delete(me.end); if (poll === me) poll = undefined; fn(); };
        const me = {
          wake: () => { const b = take(); if (b.length) done(() => resolve(b)); },
          conflict: () => done(() => reject(new ApiError(409, 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running'))),
          end: () => done(() => resolve([])),
        };
        const timer = setTimeout(me.end, timeout * 1000);
        poll = me; res.on('close', me.end); closers.add(me.end);
      });
    },
    sendMessage: (p) => {
      const raw = str(p, 'text');
      const { text, entities } = formatted(raw, p, 4096, 'message');
      return storeBotMessage('sendMessage', p, { text, ...(entities.length ? { entities } : {}), ...(p['link_preview_options'] ? { link_preview_options: p['link_preview_options'] } : {}) }, { text, raw_text: raw, entities });
    },
    editMessageText: (p) => {
      const { message, record } = botMessage(p);
      const raw = str(p, 'text');
      const { text, entities } = formatted(raw, p, 4096, 'message');
      if (text === message['text'] && JSON.stringify(entities) === JSON.stringify(message['entities'] ?? []) && JSON.stringify(p['reply_markup']) === JSON.stringify(message['reply_markup'])) {
        throw bad('message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message');
      }
      record.edits.push(record.text ?? ''); Object.assign(record, { text, raw_text: raw, entities, parse_mode: str(p, 'parse_mode'), reply_markup: p['reply_markup'] });
      Object.assign(message, { text, entities, edit_date: now() }); if (p['reply_markup']) message['reply_markup'] = p['reply_markup']; else delete message['reply_markup'];
      return message;
    },
    editMessageReplyMarkup: (p) => {
      const { message, record } = botMessage(p);
      if (JSON.stringify(p['reply_markup']) === JSON.stringify(message['reply_markup'])) throw bad('message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message');
      record.reply_markup = p['reply_markup'];
      if (p['reply_markup']) message['reply_markup'] = p['reply_markup']; else delete message['reply_markup'];
      return message;
    },
    deleteMessage: (p) => {
      const c = chats.get(String(chatIdOf(p))), id = num(p, 'message_id') ?? -1;
      if (!c?.messages.delete(id)) throw bad('message to delete not found');
      for (const s of fake.sent) if (String(s.chat_id) === String(c.chat['id']) && s.message_id === id) s.deleted = true;
      return true;
    },
    answerCallbackQuery: (p) => {
      const id = str(p, 'callback_query_id') ?? '';
      if (!callbackIds.delete(id)) throw bad('query is too old and response timeout expired or query ID is invalid');
      fake.callbackAnswers.push({ callback_query_id: id, text: str(p, 'text'), show_alert: bool(p, 'show_alert'), url: str(p, 'url'), at: Date.now() });
      return true;
    },
    sendChatAction: (p) => {
      const action = str(p, 'action') ?? '';
      if (!ACTIONS.includes(action)) throw bad('wrong parameter action in request');
      fake.chatActions.push({ chat_id: chatIdOf(p), action, at: Date.now(), message_thread_id: num(p, 'message_thread_id') });
      return true;
    },
    sendPhoto: (p, u) => sendMedia('sendPhoto', 'photo', p, u),
    sendDocument: (p, u) => sendMedia('sendDocument', 'document', p, u),
    getFile: (p) => {
      const id = str(p, 'file_id') ?? '', f = files.get(id);
      if (!f) throw bad('invalid file_id');
      if (f.bytes.length > 20 * 1024 * 1024) throw bad('file is too big');
      return { ...fileMeta(id), file_path: f.file_path };
    },
  };
  const byLower = new Map(Object.keys(methods).map((k) => [k.toLowerCase(), k]));
  const closers = new Set<() => void>();

  const reply = (res: ServerResponse, status: number, body: unknown): void => {
    if (res.writableEnded || res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const replyError = (res: ServerResponse, e: ApiError): void => reply(res, e.code, { ok: false, error_code: e.code, description: e.description, ...(e.retryAfter !== undefined ? { parameters: { retry_after: e.retryAfter } } : {}) });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const fm = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (fm) {
      const f = fm[1] === token ? [...files.values()].find((x) => x.file_path === decodeURIComponent(fm[2] ?? '')) : undefined;
      if (!f) return replyError(res, new ApiError(404, 'Not Found'));
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': f.bytes.length }).end(f.bytes);
      return;
    }
    const m = /^\/bot([^/]*)\/([A-Za-z]+)$/.exec(url.pathname);
    const { params, uploads } = await readParams(req, url);
    if (m?.[1] !== token) return replyError(res, m ? new ApiError(401, 'Unauthorized') : new ApiError(404, 'Not Found'));
    const method = byLower.get((m[2] ?? '').toLowerCase());
    fake.requests.push({ method: method ?? m[2] ?? '', at: Date.now(), params });
    try {
      const fn = method ? methods[method] : undefined;
      if (!method || !fn) throw new ApiError(404, 'Not Found');
      const delay = delays.get(method);
      if (delay) await new Promise<void>((r) => { const t = setTimeout(() => { closers.delete(end); r(); }, delay); const end = (): void => { clearTimeout(t); r(); }; closers.add(end); });
      const queued = failures.get(method);
      const failure = queued?.shift();
      if (queued && !queued.length) failures.delete(method);
      if (failure) throw new ApiError(failure.error_code, failure.description, failure.retry_after);
      reply(res, 200, { ok: true, result: await fn(params, uploads, res) });
    } catch (e) {
      replyError(res, e instanceof ApiError ? e : new ApiError(500, `Internal Server Error: ${String(e)}`));
    } finally { notify(); }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => replyError(res, e instanceof ApiError ? e : new ApiError(500, `Internal Server Error: ${String(e)}`)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    apiRoot: `http://127.0.0.1:${port}`, token, botUser, ...fake,
    async close() {
      for (const end of [...closers]) end();
      closers.clear();
      await new Promise((r) => setImmediate(r)); // let ended polls answer `[]` before sockets are cut
      await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); });
    },
    pushUpdate, sendUserMessage,
    redeliver(updateId) {
      const u = history.get(updateId);
      if (!u) throw new Error(`redeliver: no update ${updateId} was ever pushed`);
      queue = queue.filter((q) => q.update !== u);
      queue.push({ update: u, force: true }); queue.sort((a, b) => (a.update['update_id'] as number) - (b.update['update_id'] as number));
      poll?.wake(); notify();
    },
    pressButton({ chatId, userId, messageId, data, firstName, username }) {
      const message = chats.get(String(chatId))?.messages.get(messageId);
      if (!message) throw new Error(`pressButton: no message ${messageId} in chat ${chatId}`);
      const callbackQueryId = String(9_000_000 + nextCallback++);
      callbackIds.add(callbackQueryId);
      const updateId = pushUpdate({ callback_query: { id: callbackQueryId, from: { id: userId, is_bot: false, first_name: firstName ?? 'Test', ...(username ? { username } : {}), language_code: 'en' }, message, chat_instance: `ci${chatId}`, data } });
      return { updateId, callbackQueryId };
    },
    failNext(method, error, times = 1) { failures.set(method, [...(failures.get(method) ?? []), ...Array.from({ length: times }, () => error)]); },
    setDelay(method, ms) { delays.set(method, ms); },
    messagesTo: (chatId) => fake.sent.filter((s) => String(s.chat_id) === String(chatId) && !s.deleted),
    waitFor<T>(predicate: () => T | undefined | false, timeoutMs = 5000): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        let lastError: unknown;
        const check = (): void => {
          try { const v = predicate(); if (v !== undefined && v !== false) { stop(); resolve(v); } } catch (e) { lastError = e; }
        };
        const interval = setInterval(check, 20);
        const timer = setTimeout(() => {
          stop();
          const recent = fake.requests.slice(-8).map((r) => `${r.method}(${JSON.stringify(r.params).slice(0, 120)})`).join('\n  ');
          reject(new Error(`waitFor timed out after ${timeoutMs} ms${lastError ? ` (predicate threw: ${String(lastError)})` : ''}; last requests:\n  ${recent || '(none)'}`));
        }, timeoutMs);
        const stop = (): void => { clearInterval(interval); clearTimeout(timer); listeners.delete(check); };
        listeners.add(check); check();
      });
    },
  };
}
