import { randomBytes } from 'node:crypto';
import type { Database } from '../db/database.js';
import type { ChatMessage } from '../llm/types.js';
import { redactorFor, type Redactor } from '../lib/redaction.js';
import type { Vouched } from '../tools/effects.js';

export interface StoredMessage {
  id: number;
  message: ChatMessage;
  tokens: number;
}

/** Rough token estimate (4 characters a token) — good enough for budgeting, cheap enough for every turn. */
export function estimateTokens(message: ChatMessage): number {
  let chars = 0;
  const content = message.content;
  if (typeof content === 'string') chars += content.length;
  else if (Array.isArray(content)) for (const part of content) chars += 'text' in part && typeof part.text === 'string' ? part.text.length : 1000;
  if (message.role === 'assistant' && message.tool_calls) {
    for (const call of message.tool_calls) if (call.type === 'function') chars += call.function.name.length + call.function.arguments.length;
  }
  return Math.ceil(chars / 4) + 4;
}

/**
 * A stored message, the outside sources that were in play when it was made (none: the person's own), and for a
 * vouching tool's result what its third-party text vouches for.
 */
interface Entry {
  message: ChatMessage;
  tokens: number;
  sources: readonly string[] | undefined;
  vouched?: Vouched | undefined;
}

/** What `append` records beside the messages. */
export interface AppendOptions {
  /** Runs first in the same transaction (the agent records its turn row with the messages: one commit). */
  within?: () => void;
  /** The outside sources in play when the messages were made: per message, or one list for all. */
  sources?: readonly string[] | ReadonlyArray<readonly string[] | undefined>;
  /** Per message: what a vouching tool's result vouches for (see `Vouched`). */
  vouched?: ReadonlyArray<Vouched | undefined>;
}

interface CachedHistory {
  entries: Entry[];
}

/** The history a turn is given, with where its messages came from (provenance). */
export interface History {
  messages: ChatMessage[];
  /** Every outside source labelling a message in the window: while one is there, the conversation is tainted. */
  sources: string[];
  /** What the person wrote in the window (user messages without a label). */
  personTexts(): string[];
  /** What third parties' words in the window vouch for (the tool results that carry it). */
  vouched(): Vouched[];
}

/**
 * Who a conversation belongs to: a chat (the person's, what `resolve` finds and `/reset` archives), or a job or a
 * skill (their own runs, under a stable id, kept with the chat that made them but never the chat's current one).
 */
export type ConversationKind = 'chat' | 'job' | 'skill';

const HISTORY_ROWS = 2000;
const NO_SECRETS: readonly string[] = [];
const CACHED_CONVERSATIONS = 64;

/**
 * Conversations and their messages in SQLite. A chat has one active conversation; `/reset` archives it
 * (history kept) and the next message starts a new one. The newest messages of recently active
 * conversations are also kept parsed in memory (a bounded LRU), so a turn does not re-read its history.
 * Configured secrets are redacted from every message before it is stored (and so from later history too): a
 * user who pastes a token, or a model that repeats one, does not put it in the database.
 */
export class ConversationStore {
  private readonly db: Database;
  private readonly active = new Map<string, string>();
  private readonly cache = new Map<string, CachedHistory>();
  private readonly insertMessage;
  private readonly selectRecent;
  private readonly appendRows;
  private readonly redactor: Redactor;

  constructor(db: Database, options: { secrets?: readonly string[] } = {}) {
    this.db = db;
    this.redactor = redactorFor(options.secrets ?? NO_SECRETS);
    this.insertMessage = db.prepare('INSERT INTO messages (conversation_id, turn_id, role, body, tokens, created_at, sources, vouched) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    this.selectRecent = db.prepare('SELECT body, tokens, sources, vouched FROM messages WHERE conversation_id = ? ORDER BY id DESC LIMIT ?');
    // Prepared once: building a transaction function per call costs more than the inserts it wraps.
    this.appendRows = db.transaction((conversationId: string, turnId: string, entries: readonly Entry[], within?: () => void) => {
      within?.();
      const now = Date.now();
      for (const entry of entries) {
        this.insertMessage.run(conversationId, turnId, entry.message.role, JSON.stringify(entry.message), entry.tokens, now, entry.sources && entry.sources.length > 0 ? JSON.stringify(entry.sources) : null, entry.vouched ? JSON.stringify(entry.vouched) : null);
      }
    });
  }

  /**
   * The active conversation id for a chat, created on first use. Ids are safe as folder names. Only the chat's own
   * conversations count: a job's or a skill's, though made from this chat, never becomes the chat's.
   */
  resolve(channel: string, chatId: string): string {
    const key = `${channel}\u0000${chatId}`;
    const cached = this.active.get(key);
    if (cached) return cached;
    const row = this.db
      .prepare("SELECT id FROM conversations WHERE channel = ? AND chat_id = ? AND kind = 'chat' AND archived_at IS NULL ORDER BY created_at DESC LIMIT 1")
      .get(channel, chatId) as { id: string } | undefined;
    const id = row?.id ?? this.create(channel, chatId);
    if (this.active.size >= 10_000) this.active.clear();
    this.active.set(key, id);
    return id;
  }

  /** Archives the chat's conversation; returns the new conversation's id. */
  reset(channel: string, chatId: string): string {
    const now = Date.now();
    this.db.prepare("UPDATE conversations SET archived_at = ? WHERE channel = ? AND chat_id = ? AND kind = 'chat' AND archived_at IS NULL").run(now, channel, chatId);
    this.active.delete(`${channel}\u0000${chatId}`);
    return this.resolve(channel, chatId);
  }

  /**
   * Ensures a conversation row exists with a chosen id (jobs and skills use stable ids). `channel` and `chatId` are
   * the chat that made it; `kind` says whose it is (a job's or a skill's never becomes that chat's current one).
   */
  ensure(id: string, channel: string, chatId: string, kind: ConversationKind): string {
    this.db.prepare('INSERT OR IGNORE INTO conversations (id, channel, chat_id, kind, created_at) VALUES (?, ?, ?, ?, ?)').run(id, channel, chatId, kind, Date.now());
    return id;
  }

  private create(channel: string, chatId: string): string {
    const safeChat = chatId.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 40);
    const id = `${channel}-${safeChat}-${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
    this.db.prepare("INSERT INTO conversations (id, channel, chat_id, kind, created_at) VALUES (?, ?, ?, 'chat', ?)").run(id, channel, chatId, Date.now());
    return id;
  }

  /** Appends messages in one transaction, so an assistant's tool calls and their results land together. */
  append(conversationId: string, turnId: string, messages: readonly ChatMessage[], options: AppendOptions = {}): void {
    const { sources, vouched, within } = options;
    const labelOf = (index: number): readonly string[] | undefined => {
      if (!sources || sources.length === 0) return undefined;
      const first = sources[0];
      const label = typeof first === 'string' ? (sources as readonly string[]) : (sources as ReadonlyArray<readonly string[] | undefined>)[index];
      return label && label.length > 0 ? label : undefined;
    };
    const entries: Entry[] = messages.map((raw, index) => {
      const message = this.redactor.empty ? raw : this.redactor.value(raw);
      const vouchedBy = vouched?.[index];
      return { message, tokens: estimateTokens(message), sources: labelOf(index), ...(vouchedBy ? { vouched: vouchedBy } : {}) };
    });
    this.appendRows(conversationId, turnId, entries, within);
    const cached = this.cache.get(conversationId);
    if (cached) {
      for (const entry of entries) cached.entries.push(entry);
      if (cached.entries.length > HISTORY_ROWS * 1.5) cached.entries.splice(0, cached.entries.length - HISTORY_ROWS);
    }
  }

  /**
   * The newest messages that fit in `budgetTokens`, oldest first, ending with `pending` (messages of the turn
   * not stored yet). An assistant message with tool calls and its tool results are one unit: kept or dropped
   * together. Dangling calls (a crash between call and result) get a synthetic result so the next LLM request
   * is valid. Contract: the returned message objects are shared with the cache — callers must not mutate them.
   */
  history(conversationId: string, budgetTokens: number, maxMessages = HISTORY_ROWS, pending: readonly ChatMessage[] = []): ChatMessage[] {
    return this.window(conversationId, budgetTokens, maxMessages, pending).messages;
  }

  /** `history` with the provenance of what is in the window (see `History`). */
  window(conversationId: string, budgetTokens: number, maxMessages = HISTORY_ROWS, pending: readonly ChatMessage[] = []): History {
    const entries = this.load(conversationId).entries;
    // Built newest first and reversed at the end: no array per unit.
    const newestFirst: ChatMessage[] = [];
    let results: ChatMessage[] = [];
    let resultEntries: Entry[] = [];
    const kept: Entry[] = [];
    let used = 0;
    let count = 0;
    for (let index = entries.length + pending.length - 1; index >= 0; index -= 1) {
      let message: ChatMessage;
      let entry: Entry | undefined;
      if (index >= entries.length) {
        message = pending[index - entries.length] as ChatMessage;
        used += estimateTokens(message);
      } else {
        entry = entries[index] as Entry;
        message = entry.message;
        used += entry.tokens;
      }
      count += 1;
      if (message.role === 'tool') {
        results.push(message);
        if (entry) resultEntries.push(entry);
        continue;
      }
      // The newest unit (the message being answered) is always kept, even over budget.
      if ((used > budgetTokens || count > maxMessages) && newestFirst.length > 0) break;
      if (message.role === 'assistant' && message.tool_calls?.length) {
        const unit = repairResults(message, results);
        for (let at = unit.length - 1; at >= 0; at -= 1) newestFirst.push(unit[at] as ChatMessage);
        for (const result of resultEntries) kept.push(result);
      }
      // Results with no call before them (orphans) are dropped with the unit they were gathered for.
      if (results.length > 0) results = [];
      if (resultEntries.length > 0) resultEntries = [];
      newestFirst.push(message);
      if (entry) kept.push(entry);
    }
    let sources: string[] | undefined;
    for (const entry of kept) {
      if (!entry.sources) continue;
      sources ??= [];
      for (const source of entry.sources) if (!sources.includes(source)) sources.push(source);
    }
    return {
      messages: newestFirst.reverse(),
      sources: sources ?? [],
      personTexts: () => kept.filter((entry) => entry.message.role === 'user' && !entry.sources).map((entry) => textOf(entry.message)),
      vouched: () => kept.flatMap((entry) => (entry.vouched ? [entry.vouched] : [])),
    };
  }

  private load(conversationId: string): CachedHistory {
    let cached = this.cache.get(conversationId);
    if (cached) {
      this.cache.delete(conversationId);
      this.cache.set(conversationId, cached);
      return cached;
    }
    const rows = this.selectRecent.all(conversationId, HISTORY_ROWS) as Array<{ body: string; tokens: number; sources: string | null; vouched: string | null }>;
    cached = {
      entries: rows.reverse().map((row) => ({
        message: JSON.parse(row.body) as ChatMessage, tokens: row.tokens, sources: row.sources === null ? undefined : (JSON.parse(row.sources) as string[]),
        ...(row.vouched !== null ? { vouched: JSON.parse(row.vouched) as Vouched } : {}),
      })),
    };
    this.cache.set(conversationId, cached);
    if (this.cache.size > CACHED_CONVERSATIONS) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    return cached;
  }

  /** The assistant's last answer in a conversation (not a step that called tools) and the sources it was made with. */
  lastAnswer(conversationId: string): { text: string; sources: readonly string[] } | undefined {
    const entries = this.load(conversationId).entries;
    for (let index = entries.length - 1; index >= 0; index -= 1) {
      const entry = entries[index];
      const message = entry?.message;
      if (message?.role === 'assistant' && typeof message.content === 'string' && message.content.trim() !== '' && !message.tool_calls?.length) {
        return { text: message.content, sources: entry?.sources ?? [] };
      }
    }
    return undefined;
  }

  /** A chat's own conversations, newest first (the active one has no `archivedAt`), for the console's list. */
  listOf(channel: string, chatId: string, limit = 50): Array<{ id: string; createdAt: number; archivedAt: number | undefined; messages: number; preview: string | undefined }> {
    const rows = this.db
      .prepare(
        `SELECT c.id, c.created_at, c.archived_at, (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id) AS messages,
           (SELECT m.body FROM messages m WHERE m.conversation_id = c.id AND m.role = 'user' ORDER BY m.id LIMIT 1) AS first
         FROM conversations c WHERE c.channel = ? AND c.chat_id = ? AND c.kind = 'chat' ORDER BY c.created_at DESC LIMIT ?`,
      )
      .all(channel, chatId, limit) as Array<{ id: string; created_at: number; archived_at: number | null; messages: number; first: string | null }>;
    return rows.map((row) => {
      const first = row.first === null ? undefined : (JSON.parse(row.first) as ChatMessage);
      return {
        id: row.id, createdAt: row.created_at, archivedAt: row.archived_at ?? undefined, messages: row.messages,
        preview: first && typeof first.content === 'string' ? first.content.slice(0, 120) : undefined,
      };
    });
  }

  /** A conversation's stored messages, oldest first, with when each was stored (for display). */
  transcript(conversationId: string, limit = 500): Array<{ id: number; turnId: string | null; message: ChatMessage; createdAt: number }> {
    const rows = this.db
      .prepare('SELECT id, turn_id, body, created_at FROM messages WHERE conversation_id = ? ORDER BY id DESC LIMIT ?')
      .all(conversationId, limit) as Array<{ id: number; turn_id: string | null; body: string; created_at: number }>;
    return rows.reverse().map((row) => ({ id: row.id, turnId: row.turn_id, message: JSON.parse(row.body) as ChatMessage, createdAt: row.created_at }));
  }

  count(conversationId: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM messages WHERE conversation_id = ?').get(conversationId) as { n: number }).n;
  }
}

function textOf(message: ChatMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '')).join('\n');
  return '';
}

function repairResults(call: ChatMessage, results: ChatMessage[]): ChatMessage[] {
  if (call.role !== 'assistant' || !call.tool_calls) return results;
  const byId = new Map(results.flatMap((result) => (result.role === 'tool' ? [[result.tool_call_id, result] as const] : [])));
  return call.tool_calls.map(
    (toolCall) =>
      byId.get(toolCall.id) ?? { role: 'tool', tool_call_id: toolCall.id, content: 'No result: the call was interrupted (the daemon stopped).' },
  );
}
