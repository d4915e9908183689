import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpTool, httpRisk } from '../../src/tools/http/tool.js';
import { loadTestConfig, startWebServer, toolHarness, type Route, type WebServer } from '../helpers/reach.js';

const servers: WebServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function server(route: Route): Promise<WebServer> {
  const started = await startWebServer(route);
  servers.push(started);
  return started;
}

// Local servers live on 127.0.0.1, so these tests open private addresses; the guard itself is in http-security.test.ts.
function httpHarness(http: Record<string, unknown> = {}) {
  const loaded = loadTestConfig({ tools: { http: { allow_private: true, ...http } } });
  return toolHarness(loaded, [createHttpTool({ config: loaded.config.tools.http })]);
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

describe('http responses', () => {
  it('pretty-prints JSON and wraps it as outside content', async () => {
    const site = await server((_req, res) => {
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.end('{"name":"familiar","tags":["a","b"]}');
    });
    const { call } = httpHarness();
    const result = await call('http', { url: `${site.origin}/thing` });
    expect(result.success).toBe(true);
    expect(result.output).toContain(`GET ${site.origin}/thing → 200 OK`);
    expect(result.output).toContain(`<<<EXTERNAL_CONTENT source="${site.origin}/thing">>>`);
    expect(result.output).toContain('{\n  "name": "familiar",\n  "tags": [\n    "a",\n    "b"\n  ]\n}');
    expect(result.externalSource).toBe(`http:${site.origin}`);
  });

  it('turns an HTML page into readable text without scripts or styles', async () => {
    const site = await server((_req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(`<!doctype html><html><head><title>Opening hours &amp; prices</title><style>body{color:red}</style>
        <script>window.track("secret-tracker")</script></head><body><h1>Welcome</h1><p>Open <b>9–17</b>, see <a href="/faq">the FAQ</a>.</p>
        <ul><li>Monday</li><li>Tuesday</li></ul></body></html>`);
    });
    const { call } = httpHarness();
    const result = await call('http', { url: `${site.origin}/` });
    expect(result.output).toContain('text/html');
    expect(result.output).toContain('Title: Opening hours & prices');
    expect(result.output).toContain('Welcome');
    expect(result.output).toContain(`Open 9–17, see the FAQ [${site.origin}/faq].`);
    expect(result.output).toMatch(/\* Monday\n \* Tuesday/);
    expect(result.output).not.toContain('<p>');
    expect(result.output).not.toContain('secret-tracker');
    expect(result.output).not.toContain('color:red');
  });

  it('decodes an HTML page in the charset its <meta> declares when the header names none', async () => {
    const latin1 = Buffer.from('<html><head><meta charset="iso-8859-1"><title>Caf\u00e9</title></head><body><p>Cr\u00e8me br\u00fbl\u00e9e \u00e0 4 \u20ac</p></body></html>'.replace('\u20ac', 'EUR'), 'latin1');
    const windows = Buffer.concat([
      Buffer.from('<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252"></head><body><p>Price: 5 '),
      Buffer.from([0x80]), // the euro sign in windows-1252
      Buffer.from(' '),
      Buffer.from([0x93, 0x6f, 0x6b, 0x94]), // “ok” in windows-1252
      Buffer.from('</p></body></html>'),
    ]);
    const site = await server((req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(req.url === '/latin1' ? latin1 : windows);
    });
    const { call } = httpHarness();
    const first = await call('http', { url: `${site.origin}/latin1` });
    expect(first.output).toContain('Title: Café');
    expect(first.output).toContain('Crème brûlée à 4 EUR');
    const second = await call('http', { url: `${site.origin}/windows` });
    expect(second.output).toContain('Price: 5 € “ok”');
  });

  it('summarises a binary body by type and size', async () => {
    const site = await server((_req, res) => {
      res.setHeader('content-type', 'image/png');
      res.end(PNG);
    });
    const { call } = httpHarness();
    const result = await call('http', { url: `${site.origin}/logo.png` });
    expect(result.success).toBe(true);
    expect(result.output).toContain(`image/png, ${PNG.length} bytes; binary content not shown (call again with as_file: true`);
    expect(result.output).not.toContain('EXTERNAL_CONTENT');
    expect(result.artifacts).toBeUndefined();
  });

  it('returns a binary body as a file artifact with as_file', async () => {
    const site = await server((_req, res) => {
      res.setHeader('content-type', 'application/pdf');
      res.setHeader('content-disposition', 'attachment; filename="report.pdf"');
      res.end(PNG);
    });
    const { call } = httpHarness();
    const result = await call('http', { url: `${site.origin}/download?id=1`, as_file: true });
    expect(result.output).toContain('attached as file "report.pdf"');
    expect(result.artifacts).toHaveLength(1);
    expect(result.artifacts?.[0]).toMatchObject({ type: 'file', name: 'report.pdf', mimeType: 'application/pdf' });
    expect(Buffer.compare(result.artifacts?.[0]?.content as Buffer, PNG)).toBe(0);
  });

  it('cuts a body at max_bytes and says so', async () => {
    const site = await server((_req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.end('x'.repeat(50_000));
    });
    const { call } = httpHarness({ max_bytes: 1000 });
    const result = await call('http', { url: `${site.origin}/big` });
    expect(result.output).toContain('1000 bytes (cut at tools.http.max_bytes = 1000)');
    expect(result.output).toContain('…[cut at 1000 bytes]');
    expect(result.output.match(/x+/g)?.reduce((longest, run) => Math.max(longest, run.length), 0)).toBe(1000);
  });

  it('counts the cap on the decoded body of a compressed answer', async () => {
    const packed = gzipSync(Buffer.from('y'.repeat(200_000)));
    const site = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      res.end(packed);
    });
    const { call } = httpHarness({ max_bytes: 5000 });
    const result = await call('http', { url: `${site.origin}/bomb` });
    expect(site.seen[0]?.headers['accept-encoding']).toContain('gzip');
    expect(result.output).toContain('5000 bytes (cut at tools.http.max_bytes = 5000)');
    expect(result.output).toContain('y'.repeat(100));
  });

  it('refuses to attach a file larger than max_bytes', async () => {
    const site = await server((_req, res) => {
      res.setHeader('content-type', 'application/zip');
      res.end(Buffer.alloc(4096, 1));
    });
    const { call } = httpHarness({ max_bytes: 1024 });
    const result = await call('http', { url: `${site.origin}/a.zip`, as_file: true });
    expect(result.artifacts).toBeUndefined();
    expect(result.output).toContain('not attached: the body is larger than tools.http.max_bytes (1024 bytes)');
  });

  it('gives up after timeout_s when the server does not answer', async () => {
    const site = await server(() => undefined);
    const { call } = httpHarness({ timeout_s: 0.3 });
    const result = await call('http', { url: `${site.origin}/slow` });
    expect(result.success).toBe(false);
    expect(result.output).toContain('no complete answer within 0.3 s (tools.http.timeout_s)');
  });

  it('gives up after timeout_s when the body trickles in forever', async () => {
    const site = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first part');
    });
    const { call } = httpHarness({ timeout_s: 0.3 });
    const result = await call('http', { url: `${site.origin}/trickle` });
    expect(result.output).toContain('no complete answer within 0.3 s');
  });

  it('reports an HTTP error status as a failure with a hint, still showing the body', async () => {
    const site = await server((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"no such item"}');
    });
    const { call } = httpHarness();
    const result = await call('http', { url: `${site.origin}/items/9` });
    expect(result.success).toBe(false);
    expect(result.output).toContain('→ 404 Not Found; check the URL');
    expect(result.output).toContain('"error": "no such item"');
    expect(result.externalSource).toBe(`http:${site.origin}`);
  });

  it('passes on retry-after for a 429', async () => {
    const site = await server((_req, res) => {
      res.writeHead(429, { 'retry-after': '12' });
      res.end();
    });
    const { call } = httpHarness();
    expect((await call('http', { url: `${site.origin}/` })).output).toContain('rate limited; retry after 12 s');
  });

  it('follows redirects and names them, up to max_redirects', async () => {
    const site = await server((req, res) => {
      const step = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('step') ?? '0');
      if (step < 3) {
        res.writeHead(302, { location: `/hop?step=${step + 1}` });
        res.end();
      } else {
        res.end('arrived');
      }
    });
    const { call } = httpHarness({ max_redirects: 3 });
    const result = await call('http', { url: `${site.origin}/hop?step=0` });
    expect(result.output).toContain(`GET ${site.origin}/hop?step=3 → 200 OK`);
    expect(result.output).toContain(`(redirected from ${site.origin}/hop?step=0 → ${site.origin}/hop?step=1 → ${site.origin}/hop?step=2)`);
    expect(result.output).toContain('arrived');

    const tooFew = httpHarness({ max_redirects: 2 });
    const refused = await tooFew.call('http', { url: `${site.origin}/hop?step=0` });
    expect(refused.success).toBe(false);
    expect(refused.output).toContain('more than 2 redirects (tools.http.max_redirects)');
  });

  it('sends a JSON body with POST, and a 303 turns into a GET', async () => {
    const site = await server((req, res) => {
      if (req.method === 'POST') {
        res.writeHead(303, { location: '/created/1' });
        res.end();
      } else {
        res.end('created item 1');
      }
    });
    const { call } = httpHarness();
    const result = await call('http', { method: 'POST', url: `${site.origin}/items`, body: { name: 'milk', qty: 2 } });
    expect(site.seen[0]).toMatchObject({ method: 'POST', body: '{"name":"milk","qty":2}' });
    expect(site.seen[0]?.headers['content-type']).toBe('application/json');
    expect(site.seen[1]).toMatchObject({ method: 'GET', url: '/created/1', body: '' });
    expect(result.output).toContain('created item 1');
  });

  it('keeps the method and body on a 307', async () => {
    const site = await server((req, res) => {
      if (req.url === '/old') {
        res.writeHead(307, { location: '/new' });
        res.end();
      } else {
        res.end(`${req.method} ok`);
      }
    });
    const { call } = httpHarness();
    await call('http', { method: 'PUT', url: `${site.origin}/old`, body: 'plain text' });
    expect(site.seen[1]).toMatchObject({ method: 'PUT', url: '/new', body: 'plain text' });
    expect(site.seen[1]?.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('shows selected headers for HEAD', async () => {
    const site = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', etag: '"v7"', 'set-cookie': 'session=abc' });
      res.end();
    });
    const { call } = httpHarness();
    const result = await call('http', { method: 'HEAD', url: `${site.origin}/` });
    expect(result.output).toContain('etag: "v7"');
    expect(result.output).not.toContain('session=abc');
  });

  it('tells the model what to fix for bad input', async () => {
    const { call } = httpHarness({ presets: { api: { base_url: 'https://api.example.com' } } });
    expect((await call('http', { url: '/relative' })).output).toContain('is not an absolute URL. Give a full http(s) URL, or a path together with one of the presets: api');
    expect((await call('http', { url: 'ftp://example.com/file' })).output).toContain('Only http and https URLs are supported');
    expect((await call('http', { url: 'https://example.com/', body: 'x' })).output).toContain('GET requests cannot carry a body');
    expect((await call('http', { url: '/x', preset: 'nope' })).output).toContain('preset must be one of "api"');
  });

  it('refuses an unknown preset with the list of valid ones when none are enumerated in the schema', async () => {
    const { call } = httpHarness();
    expect((await call('http', { url: '/x', preset: 'nope' })).output).toContain('Unknown preset "nope". Valid presets: (none configured)');
  });

  it('says clearly when nothing listens', async () => {
    const site = await server((_req, res) => res.end());
    const origin = site.origin;
    await site.close();
    servers.splice(servers.indexOf(site), 1);
    const { call } = httpHarness();
    const result = await call('http', { url: `${origin}/` });
    expect(result.output).toContain(`${origin.slice('http://'.length)} refused the connection. Check the URL.`);
  });
});

describe('http risk', () => {
  it('is low for GET and high for every other method', () => {
    expect(httpRisk({ method: 'GET' })).toBe('low');
    expect(httpRisk({})).toBe('low');
    for (const method of ['HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']) expect(httpRisk({ method })).toBe('high');
  });

  it('asks the approval handler before a POST, and not before a GET', async () => {
    const site = await server((_req, res) => res.end('ok'));
    const { registry } = httpHarness();
    const asked: string[] = [];
    const request = (method: string) =>
      registry.execute({
        name: 'http', arguments: { method, url: `${site.origin}/` }, conversationId: 'c', turnId: 't', origin: { channel: 'cli', chatId: 'x' },
        approve: async (approval) => {
          asked.push(`${approval.tool}:${String(approval.params.method)}:${approval.risk}`);
          return { approved: false, reason: 'not now' };
        },
      });
    expect((await request('GET')).result.success).toBe(true);
    const denied = await request('POST');
    expect(denied.result.output).toContain('was not approved: not now');
    expect(asked).toEqual(['http:POST:high']);
    expect(site.seen.map((seen) => seen.method)).toEqual(['GET']);
  });
});
