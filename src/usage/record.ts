import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.js';

/**
 * What made a model call that is not a turn's own step: an MCP server's sampling request, a web_scrape summary, an
 * image_generate call (one row per image). These rows count in tokens and the budget, never as turns.
 */
export const OUTSIDE_SOURCES = ['sampling', 'summary', 'image'] as const;
export type OutsideSource = (typeof OUTSIDE_SOURCES)[number];
/** SQL: true for a row that is a turn (not an outside call). */
export const IS_TURN = `source NOT IN (${OUTSIDE_SOURCES.map((source) => `'${source}'`).join(', ')})`;

/** One model call made outside a turn (an MCP server's sampling request, a summary, an image), as it is counted. */
export interface OutsideCall {
  /** The conversation it served (the one whose tool call the server was answering). */
  conversationId: string;
  /** What made the call; these rows are not counted as turns. */
  source: OutsideSource;
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
