import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from '../log.js';

export interface OpsHandlers {
  /** Liveness: the process answers. */
  health(): { ok: boolean };
  /** Readiness: dependencies answer and modules started; `reasons` say what is missing. */
  ready(): { ok: boolean; reasons: string[] };
  status(): unknown;
}

/** Pages served under a path prefix (the console): they answer every method and do their own checks. */
export interface Mount {
  prefix: string;
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** `/` redirects here. */
  home?: boolean;
}

export interface OpsServerOptions {
  handlers: OpsHandlers;
  /** When non-empty, `/readyz` and `/status` need `Authorization: Bearer <token>`. */
  token: string;
  log: Logger;
  /** Read on every request: mounts added before the server listens are served. */
  mounts?: readonly Mount[];
}

/** Query parameters that look like a credential: refused so a token never sits in a URL (and in proxy logs). */
const CREDENTIAL_PARAMS = /^(token|access_token|auth|key|api_key)$/i;

/**
 * The operations endpoint: `GET /healthz`, `/readyz`, `/status`, JSON answers. `/healthz` is never
 * behind the token, so a probe without it can still tell the process is alive; it reveals nothing else.
 * Contract: the handler never throws; an internal error is a 500 with a JSON body.
 */
export function createOpsServer(options: OpsServerOptions): Server {
  const { handlers, log } = options;
  const expected = options.token ? digest(options.token) : undefined;
  const failed = (request: IncomingMessage, response: ServerResponse, error: unknown) => {
    log.error({ err: error, path: new URL(request.url ?? '/', 'http://localhost').pathname }, 'http: request failed');
    if (!response.headersSent) send(response, 500, { error: 'internal error; see the daemon log' });
    else response.destroy();
  };
  return createServer((request, response) => {
    try {
      const mount = mountFor(request);
      if (mount) mount.handle(request, response).catch((error: unknown) => failed(request, response, error));
      else route(request, response);
    } catch (error) {
      failed(request, response, error);
    }
  });

  function mountFor(request: IncomingMessage): Mount | undefined {
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    return options.mounts?.find((mount) => pathname === mount.prefix || pathname.startsWith(`${mount.prefix}/`));
  }

  function route(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const home = url.pathname === '/' ? options.mounts?.find((mount) => mount.home) : undefined;
    if (home && (request.method === 'GET' || request.method === 'HEAD')) {
      response.writeHead(303, { Location: `${home.prefix}/`, 'Cache-Control': 'no-store', 'Content-Length': 0 });
      response.end();
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('Allow', 'GET, HEAD');
      send(response, 405, { error: 'use GET' });
      return;
    }
    if ([...url.searchParams.keys()].some((key) => CREDENTIAL_PARAMS.test(key))) {
      send(response, 400, { error: 'send the token in the Authorization header (Bearer), never in the URL' });
      return;
    }
    if (url.pathname === '/healthz') {
      const health = handlers.health();
      send(response, health.ok ? 200 : 503, { status: health.ok ? 'ok' : 'failing' });
      return;
    }
    if (url.pathname !== '/readyz' && url.pathname !== '/status') {
      send(response, 404, { error: 'not found; try /healthz, /readyz or /status' });
      return;
    }
    if (expected && !authorized(request.headers.authorization, expected)) {
      response.setHeader('WWW-Authenticate', 'Bearer');
      send(response, 401, { error: 'missing or wrong token: send Authorization: Bearer <http.token>' });
      return;
    }
    if (url.pathname === '/readyz') {
      const ready = handlers.ready();
      send(response, ready.ok ? 200 : 503, ready.ok ? { status: 'ready' } : { status: 'not ready', reasons: ready.reasons });
      return;
    }
    send(response, 200, handlers.status());
  }
}

function authorized(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) return false;
  // Comparing digests keeps the comparison constant-time whatever the length of the guess.
  return timingSafeEqual(digest(match[1]), expected);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`;
  response.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  response.end(response.req.method === 'HEAD' ? undefined : text);
}
