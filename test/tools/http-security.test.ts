import { afterEach, describe, expect, it } from 'vitest';
import { createHttpTool } from '../../src/tools/http/tool.js';
import { checkDestination, classifyAddress, embeddedIpv4 } from '../../src/net/ssrf.js';
import type { Resolver } from '../../src/net/fetch-guarded.js';
import { loadTestConfig, startWebServer, toolHarness, type WebServer } from '../helpers/reach.js';

const servers: WebServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function server(route: Parameters<typeof startWebServer>[0] = (_req, res) => res.end('hello from inside')): Promise<WebServer> {
  const started = await startWebServer(route);
  servers.push(started);
  return started;
}

function httpHarness(http: Record<string, unknown> = {}, options: { resolve?: Resolver; env?: Record<string, string> } = {}) {
  const loaded = loadTestConfig({ tools: { http } }, options.env ?? {});
  const tool = createHttpTool({ config: loaded.config.tools.http, ...(options.resolve ? { resolve: options.resolve } : {}) });
  return { ...toolHarness(loaded, [tool]), tool, loaded };
}

/** A resolver that maps test names to fixed addresses, and refuses anything else. */
function fakeDns(table: Record<string, string[]>): Resolver {
  return async (hostname) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['169.254.10.10', 'link-local'],
    ['fe80::1', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['255.255.255.255', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['2002:7f00:1::', 'loopback'],
    ['[::1]', 'loopback'],
    ['not-an-ip', 'invalid'],
  ])('blocks %s as %s', (address, category) => {
    const verdict = classifyAddress(address);
    expect(verdict).toMatchObject({ blocked: true, category });
  });

  it.each(['93.184.216.34', '1.1.1.1', '100.63.255.255', '100.128.0.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('lets the public address %s through', (address) => {
    expect(classifyAddress(address)).toEqual({ blocked: false });
  });

  it('reads the IPv4 address inside mapped, NAT64 and 6to4 IPv6 forms', () => {
    expect(embeddedIpv4('::ffff:192.168.0.1')).toBe('192.168.0.1');
    expect(embeddedIpv4('64:ff9b::7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('2002:a00:1::1')).toBe('10.0.0.1');
    expect(embeddedIpv4('2606:4700::1')).toBeUndefined();
  });

  it('allow_private opens private ranges but never cloud metadata', () => {
    const rules = { allowPrivate: true, allowHosts: [] };
    expect(checkDestination('nas.lan', '192.168.1.5', rules)).toEqual({ blocked: false });
    expect(checkDestination('127.0.0.1', '127.0.0.1', rules)).toEqual({ blocked: false });
    expect(checkDestination('169.254.169.254', '169.254.169.254', rules)).toMatchObject({ blocked: true, category: 'metadata' });
  });

  it('allow_hosts matches names, wildcards, addresses and CIDR ranges, and nothing else', () => {
    const rules = { allowPrivate: false, allowHosts: ['nas.lan', '*.home.arpa', '10.1.0.0/16', 'fd00::5'] };
    expect(checkDestination('NAS.lan', '192.168.1.5', rules).blocked).toBe(false);
    expect(checkDestination('printer.home.arpa', '192.168.1.9', rules).blocked).toBe(false);
    expect(checkDestination('anything', '10.1.200.3', rules).blocked).toBe(false);
    expect(checkDestination('[fd00::5]', 'fd00::5', rules).blocked).toBe(false);
    expect(checkDestination('other.lan', '192.168.1.5', rules).blocked).toBe(true);
    expect(checkDestination('evilhome.arpa', '192.168.1.5', rules).blocked).toBe(true);
    expect(checkDestination('anything', '10.2.0.1', rules).blocked).toBe(true);
  });
});

describe('http SSRF guard, on by default', () => {
  it.each([
    ['http://127.0.0.1:PORT/', 'loopback'],
    ['http://[::1]:PORT/', 'loopback'],
    ['http://[::ffff:127.0.0.1]:PORT/', 'loopback'],
    ['http://2130706433:PORT/', 'loopback'],
    ['http://0x7f.1:PORT/', 'loopback'],
    ['http://0.0.0.0:PORT/', 'unspecified'],
    ['http://10.0.0.1/', 'private'],
    ['http://192.168.0.1/', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['http://[fd00:ec2::254]/', 'cloud metadata'],
    ['http://100.64.1.1/', 'carrier-grade NAT'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[fc00::1]/', 'unique-local'],
    ['http://224.0.0.251/', 'multicast'],
  ])('refuses %s (%s) without connecting', async (template, reason) => {
    const inside = await server();
    const { call } = httpHarness();
    const result = await call('http', { url: template.replace('PORT', String(inside.port)) });
    expect(result.success).toBe(false);
    expect(result.output).toContain('requests there are blocked');
    expect(result.output).toContain(reason);
    expect(inside.seen).toHaveLength(0);
  });

  it('refuses localhost, checked on the address it resolves to', async () => {
    const inside = await server();
    const { call } = httpHarness();
    const result = await call('http', { url: `http://localhost:${inside.port}/` });
    expect(result.success).toBe(false);
    expect(result.output).toMatch(/localhost \((127\.0\.0\.1|::1)\) is a loopback address/);
    expect(inside.seen).toHaveLength(0);
  });

  it('refuses a public-looking name that resolves to 127.0.0.1', async () => {
    const inside = await server();
    const { call } = httpHarness({}, { resolve: fakeDns({ 'innocent.example': ['127.0.0.1'] }) });
    const result = await call('http', { url: `http://innocent.example:${inside.port}/` });
    expect(result.output).toContain('innocent.example (127.0.0.1) is a loopback address');
    expect(inside.seen).toHaveLength(0);
  });

  it('refuses a name with one public and one private address (no falling through to the private one)', async () => {
    const inside = await server();
    const { call } = httpHarness({}, { resolve: fakeDns({ 'mixed.example': ['93.184.216.34', '127.0.0.1'] }) });
    const result = await call('http', { url: `http://mixed.example:${inside.port}/` });
    expect(result.output).toContain('mixed.example (127.0.0.1) is a loopback address');
    expect(inside.seen).toHaveLength(0);
  });

  it('refuses a redirect from an allowed host to a private address, checking the hop', async () => {
    const inside = await server((_req, res) => res.end('internal secrets'));
    const outside = await server((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${inside.port}/admin` });
      res.end();
    });
    // public.test stands for a public site: it is let through by allow_hosts, its redirect target is not.
    const { call } = httpHarness({ allow_hosts: ['public.test'] }, { resolve: fakeDns({ 'public.test': ['127.0.0.1'] }) });
    const result = await call('http', { url: `http://public.test:${outside.port}/start` });
    expect(outside.seen).toHaveLength(1);
    expect(result.success).toBe(false);
    expect(result.output).toContain(`127.0.0.1 is a loopback address`);
    expect(result.output).toContain(`/admin`);
    expect(inside.seen).toHaveLength(0);
    expect(result.output).not.toContain('internal secrets');
  });

  it('refuses a redirect to a name that resolves to a private address', async () => {
    const inside = await server();
    const outside = await server((_req, res) => {
      res.writeHead(307, { location: `http://rebind.example:${inside.port}/` });
      res.end();
    });
    const { call } = httpHarness({ allow_hosts: ['public.test'] }, { resolve: fakeDns({ 'public.test': ['127.0.0.1'], 'rebind.example': ['10.0.0.7'] }) });
    const result = await call('http', { url: `http://public.test:${outside.port}/` });
    expect(result.output).toContain('rebind.example (10.0.0.7) is a private network address');
    expect(inside.seen).toHaveLength(0);
  });

  it('does not follow a redirect to another scheme', async () => {
    const outside = await server((_req, res) => {
      res.writeHead(302, { location: 'file:///etc/passwd' });
      res.end();
    });
    const { call } = httpHarness({ allow_hosts: ['127.0.0.1'] });
    const result = await call('http', { url: `${outside.origin}/` });
    expect(result.success).toBe(false);
    expect(result.output).toContain('redirected to a file: URL, which is not followed');
  });
});

describe('http SSRF guard, opted out', () => {
  it('allow_private: true reaches 127.0.0.1 and localhost', async () => {
    const inside = await server();
    const { call } = httpHarness({ allow_private: true });
    expect((await call('http', { url: `${inside.origin}/` })).output).toContain('hello from inside');
    expect((await call('http', { url: `http://localhost:${inside.port}/` })).output).toContain('hello from inside');
    expect(inside.seen).toHaveLength(2);
  });

  it('allow_private: true still refuses cloud metadata', async () => {
    const { call } = httpHarness({ allow_private: true });
    const result = await call('http', { url: 'http://169.254.169.254/latest/meta-data/' });
    expect(result.output).toContain('cloud metadata address; requests there are blocked');
  });

  it('allow_hosts opens exactly the listed host', async () => {
    const inside = await server();
    const { call } = httpHarness({ allow_hosts: ['nas.test'] }, { resolve: fakeDns({ 'nas.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] }) });
    expect((await call('http', { url: `http://nas.test:${inside.port}/` })).output).toContain('hello from inside');
    expect((await call('http', { url: `http://other.test:${inside.port}/` })).output).toContain('is a loopback address');
    expect(inside.seen).toHaveLength(1);
  });

  it('allow_hosts takes an address range', async () => {
    const inside = await server();
    const { call } = httpHarness({ allow_hosts: ['127.0.0.0/8'] });
    expect((await call('http', { url: `${inside.origin}/` })).success).toBe(true);
  });
});

describe('http presets keep their secrets', () => {
  const SECRET = 'sk-preset-secret-value-42';

  async function presetSetup(extra: Record<string, unknown> = {}) {
    const home = await server((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ path: req.url, ok: true }));
    });
    const foreign = await server((_req, res) => res.end('foreign site'));
    const harness = httpHarness(
      {
        allow_private: true,
        presets: { home: { base_url: `${home.origin}/api/v1`, headers: { Authorization: 'Bearer ${HOME_TOKEN}', 'X-Extra': 'plain' }, description: 'the home API' } },
        ...extra,
      },
      { env: { HOME_TOKEN: SECRET } },
    );
    return { home, foreign, ...harness };
  }

  it('joins a relative url to base_url and sends the preset headers there', async () => {
    const { home, call } = await presetSetup();
    const result = await call('http', { preset: 'home', url: 'items', query: { page: 2 } });
    expect(result.success).toBe(true);
    expect(home.seen[0]?.url).toBe('/api/v1/items?page=2');
    expect(home.seen[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(home.seen[0]?.headers['x-extra']).toBe('plain');
  });

  it('refuses a preset with an absolute URL on another origin, and sends nothing there', async () => {
    const { foreign, home, call } = await presetSetup();
    const result = await call('http', { preset: 'home', url: `${foreign.origin}/steal` });
    expect(result.success).toBe(false);
    expect(result.output).toContain(`Preset "home" only works on ${home.origin}, not ${foreign.origin}`);
    expect(foreign.seen).toHaveLength(0);
  });

  it('never sends the preset header to another origin a redirect leads to', async () => {
    const foreign = await server((_req, res) => res.end('landed abroad'));
    const home = await server((_req, res) => {
      res.writeHead(302, { location: `${foreign.origin}/landing` });
      res.end();
    });
    const { call } = httpHarness(
      { allow_private: true, presets: { home: { base_url: home.origin, headers: { Authorization: 'Bearer ${HOME_TOKEN}' } } } },
      { env: { HOME_TOKEN: SECRET } },
    );
    const result = await call('http', { preset: 'home', url: '/go' });
    expect(result.output).toContain('landed abroad');
    expect(home.seen[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(foreign.seen).toHaveLength(1);
    expect(foreign.seen[0]?.headers.authorization).toBeUndefined();
    expect(JSON.stringify(foreign.seen[0]?.headers)).not.toContain(SECRET);
  });

  it('drops a credential header the model set when a redirect leaves the origin', async () => {
    const foreign = await server((_req, res) => res.end('abroad'));
    const first = await server((_req, res) => {
      res.writeHead(301, { location: `${foreign.origin}/` });
      res.end();
    });
    const { call } = httpHarness({ allow_private: true });
    await call('http', { url: `${first.origin}/`, headers: { Authorization: 'Bearer model-token', 'X-Trace': 'kept' } });
    expect(first.seen[0]?.headers.authorization).toBe('Bearer model-token');
    expect(foreign.seen[0]?.headers.authorization).toBeUndefined();
    expect(foreign.seen[0]?.headers['x-trace']).toBe('kept');
  });

  it('does not use the preset when the same origin is called without it', async () => {
    const { home, call } = await presetSetup();
    await call('http', { url: `${home.origin}/api/v1/items` });
    expect(home.seen[0]?.headers.authorization).toBeUndefined();
  });

  it('shows preset names and origins in the description, never header values', async () => {
    const { home, registry } = await presetSetup();
    const schema = registry.toFunctionSchemas().find((entry) => entry.function.name === 'http');
    const described = JSON.stringify(schema);
    expect(schema?.function.description).toContain(`home → ${home.origin} (the home API)`);
    expect(described).not.toContain(SECRET);
    expect(described).not.toContain('Bearer');
    expect(described).not.toContain('X-Extra');
  });

  it('keeps the secret out of the output and the logs, even when a server echoes it back', async () => {
    const echo = await server((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ you_sent: req.headers.authorization }));
    });
    const { call, logs } = httpHarness(
      { allow_private: true, presets: { echo: { base_url: echo.origin, headers: { Authorization: 'Bearer ${HOME_TOKEN}' } } } },
      { env: { HOME_TOKEN: SECRET } },
    );
    const result = await call('http', { preset: 'echo', url: '/whoami' });
    expect(echo.seen[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(result.success).toBe(true);
    expect(result.output).toContain('[REDACTED]');
    expect(result.output).not.toContain(SECRET);
    expect(logs.join('\n')).toContain('http request');
    expect(logs.join('\n')).not.toContain(SECRET);
  });

  it('turns credentials in a preset base_url into a scoped header that is never shown', async () => {
    const home = await server((_req, res) => res.end('ok'));
    const { call, registry } = httpHarness({ allow_private: true, presets: { nas: { base_url: `http://admin:hunter2-pass@127.0.0.1:${home.port}/` } } });
    const result = await call('http', { preset: 'nas', url: '/status' });
    expect(home.seen[0]?.headers.authorization).toBe(`Basic ${Buffer.from('admin:hunter2-pass').toString('base64')}`);
    expect(result.output).not.toContain('hunter2-pass');
    expect(JSON.stringify(registry.toFunctionSchemas())).not.toContain('hunter2-pass');
  });
});
