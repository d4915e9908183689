import type { Config } from '../config/schema.js';
import type { Database } from '../db/database.js';
import { formatCost, formatNumber } from '../lib/numbers.js';
import { wallClockAt, zoneOffsetMs } from '../lib/zoned.js';
import { IS_TURN } from './record.js';

export interface UsageTotals {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  llmCalls: number;
  turns: number;
  /** Images made by image_generate (their tokens are in the totals). */
  images: number;
  /** Estimated from `llm.prices`; undefined when no model used has a price. */
  costUsd: number | undefined;
  /** Tokens spent on models without a price (not in `costUsd`). */
  unpricedTokens: number;
}

export interface UsageToday extends UsageTotals {
  /** The local date in `timezone`, e.g. "2026-11-22". */
  day: string;
  /** `llm.daily_token_budget`; 0 = unlimited. */
  budget: number;
  /** Tokens left today, undefined when unlimited. */
  remaining: number | undefined;
  /** When the budget resets (the next local midnight), epoch ms. */
  resetsAt: number;
}

type Prices = Config['llm']['prices'];

interface ModelRow {
  model: string | null;
  prompt: number;
  completion: number;
  calls: number;
  turns: number;
  images?: number;
}

/**
 * Token and cost totals of turns started in [from, to). Tokens come from the API's usage fields. Rows of model calls
 * made outside a turn (an MCP server's sampling request, a summary, an image: `OUTSIDE_SOURCES`) count their tokens but
 * not as turns.
 */
export function usageBetween(db: Database, prices: Prices, from: number, to: number, conversationId?: string): UsageTotals {
  const rows = db
    .prepare(
      `SELECT model, SUM(prompt_tokens) AS prompt, SUM(completion_tokens) AS completion, SUM(llm_calls) AS calls,
         SUM(${IS_TURN}) AS turns, SUM(source = 'image') AS images
       FROM turns WHERE started_at >= ? AND started_at < ? ${conversationId ? 'AND conversation_id = ?' : ''} GROUP BY model`,
    )
    .all(...(conversationId ? [from, to, conversationId] : [from, to])) as ModelRow[];
  return sumRows(rows, prices);
}

/** Totals of one conversation, all time. */
export function usageOfConversation(db: Database, prices: Prices, conversationId: string): UsageTotals {
  return usageBetween(db, prices, 0, Number.MAX_SAFE_INTEGER, conversationId);
}

/** Tokens a household's person used today (in `timezone`): what their `budget.daily_tokens` is checked against. */
export function personTokensToday(db: Database, config: Pick<Config, 'timezone'>, person: string, now: Date): number {
  const row = db.prepare('SELECT SUM(prompt_tokens + completion_tokens) AS tokens FROM turns WHERE person = ? AND started_at >= ?').get(person, startOfDay(config.timezone, now)) as { tokens: number | null };
  return row.tokens ?? 0;
}

/**
 * Totals per person of turns started in [from, to) (a household). Rows that name nobody (before the household, or
 * model calls outside a turn) are the owner's.
 */
export function usageByPerson(db: Database, prices: Prices, from: number, to: number, owner: string): Array<UsageTotals & { person: string }> {
  const rows = db
    .prepare(
      `SELECT COALESCE(person, ?) AS person, model, SUM(prompt_tokens) AS prompt, SUM(completion_tokens) AS completion, SUM(llm_calls) AS calls,
         SUM(${IS_TURN}) AS turns, SUM(source = 'image') AS images
       FROM turns WHERE started_at >= ? AND started_at < ? GROUP BY 1, model`,
    )
    .all(owner, from, to) as Array<ModelRow & { person: string }>;
  const people = [...new Set(rows.map((row) => row.person))].sort();
  return people.map((person) => ({ person, ...sumRows(rows.filter((row) => row.person === person), prices) }));
}

/** Today's usage in the configured time zone, with the budget: what `/status`, `/usage` and `familiar usage` show. */
export function usageToday(db: Database, config: Pick<Config, 'timezone' | 'llm'>, now: Date = new Date()): UsageToday {
  const from = startOfDay(config.timezone, now);
  const resetsAt = startOfDay(config.timezone, new Date(from + 36 * 3600_000));
  const totals = usageBetween(db, config.llm.prices, from, resetsAt);
  const budget = config.llm.daily_token_budget;
  return { ...totals, day: localDate(config.timezone, now), budget, remaining: budget > 0 ? Math.max(0, budget - totals.totalTokens) : undefined, resetsAt };
}

/** One row per local day, newest first, for the last `days` days. */
export function usageByDay(db: Database, config: Pick<Config, 'timezone' | 'llm'>, days: number, now: Date = new Date()): Array<UsageTotals & { day: string }> {
  const out: Array<UsageTotals & { day: string }> = [];
  let end = startOfDay(config.timezone, new Date(startOfDay(config.timezone, now) + 36 * 3600_000));
  for (let index = 0; index < days; index += 1) {
    const start = startOfDay(config.timezone, new Date(end - 12 * 3600_000));
    out.push({ day: localDate(config.timezone, new Date(start + 3600_000)), ...usageBetween(db, config.llm.prices, start, end) });
    end = start;
  }
  return out;
}

/** One local day's use of one model (tokens and estimated cost), for the usage chart. */
export interface ModelDay {
  day: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  turns: number;
  /** Undefined when the model has no price in `llm.prices`. */
  costUsd: number | undefined;
}

/** Per local day (oldest first, the last `days` days up to today) and per model: what the usage chart draws. */
export function usageByDayAndModel(db: Database, config: Pick<Config, 'timezone' | 'llm'>, days: number, now: Date = new Date()): Array<{ day: string; models: ModelDay[] }> {
  const out: Array<{ day: string; models: ModelDay[] }> = [];
  let end = startOfDay(config.timezone, new Date(startOfDay(config.timezone, now) + 36 * 3600_000));
  const statement = db.prepare(
    `SELECT model, SUM(prompt_tokens) AS prompt, SUM(completion_tokens) AS completion, SUM(llm_calls) AS calls, COUNT(*) AS turns
     FROM turns WHERE started_at >= ? AND started_at < ? GROUP BY model ORDER BY model`,
  );
  for (let index = 0; index < days; index += 1) {
    const start = startOfDay(config.timezone, new Date(end - 12 * 3600_000));
    const day = localDate(config.timezone, new Date(start + 3600_000));
    const rows = statement.all(start, end) as ModelRow[];
    out.push({
      day,
      models: rows.map((row) => {
        const totals = sumRows([row], config.llm.prices);
        return { day, model: row.model ?? 'unknown', promptTokens: totals.promptTokens, completionTokens: totals.completionTokens, totalTokens: totals.totalTokens, turns: totals.turns, costUsd: totals.costUsd };
      }),
    });
    end = start;
  }
  return out.reverse();
}

/** The conversations that used the most tokens since `from`. */
export function topConversations(db: Database, from: number, limit = 10): Array<{ conversationId: string; totalTokens: number; turns: number }> {
  return db
    .prepare(
      `SELECT conversation_id AS conversationId, SUM(prompt_tokens + completion_tokens) AS totalTokens, SUM(${IS_TURN}) AS turns
       FROM turns WHERE started_at >= ? GROUP BY conversation_id ORDER BY totalTokens DESC LIMIT ?`,
    )
    .all(from, limit) as Array<{ conversationId: string; totalTokens: number; turns: number }>;
}

/** "Today (2026-11-22): 12,345 tokens (10,000 prompt + 2,345 completion), 7 turns, ≈ $0.0123; budget 50,000, 37,655 left." */
export function formatUsageToday(usage: UsageToday): string {
  const parts = [
    `Today (${usage.day}): ${formatNumber(usage.totalTokens)} tokens (${formatNumber(usage.promptTokens)} prompt + ${formatNumber(usage.completionTokens)} completion), ${usage.turns} turn${usage.turns === 1 ? '' : 's'}`,
  ];
  if (usage.images > 0) parts.push(`${usage.images} image${usage.images === 1 ? '' : 's'}`);
  if (usage.costUsd !== undefined) parts.push(`≈ ${formatCost(usage.costUsd)}${usage.unpricedTokens > 0 ? ` (+${formatNumber(usage.unpricedTokens)} tokens on unpriced models)` : ''}`);
  parts.push(usage.budget > 0 ? `budget ${formatNumber(usage.budget)}, ${formatNumber(usage.remaining ?? 0)} left` : 'no daily budget');
  return `${parts.join(', ')}.`;
}

function sumRows(rows: ModelRow[], prices: Prices): UsageTotals {
  const totals: UsageTotals = { promptTokens: 0, completionTokens: 0, totalTokens: 0, llmCalls: 0, turns: 0, images: 0, costUsd: undefined, unpricedTokens: 0 };
  for (const row of rows) {
    const prompt = row.prompt ?? 0;
    const completion = row.completion ?? 0;
    totals.promptTokens += prompt;
    totals.completionTokens += completion;
    totals.llmCalls += row.calls ?? 0;
    totals.turns += row.turns;
    totals.images += row.images ?? 0;
    const price = row.model !== null && Object.hasOwn(prices, row.model) ? prices[row.model] : undefined;
    if (price) totals.costUsd = (totals.costUsd ?? 0) + (prompt * price.prompt_per_mtok + completion * price.completion_per_mtok) / 1_000_000;
    else totals.unpricedTokens += prompt + completion;
  }
  totals.totalTokens = totals.promptTokens + totals.completionTokens;
  return totals;
}

/** Epoch ms of the local midnight that starts `date`'s day in `timeZone` (two passes: DST-safe). */
export function startOfDay(timeZone: string, date: Date): number {
  const local = wallClockAt(date.getTime(), timeZone);
  const midnightAsUtc = Date.UTC(local.year, local.month - 1, local.day);
  const first = midnightAsUtc - zoneOffsetMs(midnightAsUtc, timeZone);
  return midnightAsUtc - zoneOffsetMs(first, timeZone);
}

function localDate(timeZone: string, date: Date): string {
  const local = wallClockAt(date.getTime(), timeZone);
  return `${local.year}-${String(local.month).padStart(2, '0')}-${String(local.day).padStart(2, '0')}`;
}
