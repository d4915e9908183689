// Built-in tools by name: the catalogue matches what the parts make, tools.enabled chooses among them (a misspelt name
// is a config error with a suggestion), and `familiar tools list --builtins` lists them without building anything.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import type { Daemon } from '../../src/daemon.js';
import { BUILTIN_TOOLS } from '../../src/tools/builtins.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, tempDir, writeTestConfig } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';

const EVERYTHING = {
  tools: {
    web_search: { provider: 'tavily', api_key: 'tvly-test-key' },
    email: { imap: { host: 'imap.example.com', user: 'me@example.com', password: 'pw-12345' } },
    sandbox: { image: 'familiar-sandbox:test', code_agent: { command: 'fake-agent run' } },
    images: { model: 'gpt-image-1' },
    calendar: { accounts: [{ url: 'https://dav.example.com/', user: 'me@example.com', password: 'pw-12345' }] },
  },
  // A household makes memory_share.
  people: { ann: { role: 'owner' } },
};

let fake: FakeOpenAI;
let app: Daemon | undefined;
beforeAll(async () => {
  fake = await startOpenAiServer();
});
afterAll(async () => {
  await fake.close();
});
afterEach(async () => {
  await app?.close(0);
  app = undefined;
});

const names = (daemon: Daemon) => daemon.tools.list().map((entry) => entry.name).sort();

describe('the catalogue of built-in tools', () => {
  it('names exactly the tools the parts make when every part is on, with their groups', async () => {
    app = (await makeTestApp(fake, EVERYTHING, undefined, { mode: 'command' })).app;
    expect(names(app)).toEqual(BUILTIN_TOOLS.map((tool) => tool.name).sort());
    for (const entry of app.tools.list()) expect(BUILTIN_TOOLS.find((tool) => tool.name === entry.name)?.group).toBe(entry.group);
    // Each is registered with the catalogue's named permissions (or its own), so agents' grant lists apply to all.
    for (const entry of app.tools.list()) expect(entry.permissions, entry.name).toEqual(entry.tool.permissions ?? BUILTIN_TOOLS.find((tool) => tool.name === entry.name)?.permissions);
  });

  it('keeps each one\'s schema in assets/builtin-tools.json, as the parts make it (npx vitest -u rewrites it)', async () => {
    app = (await makeTestApp(fake, EVERYTHING, undefined, { mode: 'command' })).app;
    const schemas = app.tools.list().map((entry) => ({ name: entry.name, description: entry.tool.description, parameters: entry.tool.parameters }));
    await expect(`${JSON.stringify(schemas, null, 2)}\n`).toMatchFileSnapshot('../../assets/builtin-tools.json');
  });

  it('says which tools a config leaves off, and why', () => {
    const bare = { tools: { sandbox: undefined, email: undefined, web_search: undefined, images: undefined } } as never;
    const off = BUILTIN_TOOLS.filter((tool) => tool.off?.(bare) !== undefined).map((tool) => tool.name);
    expect(off).toEqual(expect.arrayContaining(['web_search', 'email', 'sandbox_exec', 'read', 'opencode', 'email_tasks', 'image_generate']));
    expect(off).not.toContain('memory_read');
  });
});

describe('tools.enabled', () => {
  it('keeps every built-in when it is not set (nothing disappears)', async () => {
    app = (await makeTestApp(fake, EVERYTHING, undefined, { mode: 'command' })).app;
    expect(names(app)).toHaveLength(BUILTIN_TOOLS.length);
  });

  it('makes only the tools it names: names, groups and exclusions', async () => {
    app = (await makeTestApp(fake, { ...EVERYTHING, tools: { ...EVERYTHING.tools, enabled: ['memory.*', 'task_create', 'files.*', '!write', 'web_search'] } }, undefined, { mode: 'command' })).app;
    expect(names(app)).toEqual(['edit', 'glob', 'grep', 'listdir', 'memory_read', 'memory_search', 'memory_share', 'memory_write', 'read', 'task_create', 'web_search']);
    fake.script({ toolCalls: [{ name: 'schedule', arguments: { action: 'list' } }] }, { content: 'ok' });
    await app.turns.start({ text: 'jobs?', origin: { channel: 'cli', chatId: 'x', userId: 'owner' }, source: 'cli' });
    const offered = fake.requests.at(-2)?.body.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).not.toContain('schedule');
    const toolMessage = fake.requests.at(-1)?.body.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toMatch(/Unknown tool "schedule"/);
  });

  it('is a config error for a name that is no built-in tool, with the nearest one', async () => {
    const dir = tempDir();
    writeTestConfig(dir, fake, { tools: { enabled: ['memory_raed', 'web_search', 'notes.*', 'my_lamp'] } });
    const io = captureIo();
    const code = await runCli(['tools', 'list', '--builtins', '--config', path.join(dir, 'config.yaml')], io);
    expect(code).toBe(2);
    expect(io.err()).toContain('config: tools.enabled.0: no built-in tool named "memory_raed"; did you mean "memory_read"?');
    expect(io.err()).toContain('config: tools.enabled.2: no built-in tool group "notes"; did you mean "note.*"?');
    expect(io.err()).toMatch(/config: tools\.enabled\.3: no built-in tool named "my_lamp"; see `familiar tools list --builtins` for the names \(your own tools and MCP tools are not listed here/);
    await expect(makeTestApp(fake, { tools: { enabled: ['memory_raed'] } })).rejects.toThrow(/did you mean "memory_read"/);
  });
});

describe('familiar tools list --builtins', () => {
  it('lists every built-in with its part, its settings and whether it is on, without building anything', async () => {
    const dir = tempDir();
    // A Docker host that does not exist and a mail server nobody runs: nothing is asked, nothing is opened.
    writeTestConfig(dir, fake, { tools: { enabled: ['*', '!opencode'], sandbox: { docker_host: 'tcp://127.0.0.1:9' }, email: { imap: { host: '127.0.0.1', port: 9, user: 'x', password: 'y' } } } });
    const io = captureIo();
    const requests = fake.requests.length;
    const code = await runCli(['tools', 'list', '--builtins', '--config', path.join(dir, 'config.yaml')], io);
    expect(code).toBe(0);
    const out = io.out();
    expect(out).toMatch(/^memory_read +read a memory file \[memory, from memory_dir; needs memory\.read\] — on$/m);
    expect(out).toMatch(/^web_search +search the web .*\[web, from tools\.web_search; needs web\.search\] — off: needs tools\.web_search$/m);
    expect(out).toMatch(/^opencode +.* — left out by tools\.enabled$/m);
    expect(out).toMatch(/^sandbox_exec +.* — on$/m);
    expect(existsSync(path.join(dir, 'data', 'familiar.db'))).toBe(false);
    expect(fake.requests).toHaveLength(requests);
  });

  it('prints JSON with --json', async () => {
    const dir = tempDir();
    writeTestConfig(dir, fake, {});
    const io = captureIo();
    await runCli(['tools', 'list', '--builtins', '--json', '--config', path.join(dir, 'config.yaml')], io);
    const rows = JSON.parse(io.out()) as Array<{ name: string; enabled: boolean; available: boolean }>;
    expect(rows).toHaveLength(BUILTIN_TOOLS.length);
    expect(rows.find((row) => row.name === 'email')).toMatchObject({ enabled: true, available: false, off: 'needs tools.email' });
  });

  it('lists each built-in\'s schema (seed 004\'s SchemaForBuiltin) with --json, from the kept file', async () => {
    const dir = tempDir();
    writeTestConfig(dir, fake, {});
    const io = captureIo();
    expect(await runCli(['tools', 'list', '--builtins', '--json', '--config', path.join(dir, 'config.yaml')], io)).toBe(0);
    const rows = JSON.parse(io.out()) as Array<{ name: string; schema?: { name: string; description: string; parameters: { type?: string } } }>;
    expect(rows.map((row) => row.schema?.name)).toEqual(BUILTIN_TOOLS.map((tool) => tool.name));
    const read = rows.find((row) => row.name === 'memory_read')?.schema;
    expect(read?.description).toMatch(/\S/);
    expect(read?.parameters.type).toBe('object');
    expect(existsSync(path.join(dir, 'data', 'familiar.db'))).toBe(false);
  });
});
