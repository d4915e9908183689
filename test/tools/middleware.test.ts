// tool:before / tool:after middleware and the event bus, on the real registry with the audit in SQLite.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAuditWriter } from '../../src/audit/write.js';
import { listAudit } from '../../src/audit/query.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { EventBus, type FamiliarEvent } from '../../src/tools/events.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import { personSaysYes } from '../helpers/gate.js';
import type { CallRequest } from '../../src/tools/call.js';
import type { AnyTool, ToolContext } from '../../src/tools/types.js';
import { captureLogger, tempDir } from '../helpers/app.js';

let db: Database | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
});

function setup(secrets: string[] = []) {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'data'));
  db = openDatabase(path.join(dir, 'data'));
  const logs: string[] = [];
  const log = captureLogger(logs, secrets);
  const events = new EventBus(log);
  const registry = new ToolRegistry({ audit: createAuditWriter(db), events, defaultTimeoutMs: 2000, gate: personSaysYes() });
  registry.setContext({ config: { tools: { settings: {} } }, log, secrets } as unknown as ToolContext);
  const ran: Array<Record<string, unknown>> = [];
  const send: AnyTool = {
    name: 'send_note',
    description: 'Sends a note.',
    parameters: { type: 'object', properties: { to: { type: 'string', enum: ['me', 'family'] }, text: { type: 'string' } }, required: ['to', 'text'], additionalProperties: false },
    risk: (params: { to: string }) => (params.to === 'family' ? 'high' : 'low'),
    async execute(params) {
      ran.push(params);
      return { success: true, output: `sent to ${String(params.to)}: ${String(params.text)} (IBAN DE89370400440532013000)` };
    },
  };
  registry.register(send);
  const call = (args: Record<string, unknown>, extra: Partial<CallRequest> = {}) =>
    registry.execute({ name: 'send_note', arguments: args, conversationId: 'c1', turnId: 't1', origin: { channel: 'cli', chatId: 'x' }, ...extra });
  const logged = (text: string) => logs.filter((line) => line.includes(text));
  return { registry, events, ran, call, logged, audit: () => listAudit(db as Database) };
}

describe('tool:before', () => {
  it('vetoes a call with its own message; the tool does not run', async () => {
    const { registry, ran, call } = setup();
    registry.on('tool:before', ({ params }) => (params.to === 'family' ? { block: 'Not to the family after 22:00; tell the person.' } : undefined), { source: 'quiet-hours.mjs' });
    expect((await call({ to: 'family', text: 'hi' })).result).toEqual({ success: false, output: 'Not to the family after 22:00; tell the person.' });
    expect(ran).toEqual([]);
    expect((await call({ to: 'me', text: 'hi' })).result.success).toBe(true);
  });

  it('rewrites the arguments: the tool runs with the new ones, and the audit row keeps both', async () => {
    const { registry, ran, call, audit } = setup();
    registry.on('tool:before', ({ params }) => ({ params: { ...params, text: String(params.text).trim() } }));
    await call({ to: 'me', text: '  padded  ' });
    expect(ran).toEqual([{ to: 'me', text: 'padded' }]);
    const [row] = audit();
    expect(row?.input).toBe('{"to":"me","text":"padded"}');
    expect(row?.requestedInput).toBe('{"to":"me","text":"  padded  "}');
  });

  it('leaves the requested arguments empty in the audit when no hook changed them', async () => {
    const { registry, call, audit } = setup();
    registry.on('tool:before', ({ params }) => ({ params: { ...params } }));
    await call({ to: 'me', text: 'same' });
    expect(audit()[0]?.requestedInput).toBeNull();
  });

  it('validates a rewrite against the schema: a hook cannot send what the schema refuses', async () => {
    const { registry, ran, call, audit } = setup();
    registry.on('tool:before', () => ({ params: { to: 'everyone', text: 'x' } }), { source: 'broken.mjs' });
    const { result } = await call({ to: 'me', text: 'x' });
    expect(result.success).toBe(false);
    expect(result.output).toMatch(/send_note was not run: the tool:before hook of broken\.mjs changed its arguments into ones the tool refuses \(to must be one of "me", "family"\)/);
    expect(ran).toEqual([]);
    expect(audit()[0]?.input).toBe('{"to":"me","text":"x"}');
  });

  it('refuses forbidden keys in a rewrite, as in the model\'s arguments', async () => {
    const { registry, ran, call } = setup();
    registry.on('tool:before', () => ({ params: JSON.parse('{"to":"me","text":"x","__proto__":{"admin":true}}') as Record<string, unknown> }));
    const { result } = await call({ to: 'me', text: 'x' });
    expect(result.output).toMatch(/refuses .*__proto__/);
    expect(ran).toEqual([]);
  });

  it('asks for approval of the arguments as rewritten (the person approves what runs)', async () => {
    const { registry, ran, call } = setup();
    registry.on('tool:before', ({ params }) => ({ params: { ...params, to: 'family' } }));
    const asked: Array<Record<string, unknown>> = [];
    const { result } = await call({ to: 'me', text: 'x' }, {
      approve: async (request) => {
        asked.push(request.params);
        return { approved: false, reason: 'no' };
      },
    });
    expect(asked).toEqual([{ to: 'family', text: 'x' }]);
    expect(result.success).toBe(false);
    expect(ran).toEqual([]);
  });

  it('gives each hook its own copy: changing params in place changes nothing', async () => {
    const { registry, ran, call } = setup();
    registry.on('tool:before', ({ params }) => {
      params.to = 'family';
    });
    await call({ to: 'me', text: 'x' });
    expect(ran).toEqual([{ to: 'me', text: 'x' }]);
  });

  it('refuses the call when a hook throws, naming the hook; the turn goes on', async () => {
    const { registry, ran, call, logged } = setup();
    registry.on('tool:before', () => {
      throw new Error('rules file missing');
    }, { source: 'guard.mjs' });
    const outcome = await call({ to: 'me', text: 'x' });
    expect(outcome.result).toEqual({ success: false, output: 'send_note was not run: a tool:before hook (guard.mjs) failed: rules file missing. Tell the person; retrying will not help.' });
    expect(ran).toEqual([]);
    expect(logged('tool:before hook failed')).toHaveLength(1);
  });

  it('bounds a hook that never answers by the call\'s deadline', async () => {
    const { registry, call } = setup();
    registry.on('tool:before', () => new Promise<undefined>(() => undefined), { source: 'slow.mjs' });
    const { result } = await call({ to: 'me', text: 'x' });
    expect(result.output).toMatch(/a tool:before hook \(slow\.mjs\) failed: the tool:before hook of slow\.mjs did not answer within 2 s/);
  });

  it('can be removed', async () => {
    const { registry, call } = setup();
    const remove = registry.on('tool:before', () => ({ block: 'no' }));
    remove();
    expect((await call({ to: 'me', text: 'x' })).result.success).toBe(true);
  });
});

describe('tool:after', () => {
  it('observes every result', async () => {
    const { registry, call } = setup();
    const seen: string[] = [];
    registry.on('tool:after', ({ tool, result, durationMs }) => {
      seen.push(`${tool} ${String(result.success)} ${String(durationMs >= 0)}`);
    });
    await call({ to: 'me', text: 'x' });
    expect(seen).toEqual(['send_note true true']);
  });

  it('redacts a result: the model and the audit get the redacted text', async () => {
    const { registry, call, audit } = setup();
    registry.on('tool:after', ({ result }) => ({ result: { ...result, output: result.output.replace(/\b[A-Z]{2}\d{2}[0-9A-Z]{12,30}\b/g, '[IBAN]') } }));
    const { result } = await call({ to: 'me', text: 'x' });
    expect(result.output).toBe('sent to me: x (IBAN [IBAN])');
    expect(audit()[0]?.output).toBe('sent to me: x (IBAN [IBAN])');
  });

  it('withholds the result when a hook throws or answers nonsense, saying the tool ran', async () => {
    const { registry, ran, call, audit } = setup();
    registry.on('tool:after', () => ({ result: { text: 'wrong shape' } }) as never, { source: 'redact.mjs' });
    const { result } = await call({ to: 'me', text: 'secret plan' });
    expect(ran).toHaveLength(1);
    expect(result.success).toBe(false);
    expect(result.output).toMatch(/^send_note ran \(it succeeded\), but its result is withheld: a tool:after hook \(redact\.mjs\) failed/);
    expect(result.output).not.toContain('secret plan');
    expect(audit()[0]?.output).not.toContain('secret plan');
  });
});

describe('events', () => {
  it('sends tool:call for every finished call, refused ones included', async () => {
    const { events, registry, call } = setup();
    const seen: FamiliarEvent[] = [];
    events.on('tool:call', (event) => {
      seen.push(event);
    });
    registry.on('tool:before', ({ params }) => (params.text === 'no' ? { block: 'no' } : undefined));
    await call({ to: 'me', text: 'yes' });
    await call({ to: 'me', text: 'no' });
    await registry.execute({ name: 'nope', arguments: {}, conversationId: 'c1', turnId: 't1', origin: { channel: 'cli', chatId: 'x' } });
    expect(seen.map((event) => [event.tool, event.success])).toEqual([['send_note', true], ['send_note', false], ['nope', false]]);
    expect(seen[0]).toMatchObject({ type: 'tool:call', conversationId: 'c1', turnId: 't1', origin: { channel: 'cli', chatId: 'x' }, callId: expect.any(String) });
  });

  it('passes what a tool emits, marked with the tool and call, and drops the daemon\'s own event names', async () => {
    const { events, registry, logged } = setup();
    registry.register({
      name: 'meter', description: 'x', parameters: { type: 'object' },
      async execute(_params, ctx) {
        ctx.emit?.({ type: 'meter:reading', kwh: 12.5, tool: 'spoofed' });
        ctx.emit?.({ type: 'turn:end', status: 'ok' });
        return { success: true, output: '12.5 kWh' };
      },
    });
    const seen: FamiliarEvent[] = [];
    events.on('*', (event) => {
      seen.push(event);
    });
    const { callId } = await registry.execute({ name: 'meter', arguments: {}, conversationId: 'c9', turnId: 't9', origin: { channel: 'cli', chatId: 'x' } });
    expect(seen.map((event) => event.type)).toEqual(['meter:reading', 'tool:call']);
    expect(seen[0]).toEqual({ type: 'meter:reading', kwh: 12.5, tool: 'meter', callId, conversationId: 'c9' });
    expect(logged('without a type of its own')).toHaveLength(1);
  });

  it('logs a listener that throws or rejects, and the call goes on', async () => {
    const { events, call, logged } = setup();
    events.on('tool:call', () => {
      throw new Error('listener bug');
    }, { source: 'stats.mjs' });
    events.on('tool:call', async () => {
      await Promise.resolve();
      throw new Error('async listener bug');
    }, { source: 'stats2.mjs' });
    expect((await call({ to: 'me', text: 'x' })).result.success).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(logged('event listener of stats.mjs failed')).toHaveLength(1);
    expect(logged('event listener of stats2.mjs failed')).toHaveLength(1);
  });
});
