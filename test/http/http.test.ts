import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import type { Part } from '../../src/part.js';
import { startOfDay } from '../../src/usage/usage.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp } from '../helpers/app.js';

const TOKEN = 'test-token-0123456789abcdef';

function urlOf(app: App, path: string): string {
  if (!app.parts.some((candidate) => candidate.name === 'http')) throw new Error('http module not installed');
  const address = app.httpAddress();
  if (!address) throw new Error('http module not listening');
  return `http://${address.host}:${address.port}${path}`;
}

describe('operations HTTP endpoint', () => {
  let fake: FakeOpenAI;
  let apps: App[];

  beforeEach(async () => {
    fake = await startOpenAiServer();
    apps = [];
  });

  afterEach(async () => {
    for (const app of apps) await app.close(0).catch(() => undefined);
    await fake.close();
  });

  async function build(http: Record<string, unknown> = { listen: '127.0.0.1:0' }, parts: Part[] = []): Promise<App> {
    const { app } = await makeTestApp(fake, { http }, undefined, { parts });
    apps.push(app);
    return app;
  }

  it('is not installed when http.listen is empty, and says so in the log', async () => {
    const { app, logs } = await makeTestApp(fake, { http: { listen: '' } });
    apps.push(app);
    expect(app.parts.some((module) => module.name === 'http')).toBe(false);
    expect(logs.join('')).toContain('no http.listen set');
  });

  it('answers /healthz with 200 once listening', async () => {
    const app = await build();
    await app.start();
    const response = await fetch(urlOf(app, '/healthz'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('answers /readyz with 503 while modules are still starting, then 200', async () => {
    let release: () => void = () => undefined;
    const slow: Part = { name: 'slow', start: () => new Promise<void>((resolve) => { release = resolve; }) };
    const app = await build(undefined, [slow]);
    const starting = app.start();
    // The http module starts first; poll until it listens while `slow` holds the start.
    while (!app.httpAddress()) await new Promise((resolve) => setTimeout(resolve, 5));
    const before = await fetch(urlOf(app, '/readyz'));
    expect(before.status).toBe(503);
    expect(await before.json()).toEqual({ status: 'not ready', reasons: ['modules still starting'] });
    release();
    await starting;
    const after = await fetch(urlOf(app, '/readyz'));
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({ status: 'ready' });
  });

  it('answers /readyz with 503 naming a module that failed to start', async () => {
    const app = await build(undefined, [{ name: 'telegram', start: async () => { throw new Error('401 Unauthorized'); } }]);
    await app.start();
    const response = await fetch(urlOf(app, '/readyz'));
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ status: 'not ready', reasons: ['telegram failed to start (see the log)'] });
  });

  it('answers /status with uptime, queue lengths, modules, channels and today\'s LLM tokens', async () => {
    const app = await build();
    await app.start();
    const now = Date.now();
    const insert = app.db.prepare("INSERT INTO turns (id, conversation_id, source, started_at, status, prompt_tokens, completion_tokens) VALUES (?, 'c', 'cli', ?, 'ok', ?, ?)");
    insert.run('t1', now, 100, 20);
    insert.run('t2', now, 50, 5);
    insert.run('old', now - 3 * 86_400_000, 9999, 9999);
    const response = await fetch(urlOf(app, '/status'));
    expect(response.status).toBe(200);
    const status = (await response.json()) as Record<string, unknown>;
    expect(status).toMatchObject({
      pid: process.pid,
      ready: true,
      failedModules: [],
      modules: app.parts.map((module) => module.name),
      channels: { configured: [], running: [] },
      queue: { active: 0, pending: 0 },
      llm: { model: 'gpt-test', today: { turns: 2, promptTokens: 150, completionTokens: 25, totalTokens: 175 }, dailyTokenBudget: 0 },
    });
    expect(typeof status.uptimeSeconds).toBe('number');
    expect(status.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('counts a turn in progress in the queue lengths', async () => {
    const app = await build({ listen: '127.0.0.1:0' });
    await app.start();
    // The first turn's LLM call is slow; the second message of the same chat waits behind it.
    fake.script({ content: 'first', delayMs: 1500 }, { content: 'second' });
    const origin = { channel: 'cli', chatId: 'chat-a' };
    const running = app.turns.start({ text: 'one', origin, source: 'cli' });
    const waiting = app.turns.start({ text: 'two', origin, source: 'cli' });
    await fake.waitForRequests(1);
    const status = (await (await fetch(urlOf(app, '/status'))).json()) as { queue: { active: number; pending: number } };
    expect(status.queue).toEqual({ active: 1, pending: 1 });
    await Promise.all([running, waiting]);
  });

  it('summarises jobs from the scheduler\'s tables when they exist', async () => {
    const app = await build();
    await app.start();
    if (!app.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'jobs'").get()) {
      app.db.exec('CREATE TABLE jobs (id TEXT PRIMARY KEY, enabled INTEGER NOT NULL)');
      app.db.exec("INSERT INTO jobs VALUES ('a', 1), ('b', 0)");
    }
    const expected = (app.db.prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number }).n;
    const status = (await (await fetch(urlOf(app, '/status'))).json()) as { jobs: { total: number } | null };
    expect(status.jobs?.total).toBe(expected);
  });

  it('stops listening when the app closes', async () => {
    const app = await build();
    await app.start();
    const url = urlOf(app, '/healthz');
    await app.close(0);
    await expect(fetch(url)).rejects.toThrow();
  });

  it('reports a port already in use as a failed module, not a crash', async () => {
    const first = await build();
    await first.start();
    const port = first.httpAddress()?.port;
    const second = await build({ listen: `127.0.0.1:${port}` });
    await second.start();
    expect(second.failedParts()).toEqual(['http']);
  });

  it('answers 404 for an unknown path and 405 for a POST', async () => {
    const app = await build();
    await app.start();
    expect((await fetch(urlOf(app, '/nope'))).status).toBe(404);
    expect((await fetch(urlOf(app, '/status'), { method: 'POST' })).status).toBe(405);
  });

  it('accepts the token in the Authorization header', async () => {
    const app = await build({ listen: '127.0.0.1:0', token: TOKEN });
    await app.start();
    const response = await fetch(urlOf(app, '/status'), { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    const ready = await fetch(urlOf(app, '/readyz'), { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(ready.status).toBe(200);
  });
});

describe('startOfDay', () => {
  it('goes back to midnight of the zone\'s wall clock', () => {
    const now = new Date('2026-11-22T05:10:42.123Z');
    // 06:10 in Paris (UTC+1): midnight in Paris is 23:00 UTC the day before.
    expect(new Date(startOfDay('Europe/Paris', now)).toISOString()).toBe('2026-11-21T23:00:00.000Z');
  });
});
