import { redactSecretValues } from '../log.js';
import { maskJsonText, maskSecretKeys } from '../lib/mask.js';
import type { AuditRecord, CallRequest } from '../tools/call.js';
import type { ToolResult } from '../tools/types.js';

/** The longest argument or output text an audit row keeps. */
const AUDIT_CHARS = 8000;

/**
 * Arguments as the audit keeps them: secret values redacted before serialising (so a secret with a quote in it is
 * still found) and secret-looking keys masked, as displayed: a password that is in the arguments only (not in the
 * config) is not kept. Raw text from the model is kept as sent, parsed when it is JSON.
 */
export function auditText(input: unknown, secrets: readonly string[]): string {
  if (typeof input === 'string') return maskJsonText(input, secrets);
  return JSON.stringify(maskSecretKeys(redactSecretValues(input ?? null, secrets))) ?? 'null';
}

/** One finished call as its audit row. */
export function auditRecord(entry: {
  callId: string; request: CallRequest; tool: string; input: string; result: ToolResult; durationMs: number; decision: string | undefined; requestedInput: string | undefined;
}): AuditRecord {
  return {
    callId: entry.callId,
    conversationId: entry.request.conversationId,
    turnId: entry.request.turnId,
    tool: entry.tool,
    input: entry.input.slice(0, AUDIT_CHARS),
    output: entry.result.output.slice(0, AUDIT_CHARS),
    error: entry.result.success ? undefined : entry.result.output.slice(0, 2000),
    success: entry.result.success,
    durationMs: entry.durationMs,
    decision: entry.decision,
    ...(entry.requestedInput !== undefined ? { requestedInput: entry.requestedInput.slice(0, AUDIT_CHARS) } : {}),
  };
}
