import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { errorMessage } from '../errors.js';
import type { Result } from '../lib/result.js';
import type { Logger } from '../log.js';
import type { Answer, RequestContext, Route } from './app.js';
import { SESSION_COOKIE, type ConsoleAuth, type Session } from './auth.js';
import { cookieValue, hostAllowed, sameOrigin, setSecurityHeaders, tokensEqual, transportAllowed } from './security.js';

const DEFAULT_MAX_BODY = 64 * 1024;
/** Query parameters that look like a credential: a login token is never taken from a URL (nor anything else). */
const CREDENTIAL_PARAMS = /^(token|access_token|auth|key|api_key|session)$/i;

/** What the checks before a route need: the routes, the host names the console answers to, the sessions. */
export interface RequestChecks {
  routes: readonly Route[];
  hosts: ReadonlySet<string>;
  auth: ConsoleAuth;
  log: Logger;
  /** `http.public_url`: when https, a TLS proxy in front may reach the console from another machine. */
  publicUrl: string | undefined;
}

/**
 * The console's request handler. Every request passes, in order: TLS unless from this machine, the Host check (DNS rebinding), no credential in
 * the URL, the route, the session cookie (except the login page and the static files), and for a POST the Origin
 * check, a body size limit and the session's CSRF token. Contract: never throws; a failing route is a 500 page and
 * a log line.
 */
export function requestHandler(checks: RequestChecks): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  return async (request, response) => {
    setSecurityHeaders(response);
    try {
      const answer = await route(checks, request, response);
      write(request, response, answer);
    } catch (error) {
      checks.log.error({ err: error, path: new URL(request.url ?? '/', 'http://console').pathname }, 'console: request failed');
      if (!response.headersSent) text(response, 500, `Something went wrong on the daemon's side (${errorMessage(error).slice(0, 200)}); the details are in its log.`);
      else response.end();
    }
  };
}

/** The route's answer, or undefined when a check has already answered. */
async function route(checks: RequestChecks, request: IncomingMessage, response: ServerResponse): Promise<Answer | undefined> {
  if (!transportAllowed(request, checks.publicUrl)) {
    text(response, 403, 'The console is served without TLS only on this machine. Put a TLS proxy in front (Caddy, or `tailscale serve`: docs/web-console.md) and set http.public_url to its https address.');
    return undefined;
  }
  const url = checkedUrl(checks.hosts, request, response);
  if (!url) return undefined;
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const found = findRoute(checks.routes, method, url, response);
  if (!found) return undefined;
  const session = checks.auth.session(cookieValue(request.headers.cookie, SESSION_COOKIE));
  if (!found.public && !session) {
    if (method === 'GET' && !wantsData(request)) return { type: 'redirect', location: '/console/login' };
    text(response, 401, 'Not logged in: run `familiar console` and open the link it prints.');
    return undefined;
  }
  const context: RequestContext = { request, response, url, params: found.path.exec(url.pathname)?.slice(1) ?? [], session, form: undefined };
  if (method === 'POST' && !(await readPost(found, context, session))) return undefined;
  return found.handle(context);
}

/** The request's URL when its Host is one of the console's and it carries no credential; else answered. */
function checkedUrl(hosts: ReadonlySet<string>, request: IncomingMessage, response: ServerResponse): URL | undefined {
  if (!hostAllowed(request.headers.host, hosts)) {
    text(response, 403, `This console does not answer to the host "${String(request.headers.host ?? '').slice(0, 100)}". Open it at the address \`familiar console\` prints, or add the name to http.hosts.`);
    return undefined;
  }
  const url = new URL(request.url ?? '/', 'http://console');
  if ([...url.searchParams.keys()].some((key) => CREDENTIAL_PARAMS.test(key))) {
    text(response, 400, 'A token is never accepted in a URL. Open the login link that `familiar console` prints (its token is after the #, which the browser keeps to itself).');
    return undefined;
  }
  return url;
}

/** The route for the path and method; else answered (405 with the methods it takes, or 404). */
function findRoute(routes: readonly Route[], method: string | undefined, url: URL, response: ServerResponse): Route | undefined {
  const matching = routes.filter((candidate) => candidate.path.test(url.pathname));
  const found = matching.find((candidate) => candidate.method === method);
  if (found) return found;
  if (matching.length > 0) {
    response.setHeader('Allow', [...new Set(matching.map((candidate) => candidate.method))].join(', '));
    text(response, 405, 'That action needs another method.');
  } else text(response, 404, 'No such page in the console.');
  return undefined;
}

/** A POST's checks and its form into `context.form`; false when a check has answered. */
async function readPost(found: Route, context: RequestContext, session: Session | undefined): Promise<boolean> {
  const { request, response } = context;
  // A page of another site cannot post here: it cannot set Origin to this host, nor read the CSRF token.
  if (!sameOrigin(request)) {
    text(response, 403, 'Refused: this request did not come from the console\'s own pages (Origin check).');
    return false;
  }
  const body = await readBody(request, found.maxBody ?? DEFAULT_MAX_BODY);
  if (!body.success) {
    text(response, 413, body.error);
    return false;
  }
  context.form = await parseForm(request, body.value);
  if (!found.public) {
    const given = request.headers['x-csrf-token'];
    const token = typeof given === 'string' ? given : context.form?.get('_csrf');
    if (!session || typeof token !== 'string' || !tokensEqual(token, session.csrf)) {
      text(response, 403, 'Refused: the form is missing its security token or it is stale. Reload the page and try again.');
      return false;
    }
  }
  return true;
}

function write(request: IncomingMessage, response: ServerResponse, answer: Answer | undefined): void {
  if (!answer || answer.type === 'done' || response.headersSent) return;
  switch (answer.type) {
    case 'redirect':
      response.writeHead(303, { Location: answer.location, 'Cache-Control': 'no-store', 'Content-Length': 0 });
      response.end();
      return;
    case 'html':
      send(request, response, answer.status ?? 200, 'text/html; charset=utf-8', Buffer.from(answer.body.value), 'no-store');
      return;
    case 'json':
      send(request, response, answer.status ?? 200, 'application/json; charset=utf-8', Buffer.from(JSON.stringify(answer.body)), 'no-store');
      return;
    case 'file':
      if (answer.disposition) {
        response.setHeader('Content-Disposition', answer.disposition);
        // A downloaded file never runs as a page of the console, whatever it contains.
        response.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
      }
      send(request, response, 200, answer.contentType, answer.body, answer.cache ?? 'no-store');
      return;
  }
}

/** A script's request (fetch, an event stream) gets a status it can read, not a redirect to the login page. */
function wantsData(request: IncomingMessage): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes('text/event-stream') || accept.includes('application/json') || request.headers['x-requested-with'] !== undefined;
}

async function readBody(request: IncomingMessage, limit: number): Promise<Result<Buffer>> {
  const declared = Number(request.headers['content-length'] ?? 0);
  const tooLarge = `Too large: the console takes at most ${Math.round(limit / 1048576) || 1} MB here.`;
  if (declared > limit) {
    request.resume();
    return { success: false, error: tooLarge };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      request.resume();
      return { success: false, error: tooLarge };
    }
    chunks.push(chunk as Buffer);
  }
  return { success: true, value: Buffer.concat(chunks) };
}

/** Form bodies through the platform's own parsers (URLSearchParams, the fetch API's multipart reader). */
async function parseForm(request: IncomingMessage, body: Buffer): Promise<FormData | undefined> {
  const type = request.headers['content-type'] ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded') && !type.startsWith('multipart/form-data')) return undefined;
  try {
    return await new Request('http://console/', { method: 'POST', headers: { 'content-type': type }, body }).formData();
  } catch {
    return undefined;
  }
}

function send(request: IncomingMessage, response: ServerResponse, status: number, contentType: string, body: Buffer, cache: string): void {
  const gzip = body.length > 1400 && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? '')) && !contentType.startsWith('image/png');
  const payload = gzip ? gzipSync(body) : body;
  response.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': payload.length,
    'Cache-Control': cache,
    Vary: 'Accept-Encoding',
    ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
  });
  response.end(request.method === 'HEAD' ? undefined : payload);
}

function text(response: ServerResponse, status: number, message: string): void {
  const body = `${message}\n`;
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
  response.end(body);
}
