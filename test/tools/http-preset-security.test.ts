// An HTTP preset opens exactly its origin (scheme, host and port) past the private-address guard, never the
// rest of its host: a preset on http://127.0.0.1:PORT does not let the model reach 127.0.0.1's other ports.
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpTool } from '../../src/tools/http/tool.js';
import { checkDestination } from '../../src/net/ssrf.js';
import { loadTestConfig, startWebServer, toolHarness, type WebServer } from '../helpers/reach.js';

const servers: WebServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function server(route: Parameters<typeof startWebServer>[0] = (_req, res) => res.end('inside')): Promise<WebServer> {
  const started = await startWebServer(route);
  servers.push(started);
  return started;
}

function harness(http: Record<string, unknown>) {
  const loaded = loadTestConfig({ tools: { http } }, {});
  return toolHarness(loaded, [createHttpTool({ config: loaded.config.tools.http })]);
}

describe('http presets are pinned to scheme, host and port', () => {
  it('reaches the preset\'s own origin, with or without naming the preset', async () => {
    const home = await server();
    const { call } = harness({ presets: { home: { base_url: `${home.origin}/api` } } });
    expect((await call('http', { preset: 'home', url: '/state' })).success).toBe(true);
    expect((await call('http', { url: `${home.origin}/other` })).success).toBe(true);
    expect(home.seen.map((request) => request.url)).toEqual(['/api/state', '/other']);
  });

  it('refuses another port of the same host, whatever the spelling', async () => {
    const home = await server();
    const admin = await server((_req, res) => res.end('the admin panel'));
    const { call } = harness({ presets: { home: { base_url: home.origin } } });
    for (const url of [`http://127.0.0.1:${admin.port}/`, `http://127.1:${admin.port}/`, `http://[::ffff:127.0.0.1]:${admin.port}/`, `http://2130706433:${admin.port}/`]) {
      const result = await call('http', { url });
      expect(result.success, url).toBe(false);
      expect(result.output).toMatch(/loopback address .*blocked/);
    }
    const viaPreset = await call('http', { preset: 'home', url: `http://127.0.0.1:${admin.port}/` });
    expect(viaPreset.output).toMatch(/only works on http:\/\/127\.0\.0\.1:\d+/);
    expect(admin.seen).toEqual([]);
  });

  it('refuses the same host and port under another scheme, and another name for the same address', async () => {
    const home = await server();
    const { call } = harness({ presets: { home: { base_url: home.origin } } });
    expect((await call('http', { url: `https://127.0.0.1:${home.port}/` })).output).toMatch(/blocked/);
    expect((await call('http', { url: `http://localhost:${home.port}/` })).output).toMatch(/blocked/);
    expect(home.seen).toEqual([]);
  });

  it('does not follow a redirect from the preset to another port of its host', async () => {
    const admin = await server((_req, res) => res.end('the admin panel'));
    const home = await server((_req, res) => {
      res.statusCode = 302;
      res.setHeader('location', `http://127.0.0.1:${admin.port}/secret`);
      res.end();
    });
    const { call } = harness({ presets: { home: { base_url: home.origin } } });
    const result = await call('http', { preset: 'home', url: '/go' });
    expect(result.success).toBe(false);
    expect(result.output).toMatch(/blocked/);
    expect(admin.seen).toEqual([]);
  });

  it('an allow_hosts entry still opens a whole host (the operator chose it), a preset only its origin', () => {
    const rules = { allowPrivate: false, allowHosts: ['nas.lan'], allowOrigins: ['http://127.0.0.1:8123'] };
    expect(checkDestination('nas.lan', '192.168.1.5', rules, 'http://nas.lan:22').blocked).toBe(false);
    expect(checkDestination('127.0.0.1', '127.0.0.1', rules, 'http://127.0.0.1:8123').blocked).toBe(false);
    expect(checkDestination('127.0.0.1', '127.0.0.1', rules, 'http://127.0.0.1:22').blocked).toBe(true);
    expect(checkDestination('127.0.0.1', '127.0.0.1', rules, 'https://127.0.0.1:8123').blocked).toBe(true);
  });
});
