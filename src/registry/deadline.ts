import { errorMessage } from '../errors.js';
import { withCallScope } from '../lib/call-scope.js';
import { seedFailure } from '../tools/seed-failure.js';
import { fail, type ToolResult } from '../tools/types.js';
import type { CallScope } from './call-context.js';

/** How long one call may run: its timeout, and how far progress reports may push it (`NativeTool.maxTimeoutMs`). */
export interface Deadline {
  timeoutMs: number;
  capMs: number;
}

/**
 * The tool raced against its deadline and the turn's cancellation. A progress report re-arms the deadline one
 * timeout ahead, never past `capMs` after the start. A thrown tool becomes a failed result; so does no result.
 * Contract: never throws.
 */
export async function runWithDeadline(call: CallScope, deadline: Deadline, signal: AbortSignal | undefined, personTexts?: () => readonly string[]): Promise<ToolResult> {
  const { entry, params, ctx } = call;
  const { timeoutMs, capMs } = deadline;
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  let expire: (() => void) | undefined;
  let extended = false;
  const arm = (ms: number): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => expire?.(), ms);
    timer.unref?.();
  };
  if (capMs > timeoutMs) {
    call.progress.onProgress = () => {
      const left = capMs - (performance.now() - started);
      if (left > 0) {
        arm(Math.min(timeoutMs, left));
        extended = true;
      }
    };
  }
  let onCancelled: (() => void) | undefined;
  try {
    const expired = new Promise<ToolResult>((resolve) => {
      expire = () => {
        const ranMs = performance.now() - started;
        call.abort(new DOMException(`${entry.name} timed out`, 'TimeoutError'));
        resolve(fail(extended
          ? `${entry.functionName} was stopped after ${formatSeconds(Math.round(ranMs / 1000) * 1000)}: its progress reports keep it going ${formatSeconds(timeoutMs)} at a time, up to ${formatSeconds(capMs)} in all. Try a smaller task.`
          : `${entry.functionName} did not finish within ${formatSeconds(timeoutMs)} and was stopped. Try a smaller task or a longer timeout if the tool accepts one.`));
      };
      arm(timeoutMs);
    });
    const cancelled = new Promise<ToolResult>((resolve) => {
      // A tool that called `cancel()` itself is still awaited: its own result is kept.
      onCancelled = () => {
        if (!call.cancelling) resolve(fail(cancelledMessage(signal)));
      };
      if (signal?.aborted) onCancelled();
      signal?.addEventListener('abort', onCancelled, { once: true });
    });
    let result: ToolResult;
    try {
      // Stores the call writes to (memory files) label what they keep with the sources in play; an untainted call
      // has nothing to label (and no scope to pay for).
      const running = ctx.taint.length > 0 ? withCallScope({ taint: ctx.taint, ...(personTexts ? { personTexts } : {}) }, () => entry.tool.execute(params, ctx)) : entry.tool.execute(params, ctx);
      result = await Promise.race([running, expired, cancelled]);
    } catch (error) {
      ctx.log.warn({ err: error }, 'tool threw');
      result = fail(`${entry.functionName} failed: ${errorMessage(error)}`);
    }
    if (isToolResult(result)) return result;
    return seedFailure(result) ?? fail(`${entry.functionName} returned no result.`);
  } finally {
    if (timer) clearTimeout(timer);
    expire = undefined;
    call.progress.onProgress = undefined;
    if (onCancelled) signal?.removeEventListener('abort', onCancelled);
  }
}

/** A hook's answer, or a throw when it takes longer than the call may, or the turn is cancelled meanwhile. */
export function bounded<T>(promise: Promise<T>, timeoutMs: number, signal: AbortSignal | undefined, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const limits = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${formatSeconds(timeoutMs)}`)), timeoutMs);
    timer.unref?.();
    onAbort = () => reject(new Error('the turn was cancelled'));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, limits]).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  });
}

export function isToolResult(value: unknown): value is ToolResult {
  return value !== null && typeof value === 'object' && typeof (value as ToolResult).output === 'string' && typeof (value as ToolResult).success === 'boolean';
}

/** Why the turn's signal fired: a tool's `cancel(reason)` says its reason; /stop and shutdown say only that. */
function cancelledMessage(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  if (reason instanceof DOMException && reason.name === 'AbortError' && reason.message !== '' && reason.message !== 'This operation was aborted') {
    return `Cancelled: ${reason.message}.`;
  }
  return 'The turn was cancelled.';
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
