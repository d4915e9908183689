import type { APIError } from 'openai';
import { retryAfterMsOf } from '../lib/retry-after.js';
import { networkCode, PERMANENT_NETWORK_CODES } from './network-code.js';

const RETRYABLE_STATUS = new Set([408, 409, 429]);

/**
 * The openai package is imported lazily (it is a tenth of the daemon's start-up time), so its errors are
 * recognised by shape: an APIError has `status` and `headers`; a connection error is one without a status.
 */
export function asApiError(error: unknown): APIError | undefined {
  if (error instanceof Error && 'status' in error && 'headers' in error && 'error' in error) return error as APIError;
  return undefined;
}

/**
 * Retry only what can succeed on a second try: timeouts, conflicts, rate limits (not an exhausted quota), server
 * errors, cut connections. A refused connection, an unknown host or a TLS mismatch is a wrong URL or a stopped
 * server: said at once instead of after three waits.
 */
export function isRetryable(error: unknown): boolean {
  const apiError = asApiError(error);
  if (!apiError || error instanceof Error && error.name === 'AbortError') return false;
  if (apiError.constructor.name === 'APIUserAbortError') return false;
  if (typeof apiError.status !== 'number') return !PERMANENT_NETWORK_CODES.has(networkCode(error) ?? ''); // APIConnectionError and its timeout subclass
  if (apiError.status === 429 && (apiError as { code?: unknown }).code === 'insufficient_quota') return false;
  return RETRYABLE_STATUS.has(apiError.status) || apiError.status >= 500;
}

/** The delay a server asked for, in ms: `retry-after-ms`, `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(error: unknown, now = Date.now()): number | undefined {
  const apiError = asApiError(error);
  if (!apiError?.headers) return undefined;
  const headers = apiError.headers;
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  return retryAfterMsOf(headers.get('retry-after'), now);
}

/** Exponential backoff with jitter (0.5 to 1.0 of the step) so that many clients do not retry in lockstep. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const step = Math.min(8000, 500 * 2 ** attempt);
  return step * (0.5 + random() * 0.5);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason instanceof Error ? signal.reason : new DOMException('Aborted', 'AbortError'));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new DOMException('Aborted', 'AbortError'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
