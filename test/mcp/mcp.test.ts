import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import { runCli } from '../../src/cli/run.js';
import { McpManager } from '../../src/mcp/manager.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import { personSaysYes } from '../helpers/gate.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { schedulerAccess } from '../../src/scheduler/access.js';
import { captureLogger, makeTestApp, tempDir, writeTestConfig } from '../helpers/app.js';
import { askWith, recordingPrompter } from '../helpers/approval.js';
import { captureIo } from '../helpers/io.js';

const MCP_SERVER = fileURLToPath(new URL('../fakes/mcp-server.mjs', import.meta.url));
const origin = { channel: 'cli', chatId: 'mcp', userId: 'owner' };

async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('MCP client against a real stdio server', () => {
  let fake: FakeOpenAI;
  let app: App;

  beforeEach(async () => {
    fake = await startOpenAiServer();
    app = (
      await makeTestApp(fake, {
        tools: { mcp: { servers: { fake: { command: process.execPath, args: [MCP_SERVER], env: { FAKE_MCP_SETTING: 'on' } }, lowrisk: { command: process.execPath, args: [MCP_SERVER], trust: 'low' } } } },
      })
    ).app;
  });

  afterEach(async () => {
    await app.close(0);
    await fake.close();
  });

  it('does not make start-up wait: start returns before the servers are connected', async () => {
    await app.start();
    expect(app.mcp?.status().map((server) => server.state)).toEqual(['connecting', 'connecting']);
    expect(app.tools.get('mcp:fake:echo')).toBeUndefined();
    await until(() => app.tools.get('mcp:fake:echo') !== undefined, 'the tools to register');
  });

  it('registers the tools as mcp:<server>:<tool> with a function-safe alias, without $schema, high-risk unless trust: low', async () => {
    await app.mcp?.connectNow();
    const echo = app.tools.get('mcp__fake__echo');
    expect(echo?.name).toBe('mcp:fake:echo');
    expect(echo?.functionName).toBe('mcp__fake__echo');
    expect(echo?.tool.parameters).toEqual({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    expect(app.tools.riskOf(echo!, { text: 'x' })).toBe('high');
    const low = app.tools.get('mcp:lowrisk:echo');
    expect(app.tools.riskOf(low!, { text: 'x' })).toBe('low');
    const offered = app.tools.toFunctionSchemas().map((schema) => schema.function.name);
    expect(offered).toEqual(expect.arrayContaining(['mcp__fake__echo', 'mcp__fake__fail', 'mcp__lowrisk__echo']));
  });

  it('calls a tool through the model; its result is outside content that taints the turn', async () => {
    await app.mcp?.connectNow();
    const prompter = recordingPrompter('approve');
    fake.script({ toolCalls: [{ name: 'mcp__lowrisk__echo', arguments: { text: 'hello' } }] }, { toolCalls: [{ name: 'mcp__fake__echo', arguments: { text: 'again' } }] }, { content: 'done' });
    const result = await app.turns.start({ text: 'echo', origin, source: 'cli', approve: askWith(app, prompter) });
    const toolMessage = fake.requests[1]?.body.messages.filter((message) => message.role === 'tool').at(-1);
    expect(toolMessage?.content).toMatch(/<<<EXTERNAL_CONTENT source="MCP server lowrisk \(tool echo\)">>>/);
    expect(toolMessage?.content).toMatch(/echo: hello/);
    expect(result.externalSources).toContain('MCP server lowrisk (tool echo)');
    // The second, high-risk call is asked about, naming the MCP source that entered the turn.
    expect(prompter.prompts[0]?.text).toContain("holds outside content (MCP server lowrisk (tool echo))");
  });

  it('surfaces isError results and bad arguments as failed results', async () => {
    await app.mcp?.connectNow();
    const call = (name: string, args: Record<string, unknown>) =>
      app.tools.execute({ name, arguments: args, conversationId: 'c', turnId: 't', origin, approve: async () => ({ approved: true }) });
    const failed = await call('mcp__fake__fail', {});
    expect(failed.result.success).toBe(false);
    expect(failed.result.output).toMatch(/mcp:fake:fail reported an error: .*the thing broke: quota exceeded/s);
    const invalid = await call('mcp__fake__echo', { text: 5 });
    expect(invalid.result.output).toMatch(/Invalid arguments for mcp__fake__echo: text must be string/);
    const image = await call('mcp__fake__image', {});
    expect(image.result.artifacts?.[0]).toMatchObject({ type: 'image', mimeType: 'image/png' });
  });

  it('gives the server only a safe environment plus its own env (no secrets of ours)', async () => {
    process.env.FAMILIAR_TEST_PARENT_SECRET = 'should-not-leak';
    try {
      // A fresh server process, spawned while the variable is set in our environment.
      const tools = new ToolRegistry({ gate: personSaysYes() });
      const scoped = new McpManager({ servers: { fake: app.config.tools.mcp.servers.fake! }, tools, log: app.log });
      tools.setContext({ config: app.config, log: app.log, secrets: app.loaded.secrets, memory: app.memory, scheduler: schedulerAccess(app.scheduler) });
      await scoped.connectNow();
      const env = await tools.execute({ name: 'mcp:fake:env', arguments: {}, conversationId: 'c', turnId: 't', origin });
      expect(env.result.output).toContain('FAKE_MCP_SETTING');
      expect(env.result.output).toContain('PATH');
      expect(env.result.output).not.toContain('FAMILIAR_TEST_PARENT_SECRET');
      await scoped.close();
    } finally {
      delete process.env.FAMILIAR_TEST_PARENT_SECRET;
    }
  });

  it('withdraws the tools of a server that crashed and restores them when it is back', async () => {
    await app.start();
    await until(() => app.tools.get('mcp:fake:crash') !== undefined && app.tools.get('mcp:lowrisk:echo') !== undefined, 'the tools to register');
    const pidOf = async () => {
      const outcome = await app.tools.execute({ name: 'mcp:fake:echo', arguments: { text: 'pid' }, conversationId: 'c', turnId: 't', origin, approve: async () => ({ approved: true }) });
      return /pid (\d+)/.exec(outcome.result.output)?.[1];
    };
    const before = await pidOf();
    await app.tools.execute({ name: 'mcp:fake:crash', arguments: {}, conversationId: 'c', turnId: 't', origin, approve: async () => ({ approved: true }) });
    await until(() => app.tools.get('mcp:fake:echo') === undefined, 'the tools to be withdrawn');
    const status = app.mcp?.status().find((server) => server.name === 'fake');
    expect(status?.state).not.toBe('connected');
    expect(status?.failures).toBe(1);
    // The other server is untouched.
    expect(app.tools.get('mcp:lowrisk:echo')).toBeDefined();
    // A call the model makes meanwhile is answered, not crashed.
    const meanwhile = await app.tools.execute({ name: 'mcp__fake__echo', arguments: { text: 'x' }, conversationId: 'c', turnId: 't', origin });
    expect(meanwhile.result.output).toMatch(/Unknown tool "mcp__fake__echo"/);
    await until(() => app.tools.get('mcp:fake:echo') !== undefined, 'the tools to be restored');
    const after = await pidOf();
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
  });
});

describe('MCP servers that fail', () => {
  it('keeps retrying a server that cannot start, with growing waits, and the rest of the app runs', async () => {
    const logs: string[] = [];
    const log = captureLogger(logs, []);
    const tools = new ToolRegistry({ gate: personSaysYes() });
    const manager = new McpManager({ servers: { broken: { command: '/nonexistent/mcp-server', args: [], env: {}, headers: {}, trust: 'high', timeout_s: 5, max_timeout_s: 300, sampling: true, sampling_max_tokens: 1000, roots: [] } }, tools, log, retry: { initialMs: 20, maxMs: 80 } });
    manager.start();
    await until(() => (manager.status()[0]?.failures ?? 0) >= 3, 'three failed attempts');
    const status = manager.status()[0];
    expect(status?.state).not.toBe('connected');
    expect(status?.error).toBeTruthy();
    const waits = logs.map((line) => JSON.parse(line) as { retryInMs?: number }).flatMap((entry) => (entry.retryInMs ? [entry.retryInMs] : []));
    expect(waits.length).toBeGreaterThanOrEqual(3);
    expect(waits[2]!).toBeGreaterThan(waits[0]!);
    await manager.close();
  });
});

describe('familiar tools list with MCP servers', () => {
  it('connects briefly and lists the MCP tools with their aliases', async () => {
    const dir = tempDir();
    const configPath = writeTestConfig(dir, undefined, { tools: { mcp: { servers: { fake: { command: process.execPath, args: [MCP_SERVER] }, gone: { command: '/nonexistent/server', timeout_s: 2 } } } } });
    const io = captureIo();
    const code = await runCli(['tools', 'list', '--config', configPath], io);
    expect(code).toBe(0);
    expect(io.out()).toContain('mcp:fake:echo (as mcp__fake__echo) — high risk');
    expect(io.err()).toMatch(/mcp server gone: not reachable/);
  });
});
