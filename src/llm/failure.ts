import { errorMessage } from '../errors.js';
import { networkCode } from './network-code.js';
import { asApiError } from './retry.js';

/** What went wrong with an LLM call, said for the person, and whether waiting can fix it. */
export interface LlmFailure {
  /** One line, no stack, no key: what happened and what to check. */
  reason: string;
  /** Rate limits, server errors, timeouts, cut connections: a second try may work. */
  transient: boolean;
  /** The whole server failed (refused connection, unknown host, rejected key): other models there fail too. */
  wholeServer: boolean;
}

export interface FailureContext {
  baseUrl: string;
  model: string;
  timeoutS?: number;
}

/** Network error codes that a retry cannot fix: the URL or the server's state is wrong. */
const PERMANENT_NETWORK = new Map<string, (context: FailureContext) => string>([
  ['ECONNREFUSED', ({ baseUrl }) => `nothing answers at ${baseUrl} (connection refused): check llm.base_url and that the server is running`],
  ['ENOTFOUND', ({ baseUrl }) => `the host of ${baseUrl} was not found: check llm.base_url`],
  ['EHOSTUNREACH', ({ baseUrl }) => `${baseUrl} cannot be reached (no route to host): check llm.base_url`],
  ['ENETUNREACH', ({ baseUrl }) => `${baseUrl} cannot be reached (network unreachable): check llm.base_url and this machine's network`],
  ['ERR_INVALID_URL', ({ baseUrl }) => `llm.base_url (${baseUrl}) is not a valid URL`],
  ['BAD_PORT', ({ baseUrl }) => `llm.base_url (${baseUrl}) uses a port that fetch refuses to connect to: check the port`],
  ['TLS', ({ baseUrl }) => `the TLS connection to ${baseUrl} failed: check http:// or https:// in llm.base_url (and the server's certificate)`],
]);

/**
 * Classifies an error from the openai client (or our own) into a reason with the right advice: "check the key"
 * or "check the URL" for what the configuration must fix, "try again" only for what passes by itself.
 * Contract: never throws.
 */
export function describeLlmFailure(error: unknown, context: FailureContext): LlmFailure {
  const apiError = asApiError(error);
  const status = apiError?.status;
  if (status === 401 || status === 403) {
    return { reason: `the LLM provider at ${context.baseUrl} refused the API key (${status}): check llm.api_key`, transient: false, wholeServer: true };
  }
  if (status === 404) {
    return {
      reason: `${context.baseUrl} answered 404 for model "${context.model}": check llm.model (and that llm.base_url is the API root, e.g. ending in /v1)`,
      transient: false, wholeServer: false,
    };
  }
  if (status === 429) {
    const code = (apiError as { code?: unknown } | undefined)?.code;
    if (code === 'insufficient_quota') return { reason: 'the LLM account has no credit left (insufficient_quota): check its billing', transient: false, wholeServer: true };
    return { reason: 'the LLM provider is rate limiting us (429)', transient: true, wholeServer: false };
  }
  if (status !== undefined && status >= 500) return { reason: `the LLM provider had a server error (${status})`, transient: true, wholeServer: false };
  if (status === 408 || status === 409) return { reason: `the LLM provider answered ${status}`, transient: true, wholeServer: false };
  if (status !== undefined) {
    const detail = serverMessage(apiError);
    return { reason: `the LLM provider refused the request (${status}${detail ? `: ${detail}` : ''})`, transient: false, wholeServer: false };
  }
  if (isTimeout(error)) {
    const limit = context.timeoutS !== undefined ? ` within llm.timeout_s (${context.timeoutS} s)` : ' in time';
    return { reason: `the LLM at ${context.baseUrl} did not answer${limit}`, transient: true, wholeServer: false };
  }
  const network = networkCode(error);
  const permanent = network !== undefined ? PERMANENT_NETWORK.get(network) : undefined;
  if (permanent) return { reason: permanent(context), transient: false, wholeServer: true };
  if (apiError || network !== undefined) {
    return { reason: `the connection to the LLM at ${context.baseUrl} failed (${network ?? 'connection error'})`, transient: true, wholeServer: false };
  }
  return { reason: `the LLM call failed (${errorMessage(error).slice(0, 160)})`, transient: false, wholeServer: false };
}

function isTimeout(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.constructor.name === 'APIConnectionTimeoutError' || /timed? ?out/i.test(error.message) || networkCode(error) === 'ETIMEDOUT';
}

function serverMessage(error: unknown): string | undefined {
  const body = (error as { error?: unknown } | undefined)?.error;
  const message = body !== null && typeof body === 'object' && 'message' in body ? (body as { message?: unknown }).message : undefined;
  return typeof message === 'string' && message !== '' ? message.slice(0, 160) : undefined;
}
