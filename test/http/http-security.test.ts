import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import { ConfigError } from '../../src/errors.js';
import { parseListenAddress } from '../../src/http/listen-address.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp } from '../helpers/app.js';

const TOKEN = 'sec-token-0123456789abcdef';

describe('operations endpoint security', () => {
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

  async function start(http: Record<string, unknown>): Promise<{ app: App; base: string }> {
    const { app } = await makeTestApp(fake, { http });
    apps.push(app);
    await app.start();
    const address = app.httpAddress();
    if (!address) throw new Error('not listening');
    return { app, base: `http://127.0.0.1:${address.port}` };
  }

  it('refuses to start on a non-loopback address without http.token, naming the key', async () => {
    const error = await makeTestApp(fake, { http: { listen: '0.0.0.0:0' } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).keyPath).toBe('http.token');
    expect((error as ConfigError).message).toContain('is required when http.listen (0.0.0.0:0) is not a loopback address');
  });

  it('refuses a token too short to resist guessing', async () => {
    const error = await makeTestApp(fake, { http: { listen: '0.0.0.0:0', token: 'short' } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).keyPath).toBe('http.token');
  });

  it('starts on a non-loopback address with a token, and refuses /status without it', async () => {
    const { base } = await start({ listen: '0.0.0.0:0', token: TOKEN });
    const response = await fetch(`${base}/status`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(await response.text()).not.toContain('uptime');
  });

  it('refuses a wrong token and a token of the wrong scheme', async () => {
    const { base } = await start({ listen: '0.0.0.0:0', token: TOKEN });
    expect((await fetch(`${base}/status`, { headers: { Authorization: 'Bearer wrong-token-0123456789abcdef' } })).status).toBe(401);
    expect((await fetch(`${base}/status`, { headers: { Authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    expect((await fetch(`${base}/status`, { headers: { Authorization: `Basic ${TOKEN}` } })).status).toBe(401);
    expect((await fetch(`${base}/readyz`)).status).toBe(401);
  });

  it('accepts the right token in the header', async () => {
    const { base } = await start({ listen: '0.0.0.0:0', token: TOKEN });
    const response = await fetch(`${base}/status`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
  });

  it('refuses the token in the URL even when it is right', async () => {
    const { base } = await start({ listen: '0.0.0.0:0', token: TOKEN });
    for (const name of ['token', 'access_token']) {
      const response = await fetch(`${base}/status?${name}=${TOKEN}`);
      expect(response.status).toBe(400);
      expect(await response.text()).toContain('Authorization header');
    }
  });

  it('keeps /healthz open and saying nothing but ok', async () => {
    const { base } = await start({ listen: '0.0.0.0:0', token: TOKEN });
    const response = await fetch(`${base}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('never puts the token in a response or a log line', async () => {
    const { app, base } = await start({ listen: '0.0.0.0:0', token: TOKEN });
    const body = await (await fetch(`${base}/status`, { headers: { Authorization: `Bearer ${TOKEN}` } })).text();
    expect(body).not.toContain(TOKEN);
    expect(JSON.stringify(app.config.http)).toContain(TOKEN);
  });

  it('treats only loopback addresses as loopback', () => {
    expect(parseListenAddress('127.0.0.1:8484').loopback).toBe(true);
    expect(parseListenAddress('127.1.2.3:8484').loopback).toBe(true);
    expect(parseListenAddress('[::1]:8484').loopback).toBe(true);
    expect(parseListenAddress('localhost:8484').loopback).toBe(true);
    expect(parseListenAddress('8484')).toEqual({ host: '127.0.0.1', port: 8484, loopback: true });
    expect(parseListenAddress('0.0.0.0:8484').loopback).toBe(false);
    expect(parseListenAddress('[::]:8484').loopback).toBe(false);
    expect(parseListenAddress('192.168.1.10:8484').loopback).toBe(false);
  });

  it('refuses malformed addresses naming http.listen', () => {
    for (const bad of ['127.0.0.1', 'example.com:80', '::1:8484', '127.0.0.1:99999', 'host:port']) {
      expect(() => parseListenAddress(bad), bad).toThrow(/http\.listen/);
    }
  });
});
