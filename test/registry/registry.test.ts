import { describe, expect, it } from 'vitest';
import { createToolFilter } from '../../src/tools/tool-filter.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import type { AuditRecord } from '../../src/tools/call.js';
import type { AnyTool, ToolContext } from '../../src/tools/types.js';
import { captureLogger } from '../helpers/app.js';

function context(secrets: string[] = []): ToolContext {
  return { log: captureLogger([], secrets), secrets } as unknown as ToolContext;
}

const origin = { channel: 'cli', chatId: 'x' };
const call = (registry: ToolRegistry, name: string, args: Record<string, unknown> | string = {}, extra = {}) =>
  registry.execute({ name, arguments: args, conversationId: 'c1', turnId: 't1', origin, ...extra });

const bigTool: AnyTool = {
  name: 'big',
  description: 'Returns a lot.',
  parameters: { type: 'object', properties: {} },
  async execute() {
    return { success: true, output: 'a'.repeat(20_000) };
  },
};

describe('ToolRegistry', () => {
  it('caps output with a visible note', async () => {
    const registry = new ToolRegistry({ outputChars: 1000 });
    registry.setContext(context());
    registry.register(bigTool);
    const { result } = await call(registry, 'big');
    expect(result.output.length).toBeLessThan(1200);
    expect(result.output).toMatch(/output truncated: 19000 more characters/);
  });

  it('redacts configured secrets from tool output and the audit record', async () => {
    const audit: AuditRecord[] = [];
    const registry = new ToolRegistry({ audit: (record) => audit.push(record) });
    registry.setContext(context(['hunter2-secret-value']));
    registry.register({
      name: 'leaky',
      description: 'Echoes.',
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
      async execute(params: { text: string }) {
        return { success: true, output: `got ${params.text}` };
      },
    });
    const { result } = await call(registry, 'leaky', { text: 'hunter2-secret-value' });
    expect(result.output).toBe('got [REDACTED]');
    expect(JSON.stringify(audit)).not.toContain('hunter2-secret-value');
  });

  it('gives names that are not function-safe an alias, found by both names', async () => {
    const registry = new ToolRegistry();
    registry.setContext(context());
    registry.register({ ...bigTool, name: 'mcp:github:search' });
    expect(registry.get('mcp:github:search')?.functionName).toBe('mcp__github__search');
    expect(registry.get('mcp__github__search')?.name).toBe('mcp:github:search');
    expect(registry.toFunctionSchemas()[0]?.function.name).toBe('mcp__github__search');
  });

  it('refuses a tool outside the filter and does not offer it', async () => {
    const registry = new ToolRegistry();
    registry.setContext(context());
    registry.register(bigTool);
    registry.register({ ...bigTool, name: 'memory_read', group: 'memory' });
    const policy = createToolFilter(['memory.*']);
    expect(registry.toFunctionSchemas(policy).map((schema) => schema.function.name)).toEqual(['memory_read']);
    const { result } = await call(registry, 'big', {}, { filter: policy });
    expect(result.success).toBe(false);
    expect(result.output).toMatch(/not allowed here.*Valid tools: memory_read/);
  });

  it('runs before and after hooks, and a before hook can block', async () => {
    const registry = new ToolRegistry();
    registry.setContext(context());
    registry.register(bigTool);
    const seen: string[] = [];
    registry.on('tool:after', ({ tool, result }) => {
      seen.push(`${tool}:${result.success}`);
    });
    await call(registry, 'big');
    registry.on('tool:before', () => ({ block: 'blocked by hook' }));
    const { result } = await call(registry, 'big');
    expect(seen).toEqual(['big:true']);
    expect(result.output).toBe('blocked by hook');
  });

  it('asks the approval gate for high-risk calls and honours a denial', async () => {
    const registry = new ToolRegistry();
    registry.setContext(context());
    let ran = false;
    registry.register({
      name: 'send',
      description: 'Sends.',
      parameters: { type: 'object', properties: { method: { type: 'string' } } },
      risk: (params: { method?: string }) => (params.method === 'GET' ? 'low' : 'high'),
      async execute() {
        ran = true;
        return { success: true, output: 'sent' };
      },
    });
    const asked: string[] = [];
    registry.setGate({
      async decide(request) {
        if (request.risk !== 'high') return { allowed: true };
        asked.push(request.entry.name);
        return { allowed: false, decision: 'denied: the person said no', reason: 'the person said no' };
      },
      vouched: () => undefined,
    });
    const low = await call(registry, 'send', { method: 'GET' });
    expect(low.result.success).toBe(true);
    ran = false;
    const high = await call(registry, 'send', { method: 'POST' });
    expect(asked).toEqual(['send']);
    expect(ran).toBe(false);
    expect(high.result.output).toMatch(/not approved: the person said no/);
    expect(high.decision).toBe('denied: the person said no');
  });

  it('rejects registering the same name twice', () => {
    const registry = new ToolRegistry();
    registry.register(bigTool);
    expect(() => registry.register(bigTool)).toThrow(/already registered/);
  });
});
