import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveAgent } from '../../src/agent/profiles.js';
import type { Daemon as App } from '../../src/daemon.js';
import { runCli } from '../../src/cli/run.js';
import { validateConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import type { AnyTool } from '../../src/tools/types.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, tempDir, writeTestConfig } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';

const AGENTS = {
  default: { persona: 'You are the household helper.', tools: ['memory.*'] },
  researcher: { persona: 'You are a careful researcher.', model: 'gpt-fallback', tools: ['memory_read', 'lookup'] },
};
const ROUTES = [
  { channel: 'telegram', chat_id: 100, agent: 'researcher' },
  { channel: 'discord', agent: 'researcher' },
];

describe('agent resolution', () => {
  const config = validateConfig({ agents: AGENTS, routes: ROUTES });

  it('picks the route that names the chat', () => {
    expect(resolveAgent(config, { channel: 'telegram', chatId: '100' })?.name).toBe('researcher');
  });

  it('picks a route for the whole channel', () => {
    expect(resolveAgent(config, { channel: 'discord', chatId: 'any' })?.name).toBe('researcher');
  });

  it('falls back to the agent named default', () => {
    expect(resolveAgent(config, { channel: 'telegram', chatId: '200' })?.name).toBe('default');
  });

  it('restricts nothing when no route matches and no default is declared', () => {
    const open = validateConfig({ agents: { researcher: AGENTS.researcher }, routes: ROUTES });
    expect(resolveAgent(open, { channel: 'cli', chatId: 'terminal' })).toBeUndefined();
  });
});

describe('agents in a turn', () => {
  let fake: FakeOpenAI;
  let app: App;
  let ran: string[];

  beforeEach(async () => {
    fake = await startOpenAiServer();
    app = (await makeTestApp(fake, { agents: AGENTS, routes: ROUTES })).app;
    ran = [];
    const tool = (name: string): AnyTool => ({
      name,
      description: name,
      parameters: { type: 'object', properties: {} },
      async execute() {
        ran.push(name);
        return { success: true, output: `${name} ran` };
      },
    });
    app.tools.register(tool('lookup'));
    app.tools.register(tool('shell_out'));
  });

  afterEach(async () => {
    await app.close(0);
    await fake.close();
  });

  it("offers only the agent's tools, with its persona and model", async () => {
    fake.script({ content: 'hi' });
    await app.turns.start({ text: 'hello', origin: { channel: 'telegram', chatId: '100' }, source: 'chat' });
    const request = fake.requests[0]!;
    expect(request.body.tools?.map((tool) => tool.function.name).sort()).toEqual(['lookup', 'memory_read']);
    expect(request.body.model).toBe('gpt-fallback');
    expect(fake.lastSystemPrompt()).toContain('You are a careful researcher.');
  });

  it('refuses a call to a tool outside the set, even when the model names it anyway', async () => {
    fake.script({ toolCalls: [{ name: 'shell_out', arguments: {} }] }, { content: 'could not' });
    await app.turns.start({ text: 'run it', origin: { channel: 'telegram', chatId: '100' }, source: 'chat' });
    expect(ran).toEqual([]);
    const toolMessage = fake.requests[1]?.body.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toMatch(/Tool "shell_out" is not allowed here \(not in the tool list \(memory_read, lookup\)\)\. Valid tools: lookup, memory_read\./);
  });

  it('gives other chats the default agent', async () => {
    fake.script({ content: 'hi' });
    await app.turns.start({ text: 'hello', origin: { channel: 'telegram', chatId: '200' }, source: 'chat' });
    expect(fake.requests[0]?.body.tools?.map((tool) => tool.function.name).sort()).toEqual(['memory_read', 'memory_search', 'memory_write']);
    expect(fake.requests[0]?.body.model).toBe('gpt-test');
  });
});

describe('agent configuration errors and the CLI', () => {
  it('refuses a route to an undeclared agent at start, naming the key', async () => {
    const fake = await startOpenAiServer();
    try {
      await expect(makeTestApp(fake, { agents: AGENTS, routes: [{ channel: 'telegram', agent: 'ghost' }] })).rejects.toThrow(ConfigError);
      await expect(makeTestApp(fake, { agents: AGENTS, routes: [{ channel: 'telegram', agent: 'ghost' }] })).rejects.toThrow(/routes\.0\.agent: no agent named "ghost"/);
    } finally {
      await fake.close();
    }
  });

  it("familiar tools list --agent lists only that agent's tools", async () => {
    const configPath = writeTestConfig(tempDir(), undefined, { agents: AGENTS });
    const io = captureIo();
    expect(await runCli(['tools', 'list', '--agent', 'researcher', '--json', '--config', configPath], io)).toBe(0);
    expect((JSON.parse(io.out()) as Array<{ name: string }>).map((tool) => tool.name)).toEqual(['memory_read']);
    const unknown = captureIo();
    expect(await runCli(['tools', 'list', '--agent', 'nobody', '--config', configPath], unknown)).toBe(2);
    expect(unknown.err()).toMatch(/no agent named "nobody" \(declared in agents: default, researcher\)/);
  });
});
