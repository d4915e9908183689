import { errorMessage } from '../errors.js';
import { fail, type ToolResult } from './types.js';

/**
 * Seed 001's graceful failure, `{ success: false, error }` (an `error` text or an Error, and no `output`), as the
 * failed ToolResult it means; undefined for anything else. Without this a tool ported from the seed that reports a
 * failure would be read as a success (its object sent to the model as JSON, the audit saying ok).
 */
export function seedFailure(value: unknown): ToolResult | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as { success?: unknown; output?: unknown; error?: unknown };
  if (record.success !== false || typeof record.output === 'string') return undefined;
  const error = record.error;
  if (typeof error === 'string' && error.trim() !== '') return fail(error);
  if (error instanceof Error) return fail(errorMessage(error));
  if (error !== undefined && error !== null) {
    try {
      return fail(JSON.stringify(error));
    } catch {
      return fail(String(error));
    }
  }
  return fail('The tool reported a failure without saying why.');
}
