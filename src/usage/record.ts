import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.js';

/** One model call made outside a turn (an MCP server's sampling request), as it is counted. */
export interface OutsideCall {
  /** The conversation it served (the one whose tool call the server was answering). */
  conversationId: string;
  /** What made the call; `sampling` rows are not counted as turns. */
  source: 'sampling';
  model: string | undefined;
  promptTokens: number;
  completionTokens: number;
  startedAt: number;
  endedAt: number;
  error?: string;
}

/**
 * Writes model calls made outside a turn into `turns` (one closed row each, with its own `source`), so today's
 * totals, `/usage`, `familiar usage` and the daily budget count them with no second ledger to add up.
 * Contract: throws only when the database does.
 */
export function createUsageRecorder(db: Database): (call: OutsideCall) => void {
  const insert = db.prepare(
    `INSERT INTO turns (id, conversation_id, source, started_at, ended_at, status, model, llm_calls, prompt_tokens, completion_tokens, error)
     VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)`,
  );
  return (call) => {
    insert.run(randomUUID(), call.conversationId, call.source, call.startedAt, call.endedAt, call.error ? 'llm_error' : 'ok', call.model ?? null,
      call.promptTokens, call.completionTokens, call.error ?? null);
  };
}
