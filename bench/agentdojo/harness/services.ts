// The outside world of a suite as local HTTP servers, each on its own port (its own origin, as the real sites
// would be): the web (the slack suite's pages and the attacker's site, which records what is posted to it) at
// /<address>, and the person's services (bank, team chat, travel agency) at /<function>, each behind its own bearer
// token as a real API would be.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SERVICES, serviceState, type ServiceState } from './service-functions.js';

export interface ServiceCall {
  service: string;
  name: string;
  args: Record<string, unknown>;
  success: boolean;
}

export type Area = 'web' | 'bank' | 'slack' | 'travel';

export interface Services {
  /** The base URL of each area. */
  urls: Readonly<Record<Area, string>>;
  /** The bearer token of each service (the person's credentials, kept in the http presets). */
  tokens: Readonly<Record<string, string>>;
  state: ServiceState;
  /** Every service call that reached the server, in order (the slack suite's trace-based checks read it). */
  calls: ServiceCall[];
  reset(environment: Record<string, unknown>): void;
  close(): Promise<void>;
}

const TOKENS = { bank: 'bank-token-emma-0042', slack: 'xoxb-team-bot-7781', travel: 'travel-token-emma-3310' } as const;

/** `www.example.com/path` from a URL or a bare address, as AgentDojo's web keys its pages. */
export function siteKey(url: string): string {
  return url.replace(/^https?:\/\//, '');
}

export async function startServices(): Promise<Services> {
  const servers: Server[] = [];
  const urls = {} as Record<Area, string>;
  const services: Services = {
    urls,
    tokens: TOKENS,
    state: { web: { content: new Map(), requests: [] } },
    calls: [],
    reset(environment) {
      services.state = serviceState(environment);
      services.calls = [];
    },
    close: async () => {
      for (const server of servers) server.closeAllConnections();
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    },
  };
  for (const area of ['web', 'bank', 'slack', 'travel'] as const) {
    const server: Server = createServer((req, res) => {
      void handle(services, area, req, res).catch((error: unknown) => send(res, 500, { error: String(error) }));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    urls[area] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  return services;
}

async function handle(services: Services, area: Area, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  const url = new URL(req.url ?? '/', 'http://localhost');
  const rest = url.pathname.split('/').slice(1);
  if (area === 'web') return web(services.state, req.method ?? 'GET', decodeURIComponent(rest.join('/')) + url.search, body, res);
  const functions = SERVICES.get(area);
  if (!functions) return send(res, 404, { error: `no service ${area}` });
  const token = (TOKENS as Record<string, string>)[area];
  if (req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { error: 'missing or wrong bearer token' });
  const name = rest.join('/');
  const fn = functions.get(name);
  if (!fn) return send(res, 404, { error: `no function ${name}; functions: ${[...functions.keys()].join(', ')}` });
  let args: Record<string, unknown>;
  try {
    args = req.method === 'GET' ? Object.fromEntries([...url.searchParams].map(([key, value]) => [key, queryValue(value)])) : body.trim() === '' ? {} : (JSON.parse(body) as Record<string, unknown>);
  } catch {
    return send(res, 400, { error: 'the body must be a JSON object' });
  }
  try {
    const result = fn(services.state, args);
    services.calls.push({ service: area, name, args, success: true });
    send(res, 200, result);
  } catch (error) {
    services.calls.push({ service: area, name, args, success: false });
    send(res, 400, { error: error instanceof Error ? error.message : String(error) });
  }
}

/** A page is served as HTML with its text escaped, so a page's `<INFORMATION>` reads as text, as AgentDojo returns it. */
function web(state: ServiceState, method: string, key: string, body: string, res: ServerResponse): void {
  state.web.requests.push(key);
  if (method === 'POST' || method === 'PUT') {
    state.web.content.set(key, body);
    return send(res, 200, { message: `Posted to ${key}.` });
  }
  const page = state.web.content.get(key);
  res.setHeader('content-type', 'text/html; charset=utf-8');
  if (page === undefined) {
    res.statusCode = 404;
    res.end('<html><body><p>404 Not Found</p></body></html>');
    return;
  }
  res.end(`<html><head><title>${escapeHtml(key)}</title></head><body><p>${escapeHtml(page).replace(/\n/g, '<br>')}</p></body></html>`);
}

/** Query values as the model would write them: a JSON list or number stays one; anything else is text. */
function queryValue(value: string): unknown {
  if (/^(\[.*\]|-?\d+(\.\d+)?|true|false)$/s.test(value.trim())) {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  }
  return value;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function send(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
