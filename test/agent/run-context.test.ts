// What one turn gives its tool calls: the person's text (ctx.input), a state they share (ctx.state), a cancel() that
// ends the run cleanly, and a signal that many parallel calls can listen to without Node's listener-leak warning.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import type { ToolCallContext } from '../../src/tools/types.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp } from '../helpers/app.js';

const origin = { channel: 'cli', chatId: 'test', userId: 'owner' };

describe('the run context of a turn', () => {
  let fake: FakeOpenAI;
  let app: App;
  const seen: ToolCallContext[] = [];

  beforeEach(async () => {
    fake = await startOpenAiServer();
    app = (await makeTestApp(fake)).app;
    seen.length = 0;
    app.tools.register({
      name: 'note_down', description: 'x', parameters: { type: 'object', properties: { stop: { type: 'boolean' } } }, effects: [],
      async execute(params: { stop?: boolean }, ctx: ToolCallContext) {
        seen.push(ctx);
        ctx.state?.set('calls', Number(ctx.state.get('calls') ?? 0) + 1);
        if (params.stop) ctx.cancel?.('the lamp is already off');
        return { success: true, output: `calls so far: ${String(ctx.state?.get('calls'))}` };
      },
    });
    app.tools.register({
      name: 'waits', description: 'x', parameters: { type: 'object', properties: { n: { type: 'integer' } } }, effects: [],
      async execute(_params: unknown, ctx: ToolCallContext) {
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, 20);
          ctx.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
        });
        return { success: true, output: 'waited' };
      },
    });
  });

  afterEach(async () => {
    await app.close(0);
    await fake.close();
  });

  it('gives every call the person\'s text and one state for the whole turn', async () => {
    fake.script({ toolCalls: [{ name: 'note_down', arguments: {} }] }, { toolCalls: [{ name: 'note_down', arguments: {} }] }, { content: 'done' });
    await app.turns.start({ text: 'write it down twice', origin, source: 'cli' });
    expect(seen.map((ctx) => ctx.input)).toEqual(['write it down twice', 'write it down twice']);
    expect(seen[0]?.state).toBe(seen[1]?.state);
    expect(seen[1]?.state?.get('calls')).toBe(2);
  });

  it('ends the turn when a tool calls cancel(), keeping its result and telling the person why', async () => {
    fake.script({ toolCalls: [{ name: 'note_down', arguments: { stop: true } }] }, { content: 'never asked' });
    const result = await app.turns.start({ text: 'turn off the lamp', origin, source: 'cli' });
    expect(result.status).toBe('cancelled');
    expect(result.text).toBe('Stopped: the lamp is already off.');
    expect(fake.requests).toHaveLength(1);
    const stored = app.db.prepare("SELECT body FROM messages WHERE role = 'tool'").all() as Array<{ body: string }>;
    expect(stored.map((row) => row.body).join('\n')).toContain('calls so far: 1');
  });

  it('runs twelve parallel calls without a MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      fake.script({ toolCalls: Array.from({ length: 12 }, (_, n) => ({ name: 'waits', arguments: { n }, id: `w${n}` })) }, { content: 'done' });
      await app.turns.start({ text: 'wait a lot', origin, source: 'cli' });
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});
