import { HttpError, type Transformer } from 'grammy';
import type { Logger } from '../log.js';

export interface TelegramRetryOptions {
  log: Logger;
  maxRetries?: number;
  /** Longest wait honoured from a 429's `retry_after`; beyond it the call fails rather than stall a chat. */
  maxWaitMs?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Kept rather than grammY's @grammyjs/auto-retry: that plugin retries a network error without limit (a reply would
 * hold its chat's queue through an outage) or not at all, starts its backoff at 3 s, and logs only under DEBUG.
 *
 * A grammy API transformer that retries a Bot API call on 429 (waiting `retry_after` seconds, as
 * Telegram asks), on 5xx, and on network errors (with backoff). `getUpdates` is left to grammy's own
 * polling loop, which already retries it.
 */
export function telegramRetry(options: TelegramRetryOptions): Transformer {
  const maxRetries = options.maxRetries ?? 4;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const sleep = options.sleep ?? abortableSleep;
  return async (prev, method, payload, signal) => {
    if (method === 'getUpdates') return prev(method, payload, signal);
    // grammy types its signal with a shim; at run time it is Node's own AbortSignal.
    const abort = signal as unknown as AbortSignal | undefined;
    for (let attempt = 0; ; attempt += 1) {
      try {
        const response = await prev(method, payload, signal);
        if (response.ok || attempt >= maxRetries) return response;
        const retryAfter = response.parameters?.retry_after;
        if (response.error_code === 429) {
          const waitMs = (retryAfter ?? 1) * 1000;
          if (waitMs > maxWaitMs) return response;
          options.log.warn({ method, retryAfter: retryAfter ?? 1, attempt: attempt + 1 }, 'telegram: rate limited (429); waiting as asked');
          await sleep(waitMs, abort);
        } else if (response.error_code >= 500) {
          await sleep(backoff(attempt), abort);
        } else {
          return response;
        }
      } catch (error) {
        if (!(error instanceof HttpError) || attempt >= maxRetries || signal?.aborted) throw error;
        options.log.warn({ method, attempt: attempt + 1, err: error }, 'telegram: network error; retrying');
        await sleep(backoff(attempt), abort);
      }
    }
  };
}

function backoff(attempt: number): number {
  return Math.min(8000, 250 * 2 ** attempt) * (0.75 + Math.random() * 0.5);
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
