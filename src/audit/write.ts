import type { Database } from '../db/database.js';
import type { AuditRecord } from '../tools/call.js';
import { currentPerson } from '../lib/person-scope.js';

/** Writes one tool call's audit row (the registry's `audit` option). */
export function createAuditWriter(db: Database): (record: AuditRecord) => void {
  const insert = db.prepare(
    'INSERT INTO audit (call_id, conversation_id, turn_id, tool, input, output, error, success, duration_ms, decision, requested_input, created_at, person) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  // Written in the turn's commit, inside its person's scope (a household): who the call was for.
  return (record) => {
    insert.run(record.callId, record.conversationId, record.turnId, record.tool, record.input, record.output, record.error ?? null,
      record.success ? 1 : 0, record.durationMs, record.decision ?? null, record.requestedInput ?? null, Date.now(), currentPerson()?.name ?? null);
  };
}
