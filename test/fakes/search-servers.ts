// Contract: local HTTP servers speaking the search APIs of Tavily (POST /search, Bearer key), Exa (POST /search,
// x-api-key) and SearXNG (GET /search?format=json), with their error shapes; every request is recorded.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeResult {
  title: string;
  url: string;
  snippet: string;
  published?: string;
}

export interface RecordedSearch {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
}

/** A failure the next requests get instead of results. */
export type FakeFailure = 'unauthorized' | 'rate_limited' | 'server_error' | 'json_disabled';

export interface FakeSearchServer {
  kind: 'tavily' | 'exa' | 'searxng';
  baseUrl: string;
  apiKey: string;
  requests: RecordedSearch[];
  results: FakeResult[];
  /**
   * An engine that repeats the query in what it returns (SearXNG only): a result whose address and snippet carry the
   * query as sent — as real engines do with "search on this site" links and quoted snippets.
   */
  reflect: boolean;
  /** Fails every request until cleared; `retryAfter` is sent as the retry-after header of a 429. */
  fail(failure: FakeFailure | undefined, retryAfter?: string): void;
  close(): Promise<void>;
}

export function startTavilyServer(apiKey = 'tvly-test-key-0123456789'): Promise<FakeSearchServer> {
  return startFake('tavily', apiKey);
}

export function startExaServer(apiKey = 'exa-test-key-0123456789'): Promise<FakeSearchServer> {
  return startFake('exa', apiKey);
}

export function startSearxngServer(): Promise<FakeSearchServer> {
  return startFake('searxng', '');
}

export const SAMPLE_RESULTS: FakeResult[] = [
  { title: 'Familiars in folklore', url: 'https://example.org/familiars', snippet: 'A familiar is a supernatural entity that assists witches.', published: '2024-03-01T00:00:00Z' },
  { title: 'Personal assistant daemons', url: 'https://example.com/daemons', snippet: 'Self-hosted assistants that run all day.' },
  { title: 'Third result', url: 'https://example.net/third', snippet: 'More text.' },
];

async function startFake(kind: FakeSearchServer['kind'], apiKey: string): Promise<FakeSearchServer> {
  const requests: RecordedSearch[] = [];
  let failure: FakeFailure | undefined;
  let retryAfter: string | undefined;

  const server: Server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const url = new URL(req.url ?? '/', 'http://localhost');
      const text = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> | undefined;
      if (text) body = JSON.parse(text) as Record<string, unknown>;
      requests.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body });
      if (kind === 'tavily') return tavily(req.method, url, req.headers, body, res);
      if (kind === 'exa') return exa(req.method, url, req.headers, body, res);
      return searxng(req.method, url, res);
    })().catch((error: unknown) => json(res, 500, { error: String(error) }));
  });

  function tavily(method: string | undefined, url: URL, headers: IncomingHttpHeaders, body: Record<string, unknown> | undefined, res: ServerResponse): void {
    if (method !== 'POST' || url.pathname !== '/search') return json(res, 404, { detail: { error: 'Not Found' } });
    // Tavily's error bodies are {"detail": {"error": "..."}}.
    if (failure === 'unauthorized' || headers.authorization !== `Bearer ${apiKey}`) return json(res, 401, { detail: { error: 'Unauthorized: missing or invalid API key.' } });
    if (failure === 'rate_limited') return json(res, 429, { detail: { error: 'Your request has been blocked due to excessive requests. Please reduce rate of requests.' } }, retryHeaders());
    if (failure === 'server_error') return json(res, 500, { detail: { error: 'Internal Server Error' } });
    const max = typeof body?.max_results === 'number' ? body.max_results : 5;
    json(res, 200, {
      query: body?.query,
      follow_up_questions: null,
      answer: null,
      images: [],
      results: fake.results.slice(0, max).map((result, index) => ({
        title: result.title,
        url: result.url,
        content: result.snippet,
        score: 0.9 - index * 0.1,
        raw_content: null,
        ...(result.published ? { published_date: result.published } : {}),
      })),
      response_time: 0.42,
      request_id: 'req-tavily-1',
    });
  }

  function exa(method: string | undefined, url: URL, headers: IncomingHttpHeaders, body: Record<string, unknown> | undefined, res: ServerResponse): void {
    if (method !== 'POST' || url.pathname !== '/search') return json(res, 404, { requestId: 'r', error: 'Not found', tag: 'NOT_FOUND' });
    if (failure === 'unauthorized' || headers['x-api-key'] !== apiKey) return json(res, 401, { requestId: 'r1', error: 'Invalid API key', tag: 'INVALID_API_KEY' });
    if (failure === 'rate_limited') return json(res, 429, { requestId: 'r2', error: 'You have exceeded your rate limit', tag: 'RATE_LIMIT_EXCEEDED' }, retryHeaders());
    if (failure === 'server_error') return json(res, 503, { requestId: 'r3', error: 'Service unavailable', tag: 'UNAVAILABLE' });
    const max = typeof body?.numResults === 'number' ? body.numResults : 10;
    json(res, 200, {
      requestId: 'req-exa-1',
      resolvedSearchType: 'neural',
      results: fake.results.slice(0, max).map((result, index) => ({
        id: result.url,
        title: result.title,
        url: result.url,
        publishedDate: result.published ?? null,
        author: null,
        highlights: [result.snippet],
        highlightScores: [0.5],
        score: 0.5 - index * 0.01,
      })),
      costDollars: { total: 0.005 },
    });
  }

  function searxng(method: string | undefined, url: URL, res: ServerResponse): void {
    if (method !== 'GET' || url.pathname !== '/search') return html(res, 404, '<h1>Not Found</h1>');
    // SearXNG answers 403 Forbidden when `json` is not in search.formats, and its limiter answers 429.
    if (failure === 'json_disabled' || url.searchParams.get('format') !== 'json') return html(res, 403, '<!DOCTYPE html><title>403 Forbidden</title><h1>Forbidden</h1>');
    if (failure === 'rate_limited') return html(res, 429, 'Too Many Requests', retryHeaders());
    if (failure === 'server_error') return html(res, 500, 'Internal Server Error');
    const query = url.searchParams.get('q') ?? '';
    const reflected: FakeResult[] = fake.reflect ? [{ title: `Search: ${query}`, url: query.startsWith('http') ? query : `https://engine.example/search?q=${encodeURIComponent(query)}`, snippet: `You searched for ${query}` }] : [];
    json(res, 200, {
      query,
      number_of_results: 0,
      results: [...reflected, ...fake.results].map((result, index) => ({
        url: result.url,
        title: result.title,
        content: result.snippet,
        engine: 'duckduckgo',
        engines: ['duckduckgo'],
        positions: [index + 1],
        score: 1 / (index + 1),
        category: 'general',
        publishedDate: result.published ?? null,
      })),
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [],
      unresponsive_engines: [],
    });
  }

  function retryHeaders(): Record<string, string> {
    return retryAfter ? { 'retry-after': retryAfter } : {};
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const fake: FakeSearchServer = {
    kind,
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    results: [...SAMPLE_RESULTS],
    reflect: false,
    fail(next, after) {
      failure = next;
      retryAfter = after;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function html(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}
