// The console over HTTP for tests: a daemon with http.listen on a free port, and a client that logs in with a
// one-time token (as `familiar console` makes it) and then sends the session cookie, the Origin and the CSRF token
// like the console's own pages do.
import type { Daemon } from '../../src/daemon.js';
import { createLoginToken, SESSION_COOKIE } from '../../src/console/auth.js';
import type { FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, type TestApp } from './app.js';

export interface ConsoleClient {
  base: string;
  cookie: string;
  csrf: string;
  get(path: string, init?: RequestInit): Promise<Response>;
  /** A form post from the console's pages: Origin and CSRF token included unless overridden. */
  post(path: string, fields: Record<string, string> | FormData, headers?: Record<string, string>): Promise<Response>;
  text(path: string): Promise<string>;
}

export interface ConsoleApp extends TestApp {
  base: string;
  login(): Promise<ConsoleClient>;
}

/** The daemon (with the console on) wired to the fake LLM, started. */
export async function startConsoleApp(fake: FakeOpenAI, overrides: Record<string, unknown> = {}, options: Parameters<typeof makeTestApp>[3] = {}): Promise<ConsoleApp> {
  const { http, ...rest } = overrides as { http?: Record<string, unknown> };
  const test = await makeTestApp(fake, { http: { listen: '127.0.0.1:0', ...http }, ...rest }, undefined, options);
  await test.app.start();
  const base = baseOf(test.app);
  return { ...test, base, login: () => login(test.app, base) };
}

export function baseOf(app: Daemon): string {
  const address = app.httpAddress();
  if (!address) throw new Error('the http part is not listening');
  return `http://127.0.0.1:${address.port}`;
}

/** Logs in with a fresh one-time token and returns a client holding the session. */
export async function login(app: Daemon, base: string): Promise<ConsoleClient> {
  const { token } = createLoginToken(app.db);
  const response = await fetch(`${base}/console/login`, {
    method: 'POST', redirect: 'manual',
    headers: { Origin: base, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams({ token }),
  });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${await response.text()}`);
  const setCookie = response.headers.get('set-cookie') ?? '';
  const cookie = new RegExp(`${SESSION_COOKIE}=([^;]+)`).exec(setCookie)?.[1];
  if (!cookie) throw new Error(`no session cookie in ${setCookie}`);
  return clientFor(base, `${SESSION_COOKIE}=${cookie}`);
}

export async function clientFor(base: string, cookie: string): Promise<ConsoleClient> {
  const page = await (await fetch(`${base}/console/health`, { headers: { Cookie: cookie } })).text();
  const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(page)?.[1] ?? '';
  const client: ConsoleClient = {
    base, cookie, csrf,
    get: (path, init = {}) => fetch(`${base}${path}`, { redirect: 'manual', ...init, headers: { Cookie: cookie, ...(init.headers as Record<string, string> | undefined) } }),
    post(path, fields, headers = {}) {
      let body: FormData | URLSearchParams;
      if (fields instanceof FormData) {
        body = fields;
        if (!body.has('_csrf')) body.set('_csrf', csrf);
      } else body = new URLSearchParams({ _csrf: csrf, ...fields });
      return fetch(`${base}${path}`, { method: 'POST', redirect: 'manual', body, headers: { Cookie: cookie, Origin: base, ...headers } });
    },
    text: async (path) => (await client.get(path)).text(),
  };
  return client;
}

export interface EventStream {
  /** Every event read so far. */
  events: Array<{ topic: string; data: Record<string, unknown> }>;
  /** Resolves with the first event (read so far or to come) that `predicate` accepts. */
  until(predicate: (event: { topic: string; data: Record<string, unknown> }) => boolean, timeoutMs?: number): Promise<{ topic: string; data: Record<string, unknown> }>;
  close(): void;
}

/** Opens the console's event stream (resolves once the daemon accepted it, so nothing sent after is missed). */
export async function openEvents(client: ConsoleClient, topics: string): Promise<EventStream> {
  const controller = new AbortController();
  const response = await client.get(`/console/events?topics=${topics}`, { signal: controller.signal, headers: { Accept: 'text/event-stream' } });
  if (response.status !== 200 || !response.body) throw new Error(`event stream refused: ${response.status}`);
  const reader = response.body.getReader();
  const events: EventStream['events'] = [];
  const waiters = new Set<() => void>();
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const topic = /^event: (.+)$/m.exec(frame)?.[1];
          const data = /^data: (.+)$/m.exec(frame)?.[1];
          if (!topic || !data) continue;
          events.push({ topic, data: JSON.parse(data) as Record<string, unknown> });
          for (const wake of waiters) wake();
        }
      }
    } catch {
      // closed
    }
  })();
  return {
    events,
    async until(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.find(predicate);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching event within ${timeoutMs} ms; got: ${JSON.stringify(events).slice(0, 3000)}`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            resolve();
          };
          waiters.add(wake);
          setTimeout(wake, 100);
        });
      }
    },
    close: () => controller.abort(),
  };
}
