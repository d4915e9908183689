import type { TavilyClient } from '@tavily/core';
import type { ToolsConfig } from '../../config/schema.js';
import { retryAfterSeconds } from '../../lib/retry-after.js';

/**
 * Search back-ends for `web_search`: Tavily through its official client, Exa and SearXNG over their HTTP APIs.
 * Contract: `search` resolves with results or rejects with a SearchProviderError saying who failed and why.
 */

export type WebSearchConfig = NonNullable<ToolsConfig['web_search']>;

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
  published?: string;
}

export interface SearchProvider {
  name: WebSearchConfig['provider'];
  search(query: string, options: { maxResults: number; signal: AbortSignal }): Promise<SearchResult[]>;
}

export type SearchErrorKind = 'auth' | 'rate_limit' | 'refused' | 'unavailable' | 'network' | 'timeout' | 'bad_response';

export class SearchProviderError extends Error {
  readonly kind: SearchErrorKind;
  readonly status: number | undefined;
  readonly retryAfterS: number | undefined;
  constructor(kind: SearchErrorKind, message: string, details: { status?: number; retryAfterS?: number | undefined; cause?: unknown } = {}) {
    super(message, { cause: details.cause });
    this.name = 'SearchProviderError';
    this.kind = kind;
    this.status = details.status;
    this.retryAfterS = details.retryAfterS;
  }
}

export const DEFAULT_BASE_URLS = { tavily: 'https://api.tavily.com', exa: 'https://api.exa.ai' } as const;

/** Why a configured provider cannot run, or undefined when it can. */
export function providerProblem(config: WebSearchConfig): string | undefined {
  if (config.provider === 'searxng') return config.base_url ? undefined : 'tools.web_search.base_url is not set (searxng needs the address of your instance)';
  return config.api_key ? undefined : `tools.web_search.api_key is empty (set ${config.provider === 'tavily' ? 'TAVILY_API_KEY' : 'EXA_API_KEY'} or the key itself)`;
}

export function createSearchProvider(config: WebSearchConfig): SearchProvider {
  switch (config.provider) {
    case 'tavily':
      return tavilyProvider(config);
    case 'exa':
      return exaProvider(config);
    case 'searxng':
      return searxngProvider(config);
  }
}

function tavilyProvider(config: WebSearchConfig): SearchProvider {
  // Loaded on the first search: @tavily/core costs a noticeable part of start-up.
  let client: Promise<TavilyClient> | undefined;
  const getClient = () =>
    (client ??= import('@tavily/core').then(({ tavily }) =>
      tavily({ apiKey: config.api_key, ...(config.base_url ? { apiBaseURL: config.base_url.replace(/\/+$/, '') } : {}) }),
    ));
  return {
    name: 'tavily',
    async search(query, { maxResults, signal }) {
      // @tavily/core takes no AbortSignal; its own timeout bounds the request and the signal bounds our wait.
      const request = (await getClient()).search(query, { maxResults, timeout: config.timeout_s });
      let response;
      try {
        response = await raceSignal(request, signal);
      } catch (error) {
        throw tavilyError(error, config.timeout_s);
      }
      return (response.results ?? []).map((result) => ({
        title: String(result.title ?? ''),
        url: String(result.url ?? ''),
        snippet: String(result.content ?? ''),
        ...(result.publishedDate ? { published: String(result.publishedDate) } : {}),
      }));
    },
  };
}

/**
 * @tavily/core turns an HTTP error into a plain Error carrying only the server's `detail.error` text (or
 * "<status> Error: <body>"), so the status is read back from that text.
 */
function tavilyError(error: unknown, timeoutS: number): SearchProviderError {
  if (error instanceof SearchProviderError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const retryAfter = (error as { retryAfter?: unknown }).retryAfter;
  const retryAfterS = typeof retryAfter === 'number' ? retryAfter : undefined;
  if (/^401\b|unauthori[sz]ed|invalid api key|missing api key|api key is (invalid|missing)/i.test(message)) return new SearchProviderError('auth', message, { status: 401, cause: error });
  if (/^429\b|rate limit|too many requests|excessive requests/i.test(message)) return new SearchProviderError('rate_limit', message, { status: 429, retryAfterS, cause: error });
  if (/^432\b|^433\b|usage limit|plan limit|credits/i.test(message)) return new SearchProviderError('refused', message, { cause: error });
  if (/timed out/i.test(message)) return new SearchProviderError('timeout', `no answer within ${timeoutS} s`, { cause: error });
  if (/^5\d\d\b/.test(message)) return new SearchProviderError('unavailable', message, { cause: error });
  if (/ECONNREFUSED|ENOTFOUND|ECONNRESET|EAI_AGAIN|socket hang up|network/i.test(message)) return new SearchProviderError('network', message, { cause: error });
  return new SearchProviderError('refused', message, { cause: error });
}

function exaProvider(config: WebSearchConfig): SearchProvider {
  const endpoint = `${(config.base_url ?? DEFAULT_BASE_URLS.exa).replace(/\/+$/, '')}/search`;
  return {
    name: 'exa',
    async search(query, { maxResults, signal }) {
      const body = await postJson(endpoint, {
        headers: { 'x-api-key': config.api_key },
        body: { query, numResults: maxResults, type: 'auto', contents: { highlights: { numSentences: 3, highlightsPerUrl: 1 } } },
        signal,
        timeoutS: config.timeout_s,
      });
      const results = (body as { results?: unknown }).results;
      if (!Array.isArray(results)) throw new SearchProviderError('bad_response', 'the answer has no results list');
      return results.map((item: Record<string, unknown>) => {
        const highlights = Array.isArray(item.highlights) ? item.highlights.map(String).join(' … ') : '';
        const snippet = highlights || stringOr(item.summary) || stringOr(item.text);
        return {
          title: stringOr(item.title) || stringOr(item.url),
          url: stringOr(item.url),
          snippet,
          ...(stringOr(item.publishedDate) ? { published: stringOr(item.publishedDate) } : {}),
        };
      });
    },
  };
}

function searxngProvider(config: WebSearchConfig): SearchProvider {
  const base = (config.base_url ?? '').replace(/\/+$/, '');
  return {
    name: 'searxng',
    async search(query, { maxResults, signal }) {
      const url = new URL(`${base}/search`);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const body = await getJson(url, { signal, timeoutS: config.timeout_s });
      const results = (body as { results?: unknown }).results;
      if (!Array.isArray(results)) throw new SearchProviderError('bad_response', 'the answer has no results list');
      return results.slice(0, maxResults).map((item: Record<string, unknown>) => ({
        title: stringOr(item.title) || stringOr(item.url),
        url: stringOr(item.url),
        snippet: stringOr(item.content),
        ...(stringOr(item.publishedDate) ? { published: stringOr(item.publishedDate) } : {}),
      }));
    },
  };
}

async function postJson(url: string, options: { headers: Record<string, string>; body: unknown; signal: AbortSignal; timeoutS: number }): Promise<unknown> {
  return requestJson(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...options.headers },
    body: JSON.stringify(options.body),
  }, options.signal, options.timeoutS);
}

async function getJson(url: URL, options: { signal: AbortSignal; timeoutS: number }): Promise<unknown> {
  return requestJson(url.href, { method: 'GET', headers: { accept: 'application/json' } }, options.signal, options.timeoutS);
}

async function requestJson(url: string, init: RequestInit, signal: AbortSignal, timeoutS: number): Promise<unknown> {
  const timeout = AbortSignal.timeout(timeoutS * 1000);
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.any([signal, timeout]), redirect: 'follow' });
  } catch (error) {
    if (timeout.aborted) throw new SearchProviderError('timeout', `no answer within ${timeoutS} s`, { cause: error });
    if (signal.aborted) throw new SearchProviderError('network', 'the search was cancelled', { cause: error });
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new SearchProviderError('network', `cannot reach ${new URL(url).origin} (${cause?.code ?? cause?.message ?? String(error)})`, { cause: error });
  }
  const text = await response.text();
  if (!response.ok) {
    const detail = errorDetail(text);
    const status = response.status;
    const retryAfterS = retryAfterSeconds(response.headers.get('retry-after'));
    const kind: SearchErrorKind = status === 401 ? 'auth' : status === 429 ? 'rate_limit' : status >= 500 ? 'unavailable' : 'refused';
    throw new SearchProviderError(kind, `HTTP ${status}${detail ? `: ${detail}` : ''}`, { status, retryAfterS });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SearchProviderError('bad_response', `the answer is not JSON (${response.headers.get('content-type') ?? 'no content type'})`, { cause: error });
  }
}

/** The error text of a JSON error body (`{error}`, `{message}`, `{detail}`), else the start of the body. */
function errorDetail(text: string): string {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    for (const key of ['error', 'message', 'detail']) {
      const value = body[key];
      if (typeof value === 'string') return value.slice(0, 300);
      if (value && typeof value === 'object') {
        const nested = (value as Record<string, unknown>).message ?? (value as Record<string, unknown>).error;
        if (typeof nested === 'string') return nested.slice(0, 300);
      }
    }
  } catch {
    // Not JSON: fall through to the raw text.
  }
  return text.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200);
}

function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new SearchProviderError('network', 'the search was cancelled'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new SearchProviderError('network', 'the search was cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
