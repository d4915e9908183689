import type { Database } from '../db/database.js';

/** One turn as the console lists it: what ran, for how long, and the tokens it used. */
export interface TurnRow {
  id: string;
  conversationId: string;
  source: string;
  status: string;
  model: string | null;
  startedAt: number;
  endedAt: number | null;
  llmCalls: number;
  promptTokens: number;
  completionTokens: number;
  toolCalls: number;
  error: string | null;
}

export interface TurnFilter {
  conversationId?: string;
  /** Epoch ms. */
  since?: number;
  until?: number;
  /** Turns started before this one (the next page, newest first). */
  beforeStartedAt?: number;
  limit?: number;
}

/** Turns, newest first, with the number of tool calls each made (from the audit). */
export function listTurns(db: Database, filter: TurnFilter = {}): TurnRow[] {
  const where: string[] = [];
  const args: Array<string | number> = [];
  if (filter.conversationId !== undefined) {
    where.push('t.conversation_id = ?');
    args.push(filter.conversationId);
  }
  if (filter.since !== undefined) {
    where.push('t.started_at >= ?');
    args.push(filter.since);
  }
  if (filter.until !== undefined) {
    where.push('t.started_at < ?');
    args.push(filter.until);
  }
  if (filter.beforeStartedAt !== undefined) {
    where.push('t.started_at < ?');
    args.push(filter.beforeStartedAt);
  }
  const rows = db
    .prepare(
      `SELECT t.id, t.conversation_id, t.source, t.status, t.model, t.started_at, t.ended_at, t.llm_calls, t.prompt_tokens, t.completion_tokens, t.error,
         (SELECT COUNT(*) FROM audit a WHERE a.turn_id = t.id) AS tool_calls
       FROM turns t ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY t.started_at DESC LIMIT ?`,
    )
    .all(...args, filter.limit ?? 50) as Array<{
      id: string; conversation_id: string; source: string; status: string; model: string | null; started_at: number; ended_at: number | null;
      llm_calls: number; prompt_tokens: number; completion_tokens: number; error: string | null; tool_calls: number;
    }>;
  return rows.map((row) => ({
    id: row.id, conversationId: row.conversation_id, source: row.source, status: row.status, model: row.model, startedAt: row.started_at,
    endedAt: row.ended_at, llmCalls: row.llm_calls, promptTokens: row.prompt_tokens, completionTokens: row.completion_tokens,
    toolCalls: row.tool_calls, error: row.error,
  }));
}
