import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { validateConfig } from '../../src/config/load.js';
import type { Daemon as App } from '../../src/daemon.js';
import { BUILTIN_TOOLS } from '../../src/tools/builtins.js';
import type { AnyTool } from '../../src/tools/types.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, tempDir, writeTestConfig } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';

// `reader` is granted what reads; `home` one shared permission for two tools; `lookup` declares nothing.
const AGENTS = {
  reader: { tools: ['*'], permissions: ['memory.read', 'home.lights'] },
  helper: { tools: ['*'], permissions: ['memory.*', 'home.*', 'tool:lookup'] },
};
const ROUTES = [
  { channel: 'telegram', chat_id: 1, agent: 'reader' },
  { channel: 'telegram', chat_id: 2, agent: 'helper' },
];

describe('named permissions', () => {
  let fake: FakeOpenAI;
  let app: App;
  let ran: string[];

  const tool = (name: string, extra: Partial<AnyTool> = {}): AnyTool => ({
    name,
    description: name,
    parameters: { type: 'object', properties: { action: { type: 'string' } } },
    effects: [],
    async execute(params: Record<string, unknown>) {
      ran.push(`${name}${typeof params.action === 'string' ? ` ${params.action}` : ''}`);
      return { success: true, output: `${name} ran` };
    },
    ...extra,
  });

  beforeAll(async () => {
    fake = await startOpenAiServer();
    app = (await makeTestApp(fake, { agents: AGENTS, routes: ROUTES })).app;
    app.tools.register(tool('lamp', { permissions: ['home.lights'], callPermissions: (params: Record<string, unknown>) => (params.action === 'unplug' ? ['home.admin'] : []) }));
    app.tools.register(tool('dimmer', { permissions: ['home.lights'] }));
    app.tools.register(tool('lookup'));
  });

  afterAll(async () => {
    await app.close(0);
    await fake.close();
  });

  beforeEach(() => {
    ran = [];
  });

  const offered = (index: number) => fake.requests[index]?.body.tools?.map((entry) => entry.function.name).sort();

  it('offers a tool only when every permission it needs is granted, one grant serving several tools', async () => {
    fake.script({ content: 'hi' }, { content: 'hi' });
    await app.turns.start({ text: 'hello', origin: { channel: 'telegram', chatId: '1' }, source: 'chat' });
    await app.turns.start({ text: 'hello', origin: { channel: 'telegram', chatId: '2' }, source: 'chat' });
    const at = fake.requests.length;
    expect(offered(at - 2)).toEqual(['dimmer', 'lamp', 'memory_read', 'memory_search']);
    expect(offered(at - 1)).toEqual(['dimmer', 'lamp', 'lookup', 'memory_read', 'memory_search', 'memory_write']);
  });

  it('refuses a call to a tool whose permission is not granted, naming the permission', async () => {
    fake.script({ toolCalls: [{ name: 'memory_write', arguments: { path: 'x.md', content: 'no' } }] }, { content: 'could not' });
    await app.turns.start({ text: 'write it', origin: { channel: 'telegram', chatId: '1' }, source: 'chat' });
    const toolMessage = fake.requests.at(-1)?.body.messages.filter((message) => message.role === 'tool').at(-1);
    expect(toolMessage?.content).toContain('Tool "memory_write" is not allowed here (needs the permission "memory.write", which agent "reader" is not granted (agents.reader.permissions))');
  });

  it('treats a tool that declares nothing as needing tool:<name>', async () => {
    fake.script({ toolCalls: [{ name: 'lookup', arguments: {} }] }, { content: 'no' }, { toolCalls: [{ name: 'lookup', arguments: {} }] }, { content: 'yes' });
    await app.turns.start({ text: 'look', origin: { channel: 'telegram', chatId: '1' }, source: 'chat' });
    expect(ran).toEqual([]);
    await app.turns.start({ text: 'look', origin: { channel: 'telegram', chatId: '2' }, source: 'chat' });
    expect(ran).toEqual(['lookup']);
  });

  it('checks in the gate what one call needs beyond its tool, and refuses without asking', async () => {
    fake.script(
      { toolCalls: [{ name: 'lamp', arguments: { action: 'on' } }, { name: 'lamp', arguments: { action: 'unplug' } }] },
      { content: 'done' },
      { toolCalls: [{ name: 'lamp', arguments: { action: 'unplug' } }] },
      { content: 'done' },
    );
    await app.turns.start({ text: 'lights', origin: { channel: 'telegram', chatId: '1' }, source: 'chat' });
    expect(ran).toEqual(['lamp on']);
    const toolMessages = fake.requests.at(-1)?.body.messages.filter((message) => message.role === 'tool') ?? [];
    expect(toolMessages.at(-1)?.content).toContain('this call needs the permission "home.admin", which agent "reader" is not granted');
    await app.turns.start({ text: 'unplug', origin: { channel: 'telegram', chatId: '2' }, source: 'chat' });
    expect(ran).toEqual(['lamp on', 'lamp unplug']);
  });
});

describe('named permissions in config and on the command line', () => {
  it('refuses a grant that is not a permission, naming the key', () => {
    expect(() => validateConfig({ agents: { reader: { permissions: ['email send'] } } })).toThrow(/agents\.reader\.permissions\.0/);
  });

  it('declares at least one permission for every built-in tool', () => {
    expect(BUILTIN_TOOLS.filter((tool) => tool.permissions.length === 0).map((tool) => tool.name)).toEqual([]);
    expect(BUILTIN_TOOLS.find((tool) => tool.name === 'write')?.permissions).toEqual(['files.write']);
  });

  it('says why each tool is or is not offered to an agent', async () => {
    const configPath = writeTestConfig(tempDir(), undefined, { agents: { reader: { tools: ['*', '!memory_search'], permissions: ['memory.read'] } } });
    const text = captureIo();
    expect(await runCli(['tools', 'list', '--agent', 'reader', '--config', configPath], text)).toBe(0);
    expect(text.out()).toMatch(/^memory_read — low risk\n[^\n]*\n {2}permissions: memory\.read$/m);
    expect(text.out()).toContain('Not offered to agent "reader":');
    expect(text.out()).toContain('memory_write — needs the permission "memory.write", which agent "reader" is not granted');
    expect(text.out()).toContain('memory_search — left out by "!memory_search" in the tool list');
    const json = captureIo();
    expect(await runCli(['tools', 'list', '--agent', 'reader', '--json', '--all', '--config', configPath], json)).toBe(0);
    const rows = JSON.parse(json.out()) as Array<{ name: string; offered: boolean; why?: string; permissions: string[] }>;
    expect(rows.filter((row) => row.offered).map((row) => row.name)).toEqual(['memory_read']);
    expect(rows.find((row) => row.name === 'memory_write')).toMatchObject({ offered: false, permissions: ['memory.write'] });
  });
});
