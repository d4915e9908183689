// Markers and labels survive every cut. Every tool that returns outside content is called on content larger than its
// limit, at output caps from the smallest the config allows to larger than the content: the outside-content envelope
// the model reads is always closed (else the cap's note, and whatever follows in the turn, would read as the page's
// words), no marker is cut in half, and the third-party text kept for vouching is what the model was shown.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon.js';
import { capOutput } from '../../src/registry/output.js';
import { EXTERNAL_BEGIN, EXTERNAL_END, wrapExternal } from '../../src/tools/external.js';
import type { CallOutcome } from '../../src/tools/call.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { startSearxngServer, type FakeSearchServer } from '../fakes/search-servers.js';
import { makeTestApp, tempDir } from '../helpers/app.js';
import { describeDocker, TEST_IMAGE } from '../helpers/docker.js';
import { describeMail } from '../helpers/mail.js';
import { appendMessage, startMailServer, type MailServer } from '../helpers/mail-server.js';

const MCP_SERVER = fileURLToPath(new URL('../fakes/mcp-server.mjs', import.meta.url));
/** From the smallest `tools.output_chars` the config takes to more than any content here. */
const LIMITS = [500, 501, 777, 1500, 4000, 9000, 16_000, 40_000, 120_000];
/** Words and links, long enough to be cut at every limit but the last. */
const BODY = Array.from({ length: 900 }, (_, index) => `Paragraph ${index}: roses bloom in June, see https://garden.example/p/${index} for more.`).join('\n');

/** What must hold for any output at any limit. */
function checkEnvelopes(outcome: CallOutcome, limit: number, what: string): void {
  const { output, thirdParty } = outcome.result;
  const begins = [...output.matchAll(new RegExp(EXTERNAL_BEGIN, 'g'))].map((match) => match.index ?? 0);
  const ends = [...output.matchAll(new RegExp(EXTERNAL_END.replace(/[<>]/g, '\\$&'), 'g'))].map((match) => match.index ?? 0);
  expect(ends.length, `${what} at ${limit}: every envelope closed`).toBe(begins.length);
  begins.forEach((begin, index) => {
    expect(ends[index] ?? -1, `${what} at ${limit}: the end follows its begin`).toBeGreaterThan(begin);
    if (index > 0) expect(begin, `${what} at ${limit}: envelopes do not nest`).toBeGreaterThan(ends[index - 1] ?? -1);
  });
  // No half marker: any "<<<" left is the start of a whole marker.
  for (const match of output.matchAll(/<<<[A-Z_]*/g)) expect([EXTERNAL_BEGIN, EXTERNAL_END.slice(0, 25)].some((marker) => output.startsWith(marker.slice(0, 8), match.index ?? 0) && match[0].length >= 5), `${what} at ${limit}: whole markers only`).toBe(true);
  expect(output.length, `${what} at ${limit}: within the cap and its note`).toBeLessThanOrEqual(limit + EXTERNAL_END.length + 200);
  for (const segment of thirdParty ?? []) expect(output.includes(segment), `${what} at ${limit}: third-party text is what was shown`).toBe(true);
}

describe('the output cap on its own', () => {
  it('closes an envelope it cuts, and never cuts a marker in half', () => {
    const wrapped = `head\n${wrapExternal('https://x.example', BODY)}\ntail`;
    for (let limit = 1; limit < wrapped.length + 10; limit += 97) {
      const capped = wrapped.length > limit ? capOutput(wrapped, limit) : wrapped;
      const begins = capped.split(EXTERNAL_BEGIN).length - 1;
      const ends = capped.split(EXTERNAL_END).length - 1;
      expect(ends, `limit ${limit}`).toBe(begins);
      expect(/<<<(?!EXTERNAL_CONTENT source|END_EXTERNAL_CONTENT>>>)/.test(capped), `limit ${limit}`).toBe(false);
    }
  });
});

describe('every tool that returns outside content, at every cap', () => {
  let fake: FakeOpenAI;
  let search: FakeSearchServer;
  let web: Server;
  let app: Daemon;
  let base = '';

  beforeAll(async () => {
    fake = await startOpenAiServer();
    search = await startSearxngServer();
    search.results = Array.from({ length: 40 }, (_, index) => ({ title: `Roses ${index} ${'r'.repeat(80)}`, url: `https://garden.example/r/${index}`, snippet: BODY.slice(index * 300, index * 300 + 400) }));
    web = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<html><head><title>Garden</title></head><body><article><h1>Garden</h1>${BODY.split('\n').map((line) => `<p>${line}</p>`).join('')}</article></body></html>`);
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
    const dir = tempDir('familiar-markers-');
    mkdirSync(path.join(dir, 'memory', 'notes'), { recursive: true });
    writeFileSync(path.join(dir, 'memory', 'notes', 'clip.md'), `---\ntitle: Clip\nsource: ${base}/\ntags: [clippings]\n---\n${BODY}\n`);
    writeFileSync(path.join(dir, 'memory', 'saved.md'), BODY);
    writeFileSync(path.join(dir, 'memory', 'tasks.md'), BODY.split('\n').slice(0, 200).map((line) => `- [ ] ${line}`).join('\n'));
    app = (await makeTestApp(fake, {
      memory_dir: './memory',
      approval: { auto_approve: ['mcp.*'] },
      tools: {
        http: { allow_private: true },
        web_search: { provider: 'searxng', base_url: search.baseUrl },
        mcp: { servers: { fake: { command: process.execPath, args: [MCP_SERVER] } } },
      },
    }, dir)).app;
    await app.mcp?.connectNow();
    // What an earlier tainted turn left: saved.md and the task list are labelled as outside content.
    const { ProvenanceLabels } = await import('../../src/gate/labels.js');
    const labels = new ProvenanceLabels(app.db);
    labels.label('memory', 'saved.md', [`http:${base}`]);
    labels.label('memory', 'tasks.md', [`http:${base}`]);
  }, 60_000);

  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
    await search?.close();
    web?.close();
  });

  const calls: Array<{ name: string; args: () => Record<string, unknown> }> = [
    { name: 'http', args: () => ({ url: `${base}/` }) },
    { name: 'web_search', args: () => ({ query: 'roses', max_results: 20 }) },
    { name: 'web_scrape', args: () => ({ url: `${base}/` }) },
    { name: 'mcp__fake__echo', args: () => ({ text: BODY }) },
    { name: 'memory_read', args: () => ({ path: 'saved.md' }) },
    { name: 'memory_search', args: () => ({ query: 'roses' }) },
    { name: 'note_read', args: () => ({ note: 'Clip' }) },
    { name: 'task_search', args: () => ({ text: 'roses', limit: 200 }) },
  ];

  for (const call of calls) {
    it(`${call.name}: the envelope is closed and the third-party text is what was shown, at every cap`, async () => {
      for (const limit of LIMITS) {
        app.tools.setLimits({ outputChars: limit });
        const outcome = await app.tools.execute({ name: call.name, arguments: call.args(), conversationId: 'markers', turnId: `t-${limit}`, origin: { channel: 'cli', chatId: 'markers' } });
        expect(outcome.result.success, `${call.name} at ${limit}: ${outcome.result.output.slice(0, 200)}`).toBe(true);
        expect(outcome.result.output, `${call.name} at ${limit}`).toContain(EXTERNAL_BEGIN);
        checkEnvelopes(outcome, limit, call.name);
      }
    }, 60_000);
  }
});

describeMail('mail, at every cap', () => {
  let server: MailServer;
  let fake: FakeOpenAI;
  let app: Daemon;
  let uid = 0;
  beforeAll(async () => {
    server = await startMailServer();
    fake = await startOpenAiServer();
    uid = (await appendMessage(server, 'me', `From: Alice <${server.users.alice.address}>\r\nTo: ${server.users.me.address}\r\nSubject: Long\r\nMessage-ID: <long@x>\r\n\r\n${BODY.replace(/\n/g, '\r\n')}\r\n`)) ?? 0;
    for (let index = 0; index < 30; index += 1) await appendMessage(server, 'me', `From: Bob <bob@x.example>\r\nTo: ${server.users.me.address}\r\nSubject: Note ${index} ${'s'.repeat(120)}\r\nMessage-ID: <n${index}@x>\r\n\r\nhi\r\n`);
    app = (await makeTestApp(fake, {
      tools: {
        email: {
          imap: { host: server.host, port: server.imapPort, secure: false, user: server.users.me.user, password: server.users.me.password },
          ca: server.ca,
        },
      },
    })).app;
  }, 120_000);
  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
    await server?.stop();
  });

  it('email read and list: the envelope is closed at every cap', async () => {
    for (const limit of LIMITS) {
      app.tools.setLimits({ outputChars: limit });
      for (const args of [{ action: 'read', uid }, { action: 'list', limit: 50 }]) {
        const outcome = await app.tools.execute({ name: 'email', arguments: args, conversationId: 'mail', turnId: `t-${limit}`, origin: { channel: 'cli', chatId: 'mail' } });
        expect(outcome.result.success, outcome.result.output.slice(0, 200)).toBe(true);
        checkEnvelopes(outcome, limit, `email ${args.action}`);
      }
    }
  }, 120_000);
});

describeDocker('a file the container wrote, at every cap', () => {
  let fake: FakeOpenAI;
  let app: Daemon;
  beforeAll(async () => {
    fake = await startOpenAiServer();
    app = (await makeTestApp(fake, { tools: { sandbox: { image: TEST_IMAGE, pool_size: 0, labels: { 'familiar.test': 'markers' } } } })).app;
  }, 120_000);
  afterAll(async () => {
    await app?.close(0);
    await fake?.close();
  });

  it('read: the envelope is closed at every cap', async () => {
    const conversationId = app.conversations.resolve('cli', 'sandbox');
    const workspace = await app.sandbox?.workspaces.ensure(conversationId);
    if (!workspace) throw new Error('no workspace');
    writeFileSync(path.join(workspace, 'big.txt'), BODY);
    for (const limit of LIMITS) {
      app.tools.setLimits({ outputChars: limit });
      const outcome = await app.tools.execute({ name: 'read', arguments: { path: 'big.txt' }, conversationId, turnId: `t-${limit}`, origin: { channel: 'cli', chatId: 'sandbox' } });
      expect(outcome.result.success, outcome.result.output.slice(0, 200)).toBe(true);
      checkEnvelopes(outcome, limit, 'read');
    }
  }, 120_000);
});
