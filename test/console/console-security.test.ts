// The console's security invariants, over real HTTP against the daemon with the console on: DNS rebinding (Host),
// the one-time login token (never in a URL, once, hashed at rest, expiring), the session cookie's flags, Origin and
// CSRF on every state-changing request, a strict CSP with no inline script, no way to change which code runs, and
// secrets never sent to the page.
import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConsoleAuth, createLoginToken, digest, LOGIN_TTL_MS } from '../../src/console/auth.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { openEvents, startConsoleApp, type ConsoleApp } from '../helpers/console.js';

const SECTIONS = ['/console/chat', '/console/approvals', '/console/activity', '/console/turns', '/console/usage', '/console/jobs', '/console/skills', '/console/pairing', '/console/memory', '/console/health'];

/** A request with a Host header of our choosing (fetch sets Host itself). */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('console security', () => {
  let fake: FakeOpenAI;
  let apps: ConsoleApp[];

  beforeEach(async () => {
    fake = await startOpenAiServer();
    apps = [];
  });

  afterEach(async () => {
    for (const app of apps) await app.app.close(0).catch(() => undefined);
    await fake.close();
  });

  async function start(overrides: Record<string, unknown> = {}): Promise<ConsoleApp> {
    const app = await startConsoleApp(fake, overrides);
    apps.push(app);
    return app;
  }

  it('refuses a Host it does not answer to (DNS rebinding), answers loopback names and configured http.hosts', async () => {
    const app = await start({ http: { hosts: ['familiar.home.arpa'] } });
    const client = await app.login();
    const port = new URL(app.base).port;
    for (const host of [`attacker.example:${port}`, 'attacker.example', `localhost.attacker.example:${port}`, `127.0.0.1.nip.io:${port}`]) {
      const answer = await rawGet(app.base, '/console/chat', { Host: host, Cookie: client.cookie });
      expect(answer.status, host).toBe(403);
      expect(answer.body).not.toContain('csrf-token');
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `familiar.home.arpa:${port}`]) {
      expect((await rawGet(app.base, '/console/chat', { Host: host, Cookie: client.cookie })).status, host).toBe(200);
    }
    // The daemon's own endpoints are unchanged by the console's Host check.
    expect((await rawGet(app.base, '/healthz', { Host: `attacker.example:${port}` })).status).toBe(200);
  });

  it('a login token works once, before it expires, is stored only as a hash, and is never taken from a URL', async () => {
    const app = await start();
    const { token } = createLoginToken(app.app.db);
    const rows = app.app.db.prepare('SELECT token_hash FROM console_logins').all() as Array<{ token_hash: string }>;
    expect(rows.map((row) => row.token_hash)).toContain(digest(token));
    expect(JSON.stringify(rows)).not.toContain(token);

    // In the query string: refused outright, even though the token is valid, and it stays unspent.
    for (const path of [`/console/login?token=${token}`, `/console/chat?token=${token}`, `/console/?access_token=${token}`]) {
      const answer = await fetch(`${app.base}${path}`, { redirect: 'manual' });
      expect(answer.status, path).toBe(400);
      expect(answer.headers.get('set-cookie')).toBeNull();
    }

    const post = (value: string, origin = app.base) => fetch(`${app.base}/console/login`, {
      method: 'POST', redirect: 'manual', headers: { Origin: origin, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }, body: new URLSearchParams({ token: value }),
    });
    // A login posted from another site is refused before the token is looked at (login CSRF).
    expect((await post(token, 'https://attacker.example')).status).toBe(403);
    const first = await post(token);
    expect(first.status).toBe(200);
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^familiar_console=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/console');
    // The session id is not stored either.
    const sessionId = /familiar_console=([^;]+)/.exec(cookie)?.[1] ?? '';
    expect(JSON.stringify(app.app.db.prepare('SELECT * FROM console_sessions').all())).not.toContain(sessionId);

    const again = await post(token);
    expect(again.status).toBe(401);
    expect(again.headers.get('set-cookie')).toBeNull();
    expect((await post('x'.repeat(43))).status).toBe(401);

    // Expired: a token older than its ten minutes does not open a session.
    const old = createLoginToken(app.app.db, Date.now() - LOGIN_TTL_MS - 1000);
    expect(new ConsoleAuth(app.app.db).exchange(old.token, undefined).success).toBe(false);
    expect((await post(old.token)).status).toBe(401);
  });

  it('without a session: pages lead to the login page, data and actions are refused', async () => {
    const app = await start();
    for (const path of SECTIONS) {
      const answer = await fetch(`${app.base}${path}`, { redirect: 'manual' });
      expect(answer.status, path).toBe(303);
      expect(answer.headers.get('location')).toBe('/console/login');
    }
    expect((await fetch(`${app.base}/console/events?topics=chat`, { headers: { Accept: 'text/event-stream' } })).status).toBe(401);
    const forged = await fetch(`${app.base}/console/chat/send`, { method: 'POST', headers: { Origin: app.base, Cookie: 'familiar_console=' + 'a'.repeat(43) }, body: new URLSearchParams({ text: 'hi' }) });
    expect(forged.status).toBe(401);
    expect(fake.requests).toHaveLength(0);
  });

  it('every state-changing request needs its own Origin and the session\'s CSRF token', async () => {
    const app = await start({ scheduler: { jobs: [{ id: 'brief', when: 'every day at 8', prompt: 'Brief me.' }] } });
    const client = await app.login();
    const enabled = () => (app.app.db.prepare("SELECT enabled FROM jobs WHERE id = 'brief'").get() as { enabled: number }).enabled;
    const attempts: Array<[string, Record<string, string>, Record<string, string>]> = [
      ['no Origin', { _csrf: client.csrf }, { Origin: '' }],
      ['another site', { _csrf: client.csrf }, { Origin: 'https://attacker.example' }],
      ['same host, other port', { _csrf: client.csrf }, { Origin: 'http://127.0.0.1:1' }],
      ['cross-site fetch', { _csrf: client.csrf }, { 'Sec-Fetch-Site': 'cross-site' }],
      ['no CSRF token', { _csrf: '' }, {}],
      ['a wrong CSRF token', { _csrf: 'A'.repeat(client.csrf.length) }, {}],
    ];
    for (const [what, fields, headers] of attempts) {
      const answer = await client.post('/console/jobs/brief/pause', fields, headers);
      expect(answer.status, what).toBe(403);
    }
    expect(enabled()).toBe(1);
    // Another session's CSRF token does not fit this session.
    const other = await app.login();
    expect((await client.post('/console/jobs/brief/pause', { _csrf: other.csrf })).status).toBe(403);
    expect(enabled()).toBe(1);
    const allowed = await client.post('/console/jobs/brief/pause', {});
    expect(allowed.status).toBe(303);
    expect(enabled()).toBe(0);
  });

  it('every answer carries a strict CSP, and no page has inline script or event handlers', async () => {
    const app = await start();
    const client = await app.login();
    const login = await fetch(`${app.base}/console/login`);
    for (const response of [login, ...(await Promise.all(SECTIONS.map((path) => client.get(path))))]) {
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      const body = await response.text();
      for (const script of body.match(/<script\b[^>]*>/g) ?? []) expect(script).toMatch(/\ssrc="\/console\/assets\//);
      expect(body).not.toMatch(/<script\b[^>]*>[^<\s]/);
      expect(body).not.toMatch(/\son[a-z]+\s*=/i);
      expect(body).not.toMatch(/javascript:/i);
    }
  });

  it('a secret split across the pieces of a streamed answer never reaches the page, not even in part', async () => {
    const app = await start();
    const client = await app.login();
    const secret = fake.apiKey;
    const cut = Math.floor(secret.length / 2);
    const stream = await openEvents(client, 'chat');
    const opening = 'Here is a long enough opening sentence, so that the stream has something to show early on. Your key is ';
    fake.script({ content: `${opening}${secret} — keep it safe.`, chunks: [opening, secret.slice(0, cut), secret.slice(cut), ' — keep it safe.'] });
    await client.post('/console/chat/send', { text: 'what is my key?', messageId: 'message-000002' }, { Accept: 'application/json' });
    await stream.until((event) => event.data.kind === 'reply');
    stream.close();
    const streamed = stream.events.filter((event) => event.data.kind === 'delta').map((event) => String(event.data.text)).join('');
    // The text streams (what cannot be part of a secret goes out at once); only a secret's length is held back.
    expect(streamed).toContain('opening sentence');
    expect(streamed).not.toContain(secret.slice(0, cut));
    expect(streamed).not.toContain(secret.slice(cut));
    expect(JSON.stringify(stream.events)).not.toContain(secret.slice(0, cut));
  });

  it('nothing changes which code runs: no config or command editing, and activating a skill needs the reviewed files', async () => {
    const app = await start();
    const client = await app.login();
    for (const path of ['/console/config', '/console/settings', '/console/commands', '/console/skills/install', '/console/mcp']) {
      // No such action (404), or only a page to look at (405): nothing accepts it.
      expect([404, 405], path).toContain((await client.post(path, { command: 'touch /tmp/pwned' })).status);
    }
    const skill = await client.post('/console/skills/notes/activate', {});
    expect(skill.status).toBe(303);
    expect(skill.headers.get('location')).toBe('/console/skills/notes/activate');
    expect(app.app.db.prepare("SELECT COUNT(*) AS n FROM audit WHERE tool = 'manage_skill'").get()).toEqual({ n: 0 });
  });

  it('secrets never reach the page, even when the model put one in a tool call and its reply', async () => {
    const app = await start();
    const client = await app.login();
    const secret = fake.apiKey;
    const stream = await openEvents(client, 'chat');
    fake.script({ toolCalls: [{ name: 'memory_write', arguments: { path: 'notes.md', content: `key is ${secret}` } }] }, { content: `I saved ${secret}.` });
    await client.post('/console/chat/send', { text: 'remember my key', messageId: 'message-000001' }, { Accept: 'application/json' });
    await stream.until((event) => event.data.kind === 'reply');
    stream.close();
    expect(JSON.stringify(stream.events)).not.toContain(secret);
    for (const path of [...SECTIONS, '/console/memory/file?path=notes.md']) {
      const body = await client.text(path);
      expect(body, path).not.toContain(secret);
    }
    expect(await client.text('/console/activity')).toContain('memory_write');
  });
});
