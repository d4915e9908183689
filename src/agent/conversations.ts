import { randomBytes } from 'node:crypto';
import type { Database } from '../db/database.js';
import type { ChatMessage } from '../llm/types.js';

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
 * Conversations and their messages in SQLite. A chat has one active conversation; `/reset` archives it
 * (history kept) and the next message starts a new one.
 */
export class ConversationStore {
  private readonly db: Database;
  private readonly active = new Map<string, string>();

  constructor(db: Database) {
    this.db = db;
  }

  /** The active conversation id for a chat, created on first use. Ids are safe as folder names. */
  resolve(channel: string, chatId: string): string {
    const key = `${channel}\u0000${chatId}`;
    const cached = this.active.get(key);
    if (cached) return cached;
    const row = this.db
      .prepare('SELECT id FROM conversations WHERE channel = ? AND chat_id = ? AND archived_at IS NULL ORDER BY created_at DESC LIMIT 1')
      .get(channel, chatId) as { id: string } | undefined;
    const id = row?.id ?? this.create(channel, chatId);
    this.active.set(key, id);
    return id;
  }

  /** Archives the chat's conversation; returns the new conversation's id. */
  reset(channel: string, chatId: string): string {
    const now = Date.now();
    this.db.prepare('UPDATE conversations SET archived_at = ? WHERE channel = ? AND chat_id = ? AND archived_at IS NULL').run(now, channel, chatId);
    this.active.delete(`${channel}\u0000${chatId}`);
    return this.resolve(channel, chatId);
  }

  /** Ensures a conversation row exists with a chosen id (jobs and skills use stable ids). */
  ensure(id: string, channel: string, chatId: string): string {
    this.db.prepare('INSERT OR IGNORE INTO conversations (id, channel, chat_id, created_at) VALUES (?, ?, ?, ?)').run(id, channel, chatId, Date.now());
    return id;
  }

  private create(channel: string, chatId: string): string {
    const safeChat = chatId.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 40);
    const id = `${channel}-${safeChat}-${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
    this.db.prepare('INSERT INTO conversations (id, channel, chat_id, created_at) VALUES (?, ?, ?, ?)').run(id, channel, chatId, Date.now());
    return id;
  }

  /** Appends messages in one transaction, so an assistant's tool calls and their results land together. */
  append(conversationId: string, turnId: string, messages: readonly ChatMessage[]): void {
    const insert = this.db.prepare('INSERT INTO messages (conversation_id, turn_id, role, body, tokens, created_at) VALUES (?, ?, ?, ?, ?, ?)');
    const now = Date.now();
    this.db.transaction(() => {
      for (const message of messages) insert.run(conversationId, turnId, message.role, JSON.stringify(message), estimateTokens(message), now);
    })();
  }

  /**
   * The newest messages that fit in `budgetTokens`, oldest first. An assistant message with tool calls
   * and its tool results are one unit: kept or dropped together. Dangling calls (a crash between call and
   * result) get a synthetic result so the next LLM request is valid.
   */
  history(conversationId: string, budgetTokens: number): ChatMessage[] {
    const rows = this.db
      .prepare('SELECT id, body, tokens FROM messages WHERE conversation_id = ? ORDER BY id DESC LIMIT 2000')
      .iterate(conversationId) as IterableIterator<{ id: number; body: string; tokens: number }>;
    const units: ChatMessage[][] = [];
    let pendingResults: ChatMessage[] = [];
    let used = 0;
    for (const row of rows) {
      const message = JSON.parse(row.body) as ChatMessage;
      if (message.role === 'tool') {
        pendingResults.unshift(message);
        used += row.tokens;
        continue;
      }
      const unit = message.role === 'assistant' && message.tool_calls?.length ? [message, ...repairResults(message, pendingResults)] : [message];
      used += row.tokens;
      // Results with no call before them (orphans) are dropped with the unit they were gathered for.
      pendingResults = [];
      // The newest unit (the message being answered) is always kept, even over budget.
      if (used > budgetTokens && units.length > 0) break;
      units.push(unit);
    }
    return units.reverse().flat();
  }

  count(conversationId: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM messages WHERE conversation_id = ?').get(conversationId) as { n: number }).n;
  }
}

function repairResults(call: ChatMessage, results: ChatMessage[]): ChatMessage[] {
  if (call.role !== 'assistant' || !call.tool_calls) return results;
  const byId = new Map(results.flatMap((result) => (result.role === 'tool' ? [[result.tool_call_id, result] as const] : [])));
  return call.tool_calls.map(
    (toolCall) =>
      byId.get(toolCall.id) ?? { role: 'tool', tool_call_id: toolCall.id, content: 'No result: the call was interrupted (the daemon stopped).' },
  );
}
