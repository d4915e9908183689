import { APIConnectionError, APIError } from 'openai';

const RETRYABLE_STATUS = new Set([408, 409, 429]);

/** Retry only what can succeed on a second try: timeouts, conflicts, rate limits, server errors, lost connections. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof APIConnectionError) return true;
  if (error instanceof APIError && typeof error.status === 'number') {
    return RETRYABLE_STATUS.has(error.status) || error.status >= 500;
  }
  return false;
}

/** The delay a server asked for, in ms: `retry-after-ms`, `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(error: unknown, now = Date.now()): number | undefined {
  if (!(error instanceof APIError) || !error.headers) return undefined;
  const headers = error.headers;
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
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
