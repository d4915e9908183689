import type { Database } from '../db/database.js';

export interface AuditEntry {
  id: number;
  callId: string;
  conversationId: string | null;
  turnId: string | null;
  tool: string;
  input: string;
  output: string | null;
  error: string | null;
  success: boolean;
  durationMs: number;
  /** `approved by …`, `denied: …`, or null when no approval was needed. */
  decision: string | null;
  /** The arguments as the model sent them, when a tool:before hook rewrote them (`input` is what ran); else null. */
  requestedInput: string | null;
  createdAt: number;
  /** In a household, whom the call was for; null: one person (or before the household). */
  person: string | null;
}

export interface AuditFilter {
  /** Epoch ms. */
  since?: number;
  /** Canonical name, function-safe alias, or a prefix ending in `*` (`mcp:*`). */
  tool?: string;
  conversationId?: string;
  /** Epoch ms: calls made before this instant. */
  until?: number;
  /** ok | failed | denied (see `auditOutcome`). */
  outcome?: 'ok' | 'failed' | 'denied';
  /** Rows with a smaller id (the next page, newest first). */
  beforeId?: number;
  /** Only the calls made for this person (a household). */
  person?: string;
  limit?: number;
}

/** The tools that have audit rows, by name (at most `limit`): what a filter can pick. */
export function auditedTools(db: Database, limit = 200): string[] {
  return (db.prepare('SELECT DISTINCT tool FROM audit ORDER BY tool LIMIT ?').all(limit) as Array<{ tool: string }>).map((row) => row.tool);
}

/** Tool calls, newest first. */
export function listAudit(db: Database, filter: AuditFilter = {}): AuditEntry[] {
  const where: string[] = [];
  const args: Array<string | number> = [];
  if (filter.since !== undefined) {
    where.push('created_at >= ?');
    args.push(filter.since);
  }
  if (filter.tool !== undefined) {
    if (filter.tool.endsWith('*')) {
      where.push("tool LIKE ? ESCAPE '\\'");
      args.push(`${filter.tool.slice(0, -1).replace(/[\\%_]/g, (char) => `\\${char}`)}%`);
    } else {
      where.push('(tool = ? OR tool = ?)');
      args.push(filter.tool, filter.tool.replace(/__/g, ':'));
    }
  }
  if (filter.conversationId !== undefined) {
    where.push('conversation_id = ?');
    args.push(filter.conversationId);
  }
  if (filter.until !== undefined) {
    where.push('created_at < ?');
    args.push(filter.until);
  }
  if (filter.beforeId !== undefined) {
    where.push('id < ?');
    args.push(filter.beforeId);
  }
  if (filter.person !== undefined) {
    where.push('person = ?');
    args.push(filter.person);
  }
  // The same rule as auditOutcome: a denial is a failure decided before the tool ran.
  if (filter.outcome === 'denied') where.push("decision LIKE 'denied%'");
  else if (filter.outcome === 'failed') where.push("success = 0 AND (decision IS NULL OR decision NOT LIKE 'denied%')");
  else if (filter.outcome === 'ok') where.push("success = 1 AND (decision IS NULL OR decision NOT LIKE 'denied%')");
  const sql = `SELECT * FROM audit ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
  const rows = db.prepare(sql).all(...args, filter.limit ?? 100) as Array<{
    id: number; call_id: string; conversation_id: string | null; turn_id: string | null; tool: string; input: string; output: string | null;
    error: string | null; success: number; duration_ms: number; decision: string | null; requested_input: string | null; created_at: number;
    person: string | null;
  }>;
  return rows.map((row) => ({
    id: row.id, callId: row.call_id, conversationId: row.conversation_id, turnId: row.turn_id, tool: row.tool, input: row.input,
    output: row.output, error: row.error, success: row.success === 1, durationMs: row.duration_ms, decision: row.decision,
    requestedInput: row.requested_input, createdAt: row.created_at, person: row.person,
  }));
}

/** ok | failed | denied — a denial is a failure decided before the tool ran. */
export function auditOutcome(entry: Pick<AuditEntry, 'success' | 'decision'>): 'ok' | 'failed' | 'denied' {
  if (entry.decision?.startsWith('denied')) return 'denied';
  return entry.success ? 'ok' : 'failed';
}
