// The examples in examples/tools, copied into a tools folder outside the checkout, in the whole daemon with the fake
// LLM: loaded, offered to the model, called, audited, reloaded after an edit, refused where the agent may not use
// them. The meter is a local fake Tasmota device speaking its HTTP API.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../src/audit/query.js';
import type { Daemon } from '../../src/daemon.js';
import type { FamiliarEvent } from '../../src/tools/events.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, tempDir } from '../helpers/app.js';
import { waitUntil } from '../helpers/daemon.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/tools/', import.meta.url));

/** A Tasmota device's `GET /cm?cmnd=Status 10`. */
async function startMeter(): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://meter');
    if (url.pathname !== '/cm' || url.searchParams.get('cmnd') !== 'Status 10') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ StatusSNS: { Time: '2026-11-03T10:00:00', ENERGY: { TotalStartTime: '2025-01-01T00:00:00', Total: 1234.567, Yesterday: 5.1, Today: 3.2, Power: 350, Voltage: 231 } } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('the example tool module, in the daemon', () => {
  let fake: FakeOpenAI;
  let meter: Awaited<ReturnType<typeof startMeter>>;
  let app: Daemon | undefined;
  let toolsDir: string;

  beforeAll(async () => {
    fake = await startOpenAiServer();
    meter = await startMeter();
  });
  afterAll(async () => {
    await fake.close();
    await meter.close();
  });
  afterEach(async () => {
    await app?.close(0);
    app = undefined;
  });

  async function start(overrides: Record<string, unknown> = {}): Promise<Daemon> {
    toolsDir = path.join(tempDir('familiar-mytools-'), 'tools');
    mkdirSync(toolsDir);
    for (const file of ['electricity_meter.mjs', 'redact_iban.mjs']) copyFileSync(path.join(EXAMPLES, file), path.join(toolsDir, file));
    const made = await makeTestApp(fake, { tools_dir: toolsDir, tools: { settings: { electricity_meter: { url: meter.url } } }, ...overrides }, undefined, { mode: 'command' });
    app = made.app;
    return app;
  }

  const ask = (daemon: Daemon, text: string, chatId = 'terminal') => daemon.turns.start({ text, origin: { channel: 'cli', chatId, userId: 'owner' }, source: 'cli' });

  it('is offered to the model, called, and its reading reaches the answer; the call is audited', async () => {
    const daemon = await start();
    fake.script({ toolCalls: [{ name: 'electricity_meter', arguments: {} }] }, { content: 'You are drawing 350 W.' });
    const result = await ask(daemon, 'How much power are we using?');
    expect(result.text).toBe('You are drawing 350 W.');
    const offered = fake.requests.at(-2)?.body.tools?.find((tool) => tool.function.name === 'electricity_meter');
    expect(offered?.function.description).toMatch(/Reads the home electricity meter/);
    const toolMessage = fake.requests.at(-1)?.body.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toBe('Meter (2026-11-03T10:00:00): drawing 350 W now; today 3.2 kWh, yesterday 5.1 kWh, total 1234.567 kWh.');
    expect(meter.requests.at(-1)).toBe('/cm?cmnd=Status+10');
    const [row] = listAudit(daemon.db, { tool: 'electricity_meter' });
    expect(row).toMatchObject({ tool: 'electricity_meter', success: true, input: '{}', output: expect.stringContaining('350 W') });
  });

  it('sends turn and call events, and what the tool emits, to listeners', async () => {
    const daemon = await start();
    const seen: FamiliarEvent[] = [];
    daemon.events.on('*', (event) => {
      seen.push(event);
    });
    fake.script({ toolCalls: [{ name: 'electricity_meter', arguments: {} }] }, { content: 'ok' });
    await ask(daemon, 'power?');
    expect(seen.map((event) => event.type)).toEqual(['turn:start', 'meter:reading', 'tool:call', 'turn:end']);
    expect(seen[1]).toMatchObject({ tool: 'electricity_meter', powerW: 350, totalKwh: 1234.567 });
    expect(seen[3]).toMatchObject({ status: 'ok', toolCalls: 1, origin: { channel: 'cli', chatId: 'terminal' } });
  });

  it('runs the example hook on every result: an IBAN in a tool\'s output is masked before the model sees it', async () => {
    const daemon = await start();
    daemon.tools.register({
      name: 'bank_statement', description: 'x', parameters: { type: 'object' },
      execute: async () => ({ success: true, output: 'Paid from DE89 3704 0044 0532 0130 00 today.' }),
    });
    const { result } = await daemon.tools.execute({ name: 'bank_statement', arguments: {}, conversationId: 'c', turnId: 't', origin: { channel: 'cli', chatId: 'x' } });
    expect(result.output).toBe('Paid from DE89…[IBAN hidden] today.');
  });

  it('is refused, and not offered, where the agent may not use it', async () => {
    const daemon = await start({
      agents: { default: { tools: ['*'] }, kids: { tools: ['memory.*'] } },
      routes: [{ channel: 'cli', chat_id: 'kids', agent: 'kids' }],
    });
    fake.script({ toolCalls: [{ name: 'electricity_meter', arguments: {} }] }, { content: 'I cannot.' });
    const before = meter.requests.length;
    await ask(daemon, 'power?', 'kids');
    const names = fake.requests.at(-2)?.body.tools?.map((tool) => tool.function.name) ?? [];
    expect(names).not.toContain('electricity_meter');
    expect(names).toContain('memory_read');
    const toolMessage = fake.requests.at(-1)?.body.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toMatch(/Tool "electricity_meter" is not allowed here/);
    expect(meter.requests.length).toBe(before);
    // The default agent still has it.
    fake.script({ toolCalls: [{ name: 'electricity_meter', arguments: {} }] }, { content: 'ok' });
    await ask(daemon, 'power?');
    expect(meter.requests.length).toBe(before + 1);
  });

  it('is picked up again after an edit, in the running daemon', async () => {
    const daemon = await start();
    await daemon.start();
    const file = path.join(toolsDir, 'electricity_meter.mjs');
    writeFileSync(file, readFileSync(file, 'utf8').replace('Meter${at}: drawing', 'Meter${at} (edited): drawing'));
    // The watcher is off in a one-shot command's daemon: the reload hook (what SIGHUP calls) does it.
    await daemon.reloadParts();
    const { result } = await daemon.tools.execute({ name: 'electricity_meter', arguments: {}, conversationId: 'c', turnId: 't', origin: { channel: 'cli', chatId: 'x' } });
    expect(result.output).toMatch(/^Meter \(2026-11-03T10:00:00\) \(edited\): drawing 350 W/);
  });

  it('says so when its settings are missing', async () => {
    const daemon = await start({ tools: { settings: {} } });
    const { result } = await daemon.tools.execute({ name: 'electricity_meter', arguments: {}, conversationId: 'c', turnId: 't', origin: { channel: 'cli', chatId: 'x' } });
    expect(result).toEqual({ success: false, output: 'The meter address is not configured (tools.settings.electricity_meter.url in config.yaml); tell the person.' });
  });
});

describe('a bad module in the daemon', () => {
  it('is reported with its file at start; the daemon and the other tools run', async () => {
    const fake = await startOpenAiServer();
    const toolsDir = path.join(tempDir('familiar-mytools-'), 'tools');
    mkdirSync(toolsDir);
    copyFileSync(path.join(EXAMPLES, 'electricity_meter.mjs'), path.join(toolsDir, 'electricity_meter.mjs'));
    writeFileSync(path.join(toolsDir, 'lamp.mjs'), "import { defineTool } from 'familiar';\nexport default defineTool({ name: 'lamp', description: 'x', parameters: { type: 'object' }, execute() { return 'on' } ");
    const { app, logs } = await makeTestApp(fake, { tools_dir: toolsDir, tools: { watch: true } });
    try {
      await app.start();
      expect(app.failedParts()).toEqual([]);
      expect(app.tools.get('electricity_meter')).toBeDefined();
      expect(app.tools.get('lamp')).toBeUndefined();
      const line = logs.map((text) => JSON.parse(text) as { msg: string; file?: string; level: number }).find((entry) => entry.msg.startsWith('custom tools: lamp.mjs:'));
      expect(line).toMatchObject({ level: 50, file: path.join(toolsDir, 'lamp.mjs'), msg: expect.stringMatching(/syntax error at line 2/) });
      // Fixed on disk: the running daemon's watcher loads it.
      writeFileSync(path.join(toolsDir, 'lamp.mjs'), "import { defineTool } from 'familiar';\nexport default defineTool({ name: 'lamp', description: 'x', parameters: { type: 'object' }, execute() { return 'on' } });\n");
      await waitUntil(() => app.tools.get('lamp') !== undefined, 5000, 'the fixed module to load');
      fake.script({ content: 'still answering' });
      const result = await app.turns.start({ text: 'hi', origin: { channel: 'cli', chatId: 'terminal', userId: 'owner' }, source: 'cli' });
      expect(result.text).toBe('still answering');
    } finally {
      await app.close(0);
      await fake.close();
    }
  });
});
