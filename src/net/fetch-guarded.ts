// node:dns, node:http(s) and node:zlib load on the first request (`await import`): a daemon that fetches nothing at
// start does not pay for them there.
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { IncomingHttpHeaders, IncomingMessage, RequestOptions } from 'node:http';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { bareAddress, checkDestination, type AddressRules } from './ssrf.js';

/**
 * One HTTP exchange with the SSRF guard applied where it cannot be dodged: the address a name resolves to is
 * checked inside the socket's own DNS lookup (so what is checked is what is connected to), IP literals before
 * connecting, and every redirect hop again. Redirects are followed by hand so each hop's headers are decided
 * afresh: scoped (preset) headers go only to their own origin.
 * Contract: resolves with the response or rejects with an HttpFetchError.
 */

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export type HttpFetchErrorKind = 'blocked' | 'timeout' | 'network' | 'redirect' | 'aborted' | 'invalid';

export class HttpFetchError extends Error {
  readonly kind: HttpFetchErrorKind;
  /** The URL of the hop that failed. */
  readonly url: string;
  constructor(kind: HttpFetchErrorKind, url: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HttpFetchError';
    this.kind = kind;
    this.url = url;
  }
}

export interface GuardedRequest {
  method: string;
  url: URL;
  /** Headers anyone may see (the model's); credentials among them are dropped when a redirect leaves the origin. */
  headers?: Readonly<Record<string, string>>;
  body?: Buffer;
  /** Headers for one origin only (a preset's secrets): sent on every hop to that origin, never to another. */
  scoped?: { origin: string; headers: Readonly<Record<string, string>> };
}

export interface GuardedOptions {
  rules: AddressRules;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  signal?: AbortSignal;
  /** Name resolution (tests inject one); default: the system resolver, every address. */
  resolve?: Resolver;
  userAgent?: string;
}

export interface GuardedResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  /** The final URL, after redirects. */
  url: URL;
  /** Every URL that redirected, in order. */
  redirects: URL[];
  body: Buffer;
  /** The body was longer than maxBytes and was cut there. */
  truncated: boolean;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// Credentials a caller may pass in plain headers; a browser drops these on a cross-origin redirect too.
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);
// Set by us, or meaningless/dangerous when chosen by the caller.
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'accept-encoding']);

export const defaultResolver: Resolver = async (hostname) => {
  const { lookup } = await import('node:dns');
  return new Promise((resolve, reject) => {
    lookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });
};

export async function fetchGuarded(request: GuardedRequest, options: GuardedOptions): Promise<GuardedResponse> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  const onAbort = () => controller.abort();
  if (options.signal?.aborted) controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const firstOrigin = request.url.origin;
  const redirects: URL[] = [];
  let method = request.method.toUpperCase();
  let url = request.url;
  let body = request.body;
  try {
    for (;;) {
      const headers = hopHeaders(request, url, firstOrigin, body, options.userAgent);
      let response: IncomingMessage;
      try {
        response = await sendOnce({ method, url, headers, body }, options, controller.signal);
      } catch (error) {
        const failure = asFetchError(error, url, { timedOut, timeoutMs: options.timeoutMs });
        if (redirects.length === 0) throw failure;
        throw new HttpFetchError(failure.kind, failure.url, `redirected to ${url.href}: ${failure.message}`, { cause: failure.cause });
      }
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (REDIRECTS.has(status) && location) {
        response.resume();
        if (redirects.length >= options.maxRedirects) {
          throw new HttpFetchError('redirect', url.href, `more than ${options.maxRedirects} redirects (tools.http.max_redirects); last one pointed to ${location}`);
        }
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new HttpFetchError('redirect', url.href, `redirected to an invalid URL: ${location}`);
        }
        if (next.protocol !== 'http:' && next.protocol !== 'https:') {
          throw new HttpFetchError('redirect', url.href, `redirected to a ${next.protocol} URL, which is not followed`);
        }
        redirects.push(url);
        // 303 always, and 301/302 after a POST, turn into a GET without a body (what browsers do).
        if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        url = next;
        continue;
      }
      try {
        const { body: content, truncated } = await readBody(response, method, options.maxBytes);
        return { status, statusText: response.statusMessage ?? '', headers: response.headers, url, redirects, body: content, truncated };
      } catch (error) {
        throw asFetchError(error, url, { timedOut, timeoutMs: options.timeoutMs });
      }
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

function hopHeaders(request: GuardedRequest, url: URL, firstOrigin: string, body: Buffer | undefined, userAgent: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  const sameOrigin = url.origin === firstOrigin;
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    const key = name.toLowerCase();
    if (RESERVED_HEADERS.has(key)) continue;
    if (!sameOrigin && CREDENTIAL_HEADERS.has(key)) continue;
    headers[key] = value;
  }
  if (request.scoped && url.origin === request.scoped.origin) {
    for (const [name, value] of Object.entries(request.scoped.headers)) headers[name.toLowerCase()] = value;
  }
  headers['user-agent'] ??= userAgent ?? 'Familiar/0.1 (+http tool)';
  headers['accept-encoding'] = 'gzip, deflate, br';
  if (body) headers['content-length'] = String(body.length);
  return headers;
}

async function sendOnce(
  hop: { method: string; url: URL; headers: Record<string, string>; body: Buffer | undefined },
  options: GuardedOptions,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const { url } = hop;
  const host = bareAddress(url.hostname);
  if (isIP(host) !== 0) {
    // The socket skips DNS for an address literal, so the guard runs here instead.
    const verdict = checkDestination(url.hostname, host, options.rules, url.origin);
    if (verdict.blocked) return Promise.reject(blockedError(url, host, verdict.reason));
  }
  const resolve = options.resolve ?? defaultResolver;
  const lookup = (hostname: string, lookupOptions: LookupOptions, callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    resolve(hostname).then(
      (found) => {
        const wanted = lookupOptions.family === 4 || lookupOptions.family === 6 ? found.filter((entry) => entry.family === lookupOptions.family) : found;
        if (wanted.length === 0) {
          callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
          return;
        }
        // Every address must pass, not just the first: a name with one public and one private record must
        // not let the connection fall through to the private one.
        for (const entry of wanted) {
          const verdict = checkDestination(url.hostname, entry.address, options.rules, url.origin);
          if (verdict.blocked) {
            callback(blockedError(url, entry.address, verdict.reason), '', 0);
            return;
          }
        }
        if (lookupOptions.all) callback(null, wanted);
        else callback(null, wanted[0]?.address ?? '', wanted[0]?.family ?? 4);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
  const requestOptions: RequestOptions = {
    method: hop.method,
    protocol: url.protocol,
    hostname: host,
    port: url.port || undefined,
    path: `${url.pathname}${url.search}`,
    headers: hop.headers,
    // A fresh connection per hop: a pooled socket would skip the lookup, and with it the guard.
    agent: false,
    lookup,
    signal,
  };
  if (url.username || url.password) requestOptions.auth = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  const send = url.protocol === 'https:' ? (await import('node:https')).request : (await import('node:http')).request;
  return new Promise((resolvePromise, reject) => {
    let request;
    try {
      request = send(requestOptions, resolvePromise);
    } catch (error) {
      // Invalid header names or values throw synchronously.
      reject(new HttpFetchError('invalid', url.href, (error as Error).message, { cause: error }));
      return;
    }
    request.on('error', reject);
    request.end(hop.body);
  });
}

async function readBody(response: IncomingMessage, method: string, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  if (method === 'HEAD' || response.statusCode === 204 || response.statusCode === 304) {
    response.resume();
    return { body: Buffer.alloc(0), truncated: false };
  }
  // The cap counts decoded bytes, so a small compressed bomb cannot blow past it.
  let stream: Readable = response;
  const encoding = String(response.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (['gzip', 'x-gzip', 'deflate', 'br'].includes(encoding)) {
    const zlib = await import('node:zlib');
    if (encoding === 'br') stream = response.pipe(zlib.createBrotliDecompress());
    else stream = response.pipe(encoding === 'deflate' ? zlib.createInflate() : zlib.createGunzip());
  }
  const chunks: Buffer[] = [];
  let total = 0;
  let truncated = false;
  try {
    for await (const chunk of stream) {
      const buffer = chunk as Buffer;
      if (total + buffer.length > maxBytes) {
        chunks.push(buffer.subarray(0, maxBytes - total));
        total = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(buffer);
      total += buffer.length;
    }
  } finally {
    if (truncated) response.destroy();
    if (stream !== response) stream.destroy();
  }
  return { body: Buffer.concat(chunks, total), truncated };
}

function blockedError(url: URL, address: string, reason: string): HttpFetchError {
  const named = bareAddress(url.hostname) === address ? address : `${url.hostname} (${address})`;
  return new HttpFetchError('blocked', url.href, `${named} is ${reason}; requests there are blocked`);
}

function asFetchError(error: unknown, url: URL, state: { timedOut: boolean; timeoutMs: number }): HttpFetchError {
  if (error instanceof HttpFetchError) return error;
  if (state.timedOut) return new HttpFetchError('timeout', url.href, `no complete answer within ${state.timeoutMs / 1000} s (tools.http.timeout_s)`, { cause: error });
  const code = (error as NodeJS.ErrnoException).code;
  if ((error as Error).name === 'AbortError' || code === 'ABORT_ERR') return new HttpFetchError('aborted', url.href, 'the request was cancelled', { cause: error });
  const detail = code === 'ENOTFOUND' ? `the host ${url.hostname} was not found`
    : code === 'ECONNREFUSED' ? `${url.host} refused the connection`
      : code === 'ECONNRESET' ? `${url.host} closed the connection`
        : (error as Error).message;
  return new HttpFetchError('network', url.href, detail, { cause: error });
}
