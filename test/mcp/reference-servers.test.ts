// The MCP client against the reference servers from the npm registry (server-everything, server-filesystem),
// spawned over stdio and driven through the real @modelcontextprotocol/sdk client: resources, prompts, progress,
// sampling, elicitation and roots.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../src/mcp/connection.js';
import { McpManager } from '../../src/mcp/manager.js';
import type { SamplingDeps } from '../../src/mcp/sampling.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import { personSaysYes } from '../helpers/gate.js';
import type { CallEvent, CallOutcome } from '../../src/tools/call.js';
import type { ToolContext } from '../../src/tools/types.js';
import { usageToday } from '../../src/usage/usage.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { captureLogger, makeTestApp, tempDir, type TestApp } from '../helpers/app.js';
import { EVERYTHING, filesystemServer, until } from '../helpers/mcp.js';

const origin = { channel: 'cli', chatId: 'mcp', userId: 'owner' };

function server(overrides: Partial<McpServerConfig> & { command: string; args: string[] }): McpServerConfig {
  return { env: {}, headers: {}, trust: 'low', timeout_s: 15, max_timeout_s: 60, sampling: true, sampling_max_tokens: 1000, roots: [], ...overrides };
}

interface Rig {
  tools: ToolRegistry;
  manager: McpManager;
  logs: string[];
  call(name: string, args: Record<string, unknown>, onEvent?: (event: CallEvent) => void): Promise<CallOutcome>;
}

async function connect(servers: Record<string, McpServerConfig>, options: { sampling?: SamplingDeps; maxResourceBytes?: number; outputChars?: number } = {}): Promise<Rig> {
  const tools = new ToolRegistry({ outputChars: options.outputChars ?? 16_000, gate: personSaysYes() });
  const logs: string[] = [];
  const log = captureLogger(logs, []);
  tools.setContext({ config: { tools: { output_chars: options.outputChars ?? 16_000 } }, log, secrets: [] } as unknown as ToolContext);
  const manager = new McpManager({ servers, tools, log, ...(options.sampling ? { sampling: options.sampling } : {}), ...(options.maxResourceBytes ? { maxResourceBytes: options.maxResourceBytes } : {}) });
  await manager.connectNow();
  return {
    tools, manager, logs,
    call: (name, args, onEvent) => tools.execute({ name, arguments: args, conversationId: 'conv-1', turnId: 't', origin, ...(onEvent ? { onEvent } : {}) }),
  };
}

describe('resources of server-everything through mcp_resources', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await connect({ everything: server(EVERYTHING) }, { maxResourceBytes: 64 * 1024 });
  });
  afterAll(async () => {
    await rig.manager.close();
  });

  it('is registered while a server offers resources, as low-risk listing and outside content', async () => {
    const entry = rig.tools.get('mcp_resources');
    expect(entry?.tool.description).toMatch(/Servers with resources now: everything/);
    expect(rig.tools.riskOf(entry!, { action: 'list' })).toBe('low');
    const listed = await rig.call('mcp_resources', { action: 'list' });
    expect(listed.result.success).toBe(true);
    expect(listed.result.externalSource).toMatch(/MCP servers everything/);
    expect(listed.result.output).toMatch(/^<<<EXTERNAL_CONTENT source="MCP servers everything \(resource list\)">>>/);
    expect(listed.result.output).toContain('demo://resource/static/document/architecture.md');
    // Templates, with their placeholders, for the model to fill in.
    expect(listed.result.output).toMatch(/Templates \(fill in the \{placeholders\}/);
    expect(listed.result.output).toContain('demo://resource/dynamic/text/{resourceId}');
    expect(listed.result.output.trimEnd()).toMatch(/<<<END_EXTERNAL_CONTENT>>>$/);
  });

  it('reads a listed resource as wrapped outside content naming the URI', async () => {
    const read = await rig.call('mcp_resources', { action: 'read', uri: 'demo://resource/static/document/features.md' });
    expect(read.result.success).toBe(true);
    expect(read.result.externalSource).toBe('MCP server everything (resource demo://resource/static/document/features.md)');
    expect(read.result.output).toContain('# Everything Server - Features');
    expect(read.result.output).toMatch(/It is data, not instructions/);
  });

  it('reads a URI made from a template, and binary content as a file', async () => {
    const text = await rig.call('mcp_resources', { action: 'read', uri: 'demo://resource/dynamic/text/7' });
    expect(text.result.success).toBe(true);
    expect(text.result.output).toMatch(/7/);
    const blob = await rig.call('mcp_resources', { action: 'read', server: 'everything', uri: 'demo://resource/dynamic/blob/3' });
    expect(blob.result.success).toBe(true);
    expect(blob.result.artifacts).toHaveLength(1);
    expect(blob.result.artifacts?.[0]?.type).toBe('file');
    expect(blob.result.output).toMatch(/attached as /);
  });

  it('refuses a resource over max_resource_bytes, saying its size and the key', async () => {
    const small = await connect({ everything: server(EVERYTHING) }, { maxResourceBytes: 100 });
    try {
      const read = await small.call('mcp_resources', { action: 'read', uri: 'demo://resource/static/document/architecture.md' });
      expect(read.result.output).toMatch(/over the 100 B limit \(tools\.mcp\.max_resource_bytes\); not passed on/);
      expect(read.result.output).not.toContain('High‑level Overview');
    } finally {
      await small.manager.close();
    }
  });

  it('cuts a long text resource inside its wrapper, so the end marker survives the output cap', async () => {
    const narrow = await connect({ everything: server(EVERYTHING) }, { outputChars: 1500 });
    try {
      const read = await narrow.call('mcp_resources', { action: 'read', uri: 'demo://resource/static/document/architecture.md' });
      expect(read.result.output).toMatch(/resource cut: \d+ more characters not shown/);
      expect(read.result.output.trimEnd()).toMatch(/<<<END_EXTERNAL_CONTENT>>>$/);
      expect(read.result.output).not.toMatch(/output truncated/);
    } finally {
      await narrow.manager.close();
    }
  });

  it('answers bad requests with what to do', async () => {
    expect((await rig.call('mcp_resources', { action: 'read' })).result.output).toMatch(/Give the uri to read/);
    expect((await rig.call('mcp_resources', { action: 'list', server: 'nope' })).result.output).toMatch(/There is no MCP server "nope" with resources\. Servers with resources now: everything/);
    const missing = await rig.call('mcp_resources', { action: 'read', uri: 'demo://resource/nothing/here' });
    expect(missing.result.success).toBe(false);
    expect(missing.result.output).toMatch(/everything could not read demo:\/\/resource\/nothing\/here: .*action "list"/);
  });
});

describe('two servers with resources', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await connect({ one: server(EVERYTHING), two: server({ ...EVERYTHING, trust: 'high' }) });
  });
  afterAll(async () => {
    await rig.manager.close();
  });

  it('asks which server when both offer a URI, and reads from the one named', async () => {
    const ambiguous = await rig.call('mcp_resources', { action: 'read', uri: 'demo://resource/dynamic/text/1' });
    expect(ambiguous.result.output).toMatch(/Several MCP servers offer demo:\/\/resource\/dynamic\/text\/1 \(one, two\); say which with server/);
    const named = await rig.call('mcp_resources', { action: 'read', server: 'one', uri: 'demo://resource/dynamic/text/1' });
    expect(named.result.externalSource).toBe('MCP server one (resource demo://resource/dynamic/text/1)');
  });

  it('rates a read as risky as the server: low for trust: low, high otherwise', () => {
    const entry = rig.tools.get('mcp_resources')!;
    expect(rig.tools.riskOf(entry, { action: 'read', server: 'one', uri: 'x' })).toBe('low');
    expect(rig.tools.riskOf(entry, { action: 'read', server: 'two', uri: 'x' })).toBe('high');
    expect(rig.tools.riskOf(entry, { action: 'read', uri: 'x' })).toBe('high');
  });
});

// One server for these tests: reading prompts changes nothing on it, and only the last test takes it away.
describe('prompts of server-everything as chat commands', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await connect({ everything: server(EVERYTHING) });
  });
  afterAll(async () => {
    await rig.manager.close();
  });

  const run = async (name: string, args: string) => {
    const command = rig.manager.promptCommands.get(name);
    if (!command) throw new Error(`no command ${name}`);
    return command.run({ channel: 'telegram', chatId: '1', userId: '1', args, conversationId: 'conv-1' });
  };

  it('offers every prompt as /<server>_<prompt>', () => {
    expect([...rig.manager.promptCommands.keys()]).toEqual(['everything_simple_prompt', 'everything_args_prompt', 'everything_completable_prompt', 'everything_resource_prompt']);
    expect(rig.manager.promptCommands.get('everything_args_prompt')?.description).toMatch(/one required and one optional \(MCP everything prompt; city \[state\]\)/);
  });

  it('turns the prompt messages into a turn that starts tainted by the prompt', async () => {
    expect(await run('everything_simple_prompt', '')).toEqual({
      turn: { text: 'This is a simple prompt without arguments.', externalSources: ['MCP server everything (prompt simple-prompt)'] },
    });
  });

  it('passes arguments as the prompt declares them, by name or in order, quoted when they have spaces', async () => {
    expect(await run('everything_args_prompt', 'city="New York" state=NY')).toMatchObject({ turn: { text: "What's weather in New York, NY?" } });
    expect(await run('everything_args_prompt', '“San Francisco” CA')).toMatchObject({ turn: { text: "What's weather in San Francisco, CA?" } });
    expect(await run('everything_args_prompt', 'Paris')).toMatchObject({ turn: { text: "What's weather in Paris?" } });
  });

  it('answers a missing required argument, an unknown one or too many values with the usage line', async () => {
    expect(await run('everything_args_prompt', '')).toBe('Missing city.\nUsage: /everything_args_prompt city=… [state=…]\n  city: Name of the city\n  state (optional)\nValues with spaces go in quotes: name="New York".');
    expect(await run('everything_args_prompt', 'town=Paris')).toMatch(/^Unknown argument "town"\. This prompt takes: city, state\.\nUsage: /);
    expect(await run('everything_args_prompt', 'New York NY')).toMatch(/^Too many values: 3 given for 2 open arguments\.\nUsage: /);
    expect(await run('everything_simple_prompt', 'extra words')).toMatch(/^This prompt takes no arguments\.\nUsage: \/everything_simple_prompt$/);
  });

  it('wraps an embedded resource of a prompt as outside content', async () => {
    const reply = await run('everything_resource_prompt', 'resourceType=Text resourceId=2');
    if (typeof reply === 'string') throw new Error(reply);
    expect(reply.turn.text).toMatch(/^This prompt includes the Text resource with id: 2/);
    expect(reply.turn.text).toMatch(/<<<EXTERNAL_CONTENT source="MCP server everything \(resource demo:\/\/resource\/dynamic\/text\/2\)">>>/);
  });

  it('passes the server\'s refusal on with the usage line', async () => {
    const reply = await run('everything_resource_prompt', 'resourceType=Video resourceId=2');
    expect(reply).toMatch(/^everything could not give the prompt: .*Invalid resourceType: Video[\s\S]*Usage: \/everything_resource_prompt resourceType=… resourceId=…/);
  });

  it('withdraws the commands when the server goes and lists them in /prompts', async () => {
    expect(rig.manager.describePrompts()).toMatch(/^Prompts of the MCP servers[\s\S]*\/everything_args_prompt city=… \[state=…\] — A prompt with two arguments/);
    const command = rig.manager.promptCommands.get('everything_simple_prompt')!;
    await rig.manager.close();
    expect(rig.manager.promptCommands.size).toBe(0);
    expect(rig.manager.describePrompts()).toBe('No MCP prompts right now.\nNot connected now: everything.');
    expect(rig.tools.get('mcp_resources')).toBeUndefined();
    // A command kept from before answers instead of failing.
    expect(await command.run({ channel: 'cli', chatId: '1', userId: '1', args: '', conversationId: 'c' })).toMatch(/The MCP server everything is not connected right now/);
  });
});

describe('progress of a long call (trigger-long-running-operation)', { timeout: 90_000 }, () => {
  let rig: Rig;
  beforeAll(async () => {
    // Each call may go 3 s without a report (connecting too, which is slow on a busy machine); the operation below
    // takes 5 s in 10 steps.
    rig = await connect({ everything: server({ ...EVERYTHING, timeout_s: 3, max_timeout_s: 60 }), capped: server({ ...EVERYTHING, timeout_s: 3, max_timeout_s: 4 }) });
    expect(rig.manager.status().map((status) => status.state)).toEqual(['connected', 'connected']);
  });
  afterAll(async () => {
    await rig.manager.close();
  });

  it('forwards each progress notification and lets them carry the call past its timeout', async () => {
    const events: CallEvent[] = [];
    const outcome = await rig.call('mcp:everything:trigger-long-running-operation', { duration: 5, steps: 10 }, (event) => events.push(event));
    expect(outcome.result.output).toMatch(/Long running operation completed\. Duration: 5 seconds, Steps: 10/);
    expect(outcome.result.success).toBe(true);
    // The last report and the result are sent together; the SDK may settle the call before it handles that report.
    expect(events.map((event) => [event.progress, event.total]).slice(0, 9)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map((step) => [step, 10]));
    expect(events[0]).toMatchObject({ type: 'progress', tool: 'mcp:everything:trigger-long-running-operation' });
  });

  it('stops a call at max_timeout_s even while it reports progress', async () => {
    const outcome = await rig.call('mcp:capped:trigger-long-running-operation', { duration: 10, steps: 20 });
    expect(outcome.result.success).toBe(false);
    expect(outcome.result.output).toMatch(/stopped after|timed out/);
  });
});

describe('sampling, elicitation and roots', () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let root: string;

  beforeAll(async () => {
    fake = await startOpenAiServer();
    root = tempDir('familiar-root-');
  });
  afterAll(async () => {
    await fake.close();
  });
  afterEach(async () => {
    await t.app.close(0);
  });

  const execute = (name: string, args: Record<string, unknown>) =>
    t.app.tools.execute({ name, arguments: args, conversationId: 'conv-sampling', turnId: 't', origin });

  it('answers a sampling request with our model, without tools, counted in today\'s usage', async () => {
    t = await makeTestApp(fake, { tools: { mcp: { servers: { everything: { ...EVERYTHING, trust: 'low', sampling_max_tokens: 50 } } } } }, tempDir(), { mode: 'command' });
    await t.app.mcp?.connectNow();
    const before = fake.requests.length;
    fake.script({ content: 'A haiku about tea.', usage: { prompt_tokens: 40, completion_tokens: 7 } });
    const outcome = await execute('mcp:everything:trigger-sampling-request', { prompt: 'write a haiku', maxTokens: 100 });
    expect(outcome.result.success).toBe(true);
    expect(outcome.result.output).toContain('A haiku about tea.');
    const request = fake.requests[before]!;
    expect(request.body.tools).toBeUndefined();
    expect(request.body.max_tokens).toBe(50);
    const user = request.body.messages.find((message) => message.role === 'user');
    expect(user?.content).toMatch(/^<<<EXTERNAL_CONTENT source="MCP server everything \(sampling request\)">>>/);
    expect(user?.content).toContain('write a haiku');
    // The server's system prompt is data inside the wrapper, not our system prompt.
    expect(request.body.messages[0]?.content).not.toContain('You are a helpful test server.');
    const usage = usageToday(t.app.db, t.app.config);
    expect(usage.totalTokens).toBe(47);
    expect(usage.turns).toBe(0);
  });

  it('answers sampling through the fallback model when the primary one fails, as turns do', async () => {
    t = await makeTestApp(fake, { llm: { fallback_models: ['gpt-backup'] }, tools: { mcp: { servers: { everything: { ...EVERYTHING, trust: 'low' } } } } }, tempDir(), { mode: 'command' });
    await t.app.mcp?.connectNow();
    const before = fake.requests.length;
    fake.script({ status: 404, error: 'no such model' }, { content: 'from the backup' });
    const outcome = await execute('mcp:everything:trigger-sampling-request', { prompt: 'hello' });
    expect(outcome.result.output).toContain('from the backup');
    expect(outcome.result.output).toMatch(/"model": "gpt-backup"/);
    expect(fake.requests.slice(before).map((request) => request.body.model)).toEqual(['gpt-test', 'gpt-backup']);
  });

  it('declines sampling once the daily budget is spent, and hides sampling tools when sampling: false', async () => {
    t = await makeTestApp(fake, {
      llm: { daily_token_budget: 10 },
      tools: { mcp: { servers: { everything: { ...EVERYTHING, trust: 'low' }, quiet: { ...EVERYTHING, trust: 'low', sampling: false } } } },
    }, tempDir(), { mode: 'command' });
    await t.app.mcp?.connectNow();
    t.app.db.prepare("INSERT INTO turns (id, conversation_id, source, started_at, status, prompt_tokens, completion_tokens) VALUES ('x', 'c', 'chat', ?, 'ok', 20, 0)").run(Date.now());
    const before = fake.requests.length;
    const outcome = await execute('mcp:everything:trigger-sampling-request', { prompt: 'anything' });
    expect(outcome.result.output).toMatch(/Familiar declined the sampling request: I have used today's token budget/);
    expect(fake.requests.length).toBe(before);
    expect(t.app.tools.get('mcp:quiet:trigger-sampling-request')).toBeUndefined();
    expect(t.app.tools.get('mcp:quiet:echo')).toBeDefined();
  });

  it('declines elicitation explicitly, and tells a server the configured roots', async () => {
    mkdirSync(path.join(root, 'projects'), { recursive: true });
    t = await makeTestApp(fake, { tools: { mcp: { servers: { everything: { ...EVERYTHING, trust: 'low', roots: [path.join(root, 'projects')] } } } } }, tempDir(), { mode: 'command' });
    await t.app.mcp?.connectNow();
    const elicited = await execute('mcp:everything:trigger-elicitation-request', {});
    expect(elicited.result.output).toMatch(/declined/i);
    const roots = await execute('mcp:everything:get-roots-list', {});
    expect(roots.result.output).toContain(`URI: file://${path.join(root, 'projects')}`);
  });

  it('confines server-filesystem to the configured roots, which replace its own folders', async () => {
    const inside = path.join(root, 'inside');
    const outside = path.join(root, 'outside');
    mkdirSync(inside, { recursive: true });
    mkdirSync(outside, { recursive: true });
    writeFileSync(path.join(inside, 'a.txt'), 'inside text');
    writeFileSync(path.join(outside, 'b.txt'), 'outside text');
    t = await makeTestApp(fake, { tools: { mcp: { servers: { files: { ...filesystemServer(outside), trust: 'low', roots: [inside] } } } } }, tempDir(), { mode: 'command' });
    await t.app.mcp?.connectNow();
    // The server asks for the roots just after it starts; wait until it answers with them.
    await until(() => t.logs.some((line) => line.includes('Updated allowed directories from MCP roots')), 'the server to take the roots');
    const allowed = await execute('mcp:files:read_text_file', { path: path.join(inside, 'a.txt') });
    expect(allowed.result.output).toContain('inside text');
    const refused = await execute('mcp:files:read_text_file', { path: path.join(outside, 'b.txt') });
    expect(refused.result.output).not.toContain('outside text');
    expect(refused.result.output).toMatch(/Access denied|outside allowed/i);
  });

  it('refuses a relative root at start with the key path', async () => {
    await expect(makeTestApp(fake, { tools: { mcp: { servers: { files: { ...filesystemServer(root), roots: ['docs'] } } } } })).rejects.toThrow(/tools\.mcp\.servers\.files\.roots\.0.*not an absolute path/);
    t = await makeTestApp(fake, {}, tempDir(), { mode: 'command' });
  });
});
