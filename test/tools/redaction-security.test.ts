// Redaction that holds: configured secrets — credentials in any URL included — never reach the model, the
// database (audit, messages), the logs or an approval question, in any form they are printed in: as they are,
// JSON-escaped, URL-encoded (%20 and +), base64 (standard, url-safe, and the Basic `user:password` form).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import { loadConfig } from '../../src/config/load.js';
import type { AnyTool } from '../../src/tools/types.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, tempDir, writeTestConfig, type TestApp } from '../helpers/app.js';
import { askWith, recordingPrompter } from '../helpers/approval.js';

// Quotes, a backslash, a space, a plus and a non-ASCII letter: every encoding differs from the raw value.
const PASSWORD = 'p"a\\ss w+rd/ü-7';
const USER = 'alice';
const origin = { channel: 'telegram', chatId: '4242', userId: '4242' };

/** Every form the tests print a secret in. */
function encodings(secret: string): Record<string, string> {
  const bytes = Buffer.from(secret, 'utf8');
  return {
    raw: secret,
    json: JSON.stringify(secret).slice(1, -1),
    jsonTwice: JSON.stringify(JSON.stringify(secret)).slice(1, -1),
    percent: encodeURIComponent(secret),
    form: new URLSearchParams({ s: secret }).toString().slice(2),
    base64: bytes.toString('base64'),
    base64url: bytes.toString('base64url'),
  };
}

const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
/** What must never appear: every encoding of the password, and the Basic header's token. */
const FORBIDDEN = [...Object.values(encodings(PASSWORD)), BASIC];

describe('redaction of configured secrets', () => {
  let fake: FakeOpenAI;
  let echo: Server;
  let port: number;
  let t: TestApp;
  let app: App;
  const seenByServer: string[] = [];

  beforeEach(async () => {
    fake = await startOpenAiServer();
    // An API that echoes what it received, and prints the password in every encoding (a debug endpoint).
    echo = createServer((request, response) => {
      seenByServer.push(String(request.headers.authorization));
      const decoded = Buffer.from(String(request.headers.authorization).replace(/^Basic /, ''), 'base64').toString('utf8');
      const password = decoded.slice(decoded.indexOf(':') + 1);
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({
        headers: request.headers,
        ...encodings(password),
        inFile: Buffer.from(`config file\npassword=${password}\nend\n`).toString('base64'),
        query: `https://example.org/login?user=${USER}&pass=${encodeURIComponent(password)}`,
      }));
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    port = (echo.address() as AddressInfo).port;
    const base = `http://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`;
    t = await makeTestApp(fake, { tools: { http: { presets: { home: { base_url: base, description: 'home API' } } } } });
    app = t.app;
  });

  afterEach(async () => {
    await app.close(0);
    await new Promise((resolve) => echo.close(resolve));
    await fake.close();
  });

  const expectClean = (label: string, text: string) => {
    for (const form of FORBIDDEN) expect(text.includes(form), `${label} contains ${JSON.stringify(form)}`).toBe(false);
  };
  const database = () =>
    JSON.stringify([app.db.prepare('SELECT body FROM messages').all(), app.db.prepare('SELECT input, output, error FROM audit').all()]);

  it("the Basic header made from a preset's user:password@ never reaches the model, the database or the logs", async () => {
    fake.script({ toolCalls: [{ name: 'http', arguments: { preset: 'home', url: '/whoami' } }] }, { content: 'done' });
    const result = await app.turns.start({ text: 'who am I at home?', origin, source: 'chat' });
    expect(result.status).toBe('ok');
    // The credentials were sent…
    expect(seenByServer.at(-1)).toBe(`Basic ${BASIC}`);
    // …and every printed form of them came back redacted.
    const toolMessage = String(fake.requests.at(-1)?.body.messages.filter((message) => message.role === 'tool').at(-1)?.content);
    expect(toolMessage).toContain('[REDACTED]');
    expect(toolMessage).toContain('"authorization": "Basic [REDACTED]"');
    expectClean('what the model read', JSON.stringify(fake.requests.map((request) => request.body)));
    expectClean('the database', database());
    expectClean('the logs', t.logs.join(''));
    expect(toolMessage).not.toContain(Buffer.from(`config file\npassword=${PASSWORD}\nend\n`).toString('base64'));
  });

  it('log lines are redacted on the values, whatever the form or place of the secret', () => {
    const secret = PASSWORD;
    const log = app.log.child({ component: 'test', target: `https://${USER}:${encodeURIComponent(secret)}@host/` });
    log.info({ raw: secret, nested: { deeper: [`x ${secret} y`] }, json: JSON.stringify({ secret }), encoded: encodeURIComponent(secret) }, `message with ${secret}`);
    log.warn({ err: new Error(`failed for ${secret}`), form: new URLSearchParams({ secret }).toString() }, 'with an error');
    log.info('formatted %s and %j', secret, { secret });
    log.error({ err: new AggregateError([new Error(`inner ${secret}`)], 'several failed') }, 'aggregate');
    log.info({ basic: `Basic ${BASIC}`, base64: Buffer.from(secret).toString('base64url') }, 'encoded');
    const lines = t.logs.slice(-5);
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      expect(() => JSON.parse(line)).not.toThrow();
      expectClean('a log line', line);
    }
    expect(lines[0]).toContain('"raw":"[REDACTED]"');
    expect(lines[0]).toContain('"msg":"message with [REDACTED]"');
    expect(lines[1]).toContain('failed for [REDACTED]');
  });

  it('a tool result, its audit row and an approval question redact every encoded form', async () => {
    const printer: AnyTool = {
      name: 'print_env', description: 'Prints things.', parameters: { type: 'object', properties: {} },
      async execute() {
        return { success: true, output: Object.entries(encodings(PASSWORD)).map(([name, value]) => `${name}=${value}`).join('\n') };
      },
    };
    const sender: AnyTool = {
      name: 'send_blob', description: 'Sends data.', risk: 'high', parameters: { type: 'object', properties: { to: { type: 'string' }, data: { type: 'string' } } },
      async execute() {
        return { success: true, output: 'sent' };
      },
    };
    app.tools.register(printer);
    app.tools.register(sender);
    const prompter = recordingPrompter('deny');
    fake.script(
      { toolCalls: [{ name: 'print_env', arguments: {} }] },
      { toolCalls: [{ name: 'send_blob', arguments: { to: `https://x.test/?k=${encodeURIComponent(PASSWORD)}`, data: `b64 ${Buffer.from(PASSWORD).toString('base64')} json ${JSON.stringify(PASSWORD)}` } }] },
      { content: 'ok' },
    );
    await app.turns.start({ text: 'print and send', origin, source: 'chat', approve: askWith(app, prompter) });
    const question = prompter.prompts[0]?.text ?? '';
    expect(question).toContain('to: "https://x.test/?k=[REDACTED]"');
    expect(question).toContain('b64 [REDACTED] json \\"[REDACTED]\\"');
    expectClean('the approval question', question);
    // What tools gave the model (its own calls it wrote itself; here the fake model "knew" the secret).
    const toolMessages = fake.requests.flatMap((request) => request.body.messages.filter((message) => message.role === 'tool').map((message) => String(message.content)));
    expect(toolMessages.some((message) => message.includes('raw=[REDACTED]'))).toBe(true);
    expectClean('what tools gave the model', toolMessages.join('\n'));
    expectClean('the database', database());
    expectClean('the logs', t.logs.join(''));
  });
});

describe('credentials in any configured URL are secrets', () => {
  it('collects them from the LLM base_url, a preset, an MCP url, SearXNG and a command argument', () => {
    const dir = tempDir();
    const configPath = writeTestConfig(dir, undefined, {
      llm: { base_url: 'https://llm-user:llm-pass-1@llm.invalid/v1' },
      tools: {
        http: { presets: {
          nas: { base_url: 'http://admin:nas%20pass%2B2@nas.lan:5000/api' },
          hook: { base_url: 'https://hooks.example.org/services/T0123/B0456/abcdEFGH1234ijkl5678mnop' },
        } },
        skills: { hub: 'file:///tmp/familiar-hub-repo-2edQJY8' },
        web_search: { provider: 'searxng', base_url: 'https://search.invalid/?token=searx-token-3&lang=en' },
        mcp: { servers: {
          remote: { url: 'https://mcp.invalid/mcp?api_key=mcp-key-4' },
          local: { command: 'node', args: ['server.js', '--upstream', 'https://bot:upstream-pass-5@up.invalid'] },
        } },
      },
    });
    const { secrets } = loadConfig({ configPath, env: { TEST_LLM_KEY: 'sk-test-key' } });
    for (const expected of ['llm-pass-1', 'llm-user:llm-pass-1', 'nas pass+2', 'nas%20pass%2B2', 'admin:nas pass+2', 'searx-token-3', 'mcp-key-4', 'upstream-pass-5', 'bot:upstream-pass-5']) {
      expect(secrets).toContain(expected);
    }
    // A webhook's token in the path is one; short path segments are not.
    expect(secrets).toContain('abcdEFGH1234ijkl5678mnop');
    for (const ordinary of ['en', 'llm-user', 'services', 'T0123', 'api', 'v1', 'mcp']) expect(secrets).not.toContain(ordinary);
    // A folder on this machine names a place: a long random temp-folder name is not a token.
    expect(secrets).not.toContain('familiar-hub-repo-2edQJY8');
  });
});
