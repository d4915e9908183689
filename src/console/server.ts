import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { errorMessage } from '../errors.js';
import type { Result } from '../lib/result.js';
import { ConsoleApp, type Answer, type RequestContext, type Route } from './app.js';
import { loadAssets } from './assets.js';
import { ConsoleAuth, SESSION_COOKIE } from './auth.js';
import { ConsoleChat } from './chat.js';
import { EventHub } from './events.js';
import { ConsoleItems } from './items.js';
import { activityRoutes } from './pages/activity.js';
import { approvalRoutes, consolePrompter } from './pages/approvals.js';
import { chatRoutes } from './pages/chat.js';
import { healthRoutes } from './pages/health.js';
import { jobRoutes } from './pages/jobs.js';
import { loginRoutes } from './pages/login.js';
import { memoryRoutes } from './pages/memory.js';
import { pairingRoutes } from './pages/pairing.js';
import { skillRoutes } from './pages/skills.js';
import { usageRoutes } from './pages/usage.js';
import { allowedHostNames, cookieValue, hostAllowed, sameOrigin, setSecurityHeaders, tokensEqual } from './security.js';
import { CONSOLE_CHANNEL, type ConsoleDeps } from './types.js';

const DEFAULT_MAX_BODY = 64 * 1024;
/** Query parameters that look like a credential: a login token is never taken from a URL (nor anything else). */
const CREDENTIAL_PARAMS = /^(token|access_token|auth|key|api_key|session)$/i;

export interface ConsoleServer {
  app: ConsoleApp;
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  start(): void;
  stop(): void;
}

/**
 * The console: routes behind the checks in security.ts, on the HTTP endpoint under /console. Every request
 * passes, in order: the Host check (DNS rebinding), no credential in the URL, the route, the session cookie
 * (except the login page and the static files), and for a POST the Origin check, a body size limit and the
 * session's CSRF token. Contract: `handle` never throws; a failing route is a 500 page and a log line.
 */
export function createConsoleServer(deps: ConsoleDeps): ConsoleServer {
  const log = deps.log.child({ component: 'console' });
  const events = new EventHub();
  const items = new ConsoleItems(deps.db);
  const auth = new ConsoleAuth(deps.db, deps.now ? { now: deps.now } : {});
  const chat = new ConsoleChat({
    inbound: deps.inbound, conversations: deps.conversations, items, events, secrets: deps.secrets, log, transcribe: deps.transcribe,
  });
  const app = new ConsoleApp(deps, { auth, events, chat, items, assets: loadAssets() });
  const routes: Route[] = [
    ...loginRoutes(app), ...chatRoutes(app), ...approvalRoutes(app), ...activityRoutes(app), ...usageRoutes(app),
    ...jobRoutes(app), ...skillRoutes(app), ...pairingRoutes(app), ...memoryRoutes(app), ...healthRoutes(app),
  ];
  const listen = deps.config.http.listen ?? '';
  const hosts = allowedHostNames({
    listenHost: listenHostOf(listen), hosts: deps.config.http.hosts, publicUrl: deps.config.http.public_url,
  });
  const prompter = consolePrompter();
  let unsubscribe: Array<() => void> = [];
  let sweeper: NodeJS.Timeout | undefined;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    setSecurityHeaders(response);
    try {
      const answer = await route(request, response);
      write(request, response, answer);
    } catch (error) {
      log.error({ err: error, path: new URL(request.url ?? '/', 'http://console').pathname }, 'console: request failed');
      if (!response.headersSent) text(response, 500, `Something went wrong on the daemon's side (${errorMessage(error).slice(0, 200)}); the details are in its log.`);
      else response.end();
    }
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<Answer | undefined> {
    if (!hostAllowed(request.headers.host, hosts)) {
      text(response, 403, `This console does not answer to the host "${String(request.headers.host ?? '').slice(0, 100)}". Open it at the address \`familiar console\` prints, or add the name to http.hosts.`);
      return undefined;
    }
    const url = new URL(request.url ?? '/', 'http://console');
    if ([...url.searchParams.keys()].some((key) => CREDENTIAL_PARAMS.test(key))) {
      text(response, 400, 'A token is never accepted in a URL. Open the login link that `familiar console` prints (its token is after the #, which the browser keeps to itself).');
      return undefined;
    }
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const matching = routes.filter((candidate) => candidate.path.test(url.pathname));
    const found = matching.find((candidate) => candidate.method === method);
    if (!found) {
      if (matching.length > 0) {
        response.setHeader('Allow', [...new Set(matching.map((candidate) => candidate.method))].join(', '));
        text(response, 405, 'That action needs another method.');
      } else text(response, 404, 'No such page in the console.');
      return undefined;
    }
    const session = auth.session(cookieValue(request.headers.cookie, SESSION_COOKIE));
    if (!found.public && !session) {
      if (method === 'GET' && !wantsData(request)) return { type: 'redirect', location: '/console/login' };
      text(response, 401, 'Not logged in: run `familiar console` and open the link it prints.');
      return undefined;
    }
    const context: RequestContext = { request, response, url, params: found.path.exec(url.pathname)?.slice(1) ?? [], session, form: undefined };
    if (method === 'POST') {
      // A page of another site cannot post here: it cannot set Origin to this host, nor read the CSRF token.
      if (!sameOrigin(request)) {
        text(response, 403, 'Refused: this request did not come from the console\'s own pages (Origin check).');
        return undefined;
      }
      const body = await readBody(request, found.maxBody ?? DEFAULT_MAX_BODY);
      if (!body.success) {
        text(response, 413, body.error);
        return undefined;
      }
      context.form = await parseForm(request, body.value);
      if (!found.public) {
        const given = request.headers['x-csrf-token'];
        const token = typeof given === 'string' ? given : context.form?.get('_csrf');
        if (!session || typeof token !== 'string' || !tokensEqual(token, session.csrf)) {
          text(response, 403, 'Refused: the form is missing its security token or it is stale. Reload the page and try again.');
          return undefined;
        }
      }
    }
    return found.handle(context);
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

  return {
    app,
    handle,
    start() {
      auth.sweep();
      sweeper = setInterval(() => auth.sweep(), 3600_000);
      sweeper.unref();
      deps.hub.register(chat);
      deps.approvals.registerPrompter(CONSOLE_CHANNEL, prompter);
      unsubscribe = [
        deps.approvals.questions.subscribe((event) => events.publish('approvals', { type: event.type, id: event.question.id, waiting: deps.approvals.questions.list().length })),
        ...(deps.logs ? [deps.logs.subscribe((line) => events.publish('logs', { line: app.redact(line) }))] : []),
      ];
    },
    stop() {
      if (sweeper) clearInterval(sweeper);
      for (const stop of unsubscribe) stop();
      unsubscribe = [];
      deps.approvals.unregisterPrompter(CONSOLE_CHANNEL, prompter);
      deps.hub.unregister(CONSOLE_CHANNEL);
      events.close();
    },
  };
}

function listenHostOf(listen: string): string {
  const text = listen.trim();
  if (/^\d+$/.test(text)) return '127.0.0.1';
  if (text.startsWith('[')) return text.slice(1, text.indexOf(']'));
  return text.slice(0, text.lastIndexOf(':'));
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
