// The registry as seeds 000-002 describe it: execute(name, params), a tool's { success: false, error } is a failure
// everywhere, the call's context has input, state and cancel(), and an alias can be added later.
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/registry/registry.js';
import type { AuditRecord } from '../../src/tools/call.js';
import type { AnyTool, ToolCallContext, ToolContext, ToolResult } from '../../src/tools/types.js';
import { captureLogger } from '../helpers/app.js';

function context(): ToolContext {
  return { log: captureLogger([], []), secrets: [] } as unknown as ToolContext;
}

const echo: AnyTool = {
  name: 'echo',
  description: 'Echoes its text.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  async execute(params: { text: string }) {
    return { success: true, output: params.text };
  },
};

function registryWith(tools: AnyTool[], audit?: AuditRecord[]): ToolRegistry {
  const registry = new ToolRegistry(audit ? { audit: (record) => audit.push(record) } : {});
  registry.setContext(context());
  for (const tool of tools) registry.register(tool);
  return registry;
}

const origin = { channel: 'cli', chatId: 'x' };

describe('execute(name, params), as seed 000 calls it', () => {
  it('runs the tool and answers with its result', async () => {
    const registry = registryWith([echo]);
    expect(await registry.execute('echo', { text: 'hi' })).toEqual({ success: true, output: 'hi' });
  });

  it('checks the arguments as for any call', async () => {
    const result = await registryWith([echo]).execute('echo', { text: 3 });
    expect(result.success).toBe(false);
    expect(result.output).toMatch(/Invalid arguments for echo: text must be string/);
  });

  it('refuses loudly a call with no name or arguments that are not an object', async () => {
    const registry = registryWith([echo]);
    await expect(registry.execute(undefined as unknown as string, {})).rejects.toThrow(TypeError);
    await expect(registry.execute('echo', 'text' as unknown as Record<string, unknown>)).rejects.toThrow(/params must be an object of arguments, not a text/);
    await expect(registry.execute({ arguments: {} } as never)).rejects.toThrow(/the call has no tool name/);
  });
});

describe('a returned { success: false, error }', () => {
  const seedFailing: AnyTool = {
    name: 'lamp',
    description: 'Fails as the seed does.',
    parameters: { type: 'object', properties: {} },
    async execute() {
      return { success: false, error: 'the lamp is unplugged' } as unknown as ToolResult;
    },
  };

  it('is a failure the model reads, with the error as its text', async () => {
    expect(await registryWith([seedFailing]).execute('lamp', {})).toEqual({ success: false, output: 'the lamp is unplugged' });
  });

  it('is audited as a failure and seen as one by tool:after hooks', async () => {
    const audit: AuditRecord[] = [];
    const registry = registryWith([seedFailing], audit);
    const seen: boolean[] = [];
    registry.on('tool:after', ({ result }) => {
      seen.push(result.success);
    });
    await registry.execute('lamp', {});
    expect(seen).toEqual([false]);
    expect(audit[0]).toMatchObject({ success: false, error: 'the lamp is unplugged' });
  });
});

describe('the call context of seed 001', () => {
  const recorder = (seen: ToolCallContext[]): AnyTool => ({
    name: 'look',
    description: 'Records its context.',
    parameters: { type: 'object', properties: {} },
    async execute(_params: unknown, ctx: ToolCallContext) {
      seen.push(ctx);
      return { success: true, output: 'seen' };
    },
  });

  it('carries the turn\'s input and the state the caller shares between calls', async () => {
    const seen: ToolCallContext[] = [];
    const registry = registryWith([recorder(seen)]);
    const state = new Map<string, unknown>();
    const request = { name: 'look', arguments: {}, conversationId: 'c', turnId: 't', origin, input: 'turn the lamp on', state };
    await registry.execute(request);
    seen[0]?.state?.set('count', 1);
    await registry.execute(request);
    expect(seen[1]?.input).toBe('turn the lamp on');
    expect(seen[1]?.state?.get('count')).toBe(1);
  });

  it('gives a call made outside a turn an empty input and a state of its own', async () => {
    const seen: ToolCallContext[] = [];
    const registry = registryWith([recorder(seen)]);
    await registry.execute('look', {});
    await registry.execute('look', {});
    expect(seen[0]?.input).toBe('');
    expect(seen[0]?.state).toBeInstanceOf(Map);
    expect(seen[0]?.state).not.toBe(seen[1]?.state);
  });

  it('cancel() keeps the calling tool\'s result and cancels the call running beside it', async () => {
    const controller = new AbortController();
    const reasons: string[] = [];
    const registry = registryWith([
      {
        name: 'stopper', description: 'Stops the run.', parameters: { type: 'object', properties: {} },
        async execute(_params: unknown, ctx: ToolCallContext) {
          ctx.cancel?.('the person is away');
          return { success: true, output: 'stopped it' };
        },
      },
      {
        name: 'slow', description: 'Never finishes by itself.', parameters: { type: 'object', properties: {} },
        execute: () => new Promise<ToolResult>(() => undefined),
      },
    ]);
    const cancel = (reason: string) => {
      reasons.push(reason);
      controller.abort(new DOMException(reason, 'AbortError'));
    };
    const request = { arguments: {}, conversationId: 'c', turnId: 't', origin, signal: controller.signal, cancel };
    const slow = registry.execute({ ...request, name: 'slow' });
    const stopper = await registry.execute({ ...request, name: 'stopper' });
    expect(reasons).toEqual(['the person is away']);
    expect(stopper.result).toEqual({ success: true, output: 'stopped it' });
    expect((await slow).result).toEqual({ success: false, output: 'Cancelled: the person is away.' });
  });
});

describe('registry.alias', () => {
  it('makes a later name call the tool, as seed 002 adds aliases', async () => {
    const registry = registryWith([echo]);
    registry.alias('say', 'echo');
    expect(registry.get('say')?.name).toBe('echo');
    expect(await registry.execute('say', { text: 'hi' })).toEqual({ success: true, output: 'hi' });
    expect(registry.toFunctionSchemas().map((schema) => schema.function.name)).toEqual(['echo']);
  });

  it('refuses an unknown target and a name already taken', () => {
    const registry = registryWith([echo, { ...echo, name: 'other' }]);
    expect(() => registry.alias('say', 'nothing')).toThrow(/no tool named nothing/);
    expect(() => registry.alias('other', 'echo')).toThrow(/other already names other/);
    expect(() => registry.alias('no spaces', 'echo')).toThrow(/alias must be 1-64 letters/);
  });

  it('is forgotten with its tool', () => {
    const registry = registryWith([echo]);
    registry.alias('say', 'echo');
    registry.unregister('echo');
    expect(registry.get('say')).toBeUndefined();
  });
});
