import { randomUUID } from 'node:crypto';
import { AppError, errorMessage } from '../../errors.js';
import { deadline } from '../../lib/abort.js';

/** signal-cli answered the call with a JSON-RPC error (an unknown recipient, a group the account left, a rate limit). */
export class SignalRpcError extends Error {
  readonly code: number;
  constructor(method: string, code: number, message: string) {
    super(`signal-cli ${method}: ${message} (code ${code})`);
    this.name = 'SignalRpcError';
    this.code = code;
  }
}

/** How a person starts what this client talks to; said in every "not reachable" error. */
export const START_HINT = (account: string, url: string): string => {
  const address = (() => {
    try {
      return new URL(url).host;
    } catch {
      return '127.0.0.1:8080';
    }
  })();
  return `start it with: signal-cli -a ${account || '+NUMBER'} daemon --http ${address} --receive-mode on-connection`;
};

export interface SignalRpcOptions {
  /** signal-cli's HTTP daemon, `http://127.0.0.1:8080`. */
  url: string;
  /** The bot's own number: sent with every call, so a multi-account daemon knows which account is meant. */
  account: string;
  timeoutMs?: number;
}

/**
 * JSON-RPC 2.0 over signal-cli's `POST /api/v1/rpc`: one request per POST, matched to its answer by the HTTP
 * exchange. Contract: `call` throws SignalRpcError when signal-cli refuses, AppError SIGNAL_UNREACHABLE when it
 * cannot be reached or does not answer as signal-cli does.
 */
export class SignalRpc {
  readonly base: string;
  private readonly options: SignalRpcOptions;

  constructor(options: SignalRpcOptions) {
    this.options = options;
    this.base = options.url.replace(/\/+$/, '');
  }

  /** `signal` ends the call early (a stop during the start), as the time limit does. */
  async call<T>(method: string, params: Record<string, unknown> = {}, timeoutMs = this.options.timeoutMs ?? 60_000, signal?: AbortSignal): Promise<T> {
    const id = randomUUID();
    let response: Response;
    let text: string;
    const limit = deadline(timeoutMs, signal);
    try {
      response = await fetch(`${this.base}/api/v1/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // A single-account daemon ignores `account`; a multi-account one needs it.
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { account: this.options.account, ...params } }),
        signal: limit.signal,
      });
      text = await response.text();
    } catch (error) {
      throw this.unreachable(fetchFailure(error), error);
    } finally {
      limit.done();
    }
    if (!response.ok) throw this.unreachable(`HTTP ${response.status} from ${this.base}/api/v1/rpc${response.status === 421 ? ' (signal-cli refused the Host header: use the address it listens on)' : ''}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw this.unreachable(`the answer to ${method} is not JSON: is ${this.base} signal-cli's daemon?`, error);
    }
    if (!isRecord(body) || body['jsonrpc'] !== '2.0') throw this.unreachable(`the answer to ${method} is not JSON-RPC: is ${this.base} signal-cli's daemon?`);
    const error = body['error'];
    if (isRecord(error)) {
      throw new SignalRpcError(method, typeof error['code'] === 'number' ? error['code'] : 0, typeof error['message'] === 'string' ? error['message'] : 'failed');
    }
    return body['result'] as T;
  }

  /** `GET /api/v1/check`: whether the daemon runs (it answers 200 without touching the account). */
  async check(timeoutMs = 5000): Promise<void> {
    let response: Response;
    try {
      response = await fetch(`${this.base}/api/v1/check`, { signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      throw this.unreachable(fetchFailure(error), error);
    }
    await response.body?.cancel();
    if (!response.ok) throw this.unreachable(`GET /api/v1/check answered HTTP ${response.status}`);
  }

  private unreachable(reason: string, cause?: unknown): AppError {
    return new AppError('SIGNAL_UNREACHABLE', `signal-cli not reachable at ${this.base} (${reason}); ${START_HINT(this.options.account, this.base)}`, { cause });
  }
}

/** undici says "fetch failed"; the cause says why (ECONNREFUSED, a timeout). */
function fetchFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  return typeof cause?.message === 'string' ? cause.message : errorMessage(error);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
