import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/registry/registry.js';
import type { CallEvent } from '../../src/tools/call.js';
import type { AnyTool, ToolContext } from '../../src/tools/types.js';
import { captureLogger } from '../helpers/app.js';

function context(): ToolContext {
  return { log: captureLogger([], []), secrets: [] } as unknown as ToolContext;
}

const origin = { channel: 'cli', chatId: 'x' };

/** A tool that reports progress every `everyMs` for `steps` steps, then answers. */
function ticking(options: { steps: number; everyMs: number; timeoutMs: number; maxTimeoutMs?: number }): AnyTool {
  return {
    name: 'ticking',
    description: 'Reports progress.',
    parameters: { type: 'object', properties: {} },
    timeoutMs: options.timeoutMs,
    ...(options.maxTimeoutMs !== undefined ? { maxTimeoutMs: options.maxTimeoutMs } : {}),
    async execute(_params, ctx) {
      for (let step = 1; step <= options.steps; step += 1) {
        await new Promise((resolve) => setTimeout(resolve, options.everyMs));
        if (ctx.signal.aborted) return { success: false, output: 'aborted' };
        ctx.emit?.({ type: 'progress', progress: step, total: options.steps, message: `step ${step}` });
      }
      return { success: true, output: 'finished' };
    },
  };
}

async function run(tool: AnyTool, onEvent?: (event: CallEvent) => void) {
  const registry = new ToolRegistry();
  registry.setContext(context());
  registry.register(tool);
  return registry.execute({ name: tool.name, arguments: {}, conversationId: 'c', turnId: 't', callId: 'call-1', origin, ...(onEvent ? { onEvent } : {}) });
}

describe('tool events (ToolCallContext.emit)', () => {
  it('forwards progress to the caller, named with the tool and the call', async () => {
    const events: CallEvent[] = [];
    const outcome = await run(ticking({ steps: 3, everyMs: 5, timeoutMs: 5000 }), (event) => events.push(event));
    expect(outcome.result.output).toBe('finished');
    expect(events).toEqual([1, 2, 3].map((step) => ({ type: 'progress', progress: step, total: 3, message: `step ${step}`, tool: 'ticking', callId: 'call-1' })));
  });

  it('lets progress keep a call alive past its timeout when the tool declares a cap', async () => {
    // 12 steps of 50 ms: 600 ms in all, each gap well inside the 400 ms timeout.
    const outcome = await run(ticking({ steps: 12, everyMs: 50, timeoutMs: 400, maxTimeoutMs: 10_000 }));
    expect(outcome.result).toEqual({ success: true, output: 'finished' });
  });

  it('does not move the deadline for a tool without a cap', async () => {
    const outcome = await run(ticking({ steps: 12, everyMs: 50, timeoutMs: 400 }));
    expect(outcome.result.success).toBe(false);
    expect(outcome.result.output).toMatch(/did not finish within 0\.4 s/);
  });

  it('stops a call that keeps reporting progress once it reaches the cap, saying why', async () => {
    const outcome = await run(ticking({ steps: 100, everyMs: 40, timeoutMs: 300, maxTimeoutMs: 700 }));
    expect(outcome.result.success).toBe(false);
    expect(outcome.result.output).toMatch(/its progress reports keep it going 0\.3 s at a time, up to 0\.7 s in all/);
  });

  it('still stops a call whose progress stops', async () => {
    const tool: AnyTool = {
      ...ticking({ steps: 1, everyMs: 10, timeoutMs: 150, maxTimeoutMs: 5000 }),
      async execute(_params, ctx) {
        ctx.emit?.({ type: 'progress', progress: 1 });
        await new Promise((resolve) => setTimeout(resolve, 2000));
        return { success: true, output: 'too late' };
      },
    };
    const outcome = await run(tool);
    expect(outcome.result.success).toBe(false);
    expect(outcome.result.output).toMatch(/was stopped after/);
  });

  it('survives a listener that throws', async () => {
    const outcome = await run(ticking({ steps: 2, everyMs: 5, timeoutMs: 5000 }), () => {
      throw new Error('listener broke');
    });
    expect(outcome.result.output).toBe('finished');
  });
});
