// The registry fails closed. A registry nobody gave a gate (a test, an embedder, the next part) refuses every call
// that would need a person — a high-risk one, or one in a turn holding outside content that could send data out or
// change what runs later — and lets nothing vouch for an address; a gate that throws is a refusal, never a pass; a
// tool:after hook cannot make outside content look like the daemon's own.
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/registry/registry.js';
import type { CallGate } from '../../src/tools/call.js';
import type { AnyTool, ToolContext } from '../../src/tools/types.js';
import { captureLogger } from '../helpers/app.js';

const context = (): ToolContext => ({ log: captureLogger([], []), secrets: [] }) as unknown as ToolContext;
const origin = { channel: 'cli', chatId: 'x' };

function tool(name: string, options: Partial<AnyTool> = {}): AnyTool & { runs: number } {
  const made = {
    name, description: name, parameters: { type: 'object', properties: {} }, runs: 0,
    async execute() {
      made.runs += 1;
      return { success: true, output: `ran ${name}`, thirdParty: ['see https://evil.example/x'], externalSource: 'http:https://evil.example' };
    },
    ...options,
  };
  return made;
}

function registryWith(...tools: AnyTool[]): ToolRegistry {
  const registry = new ToolRegistry();
  registry.setContext(context());
  for (const entry of tools) registry.register(entry);
  return registry;
}

describe('a registry without a gate', () => {
  it('refuses a high-risk call, and the tool does not run', async () => {
    const risky = tool('risky', { risk: 'high', effects: [] });
    const outcome = await registryWith(risky).execute({ name: 'risky', arguments: {}, conversationId: 'c', turnId: 't', origin });
    expect(outcome.result.success).toBe(false);
    expect(outcome.result.output).toContain('no approval gate is set up');
    expect(outcome.decision).toBe('denied: no gate');
    expect(risky.runs).toBe(0);
  });

  it('refuses a call in a tainted turn that could send data out, or that declares nothing', async () => {
    const fetcher = tool('fetcher', { effects: [{ kind: 'egress', url: 'https://evil.example/x' }] });
    const silent = tool('silent');
    const registry = registryWith(fetcher, silent);
    for (const name of ['fetcher', 'silent']) {
      const outcome = await registry.execute({ name, arguments: {}, conversationId: 'c', turnId: 't', origin, taint: ['http:https://evil.example'] });
      expect(outcome.result.success, name).toBe(false);
    }
    expect(fetcher.runs + silent.runs).toBe(0);
  });

  it('runs what needs nobody: a low-risk call in a clean turn, a tainted call that does nothing beyond answering', async () => {
    const reader = tool('reader', { effects: [] });
    const registry = registryWith(reader);
    expect((await registry.execute({ name: 'reader', arguments: {}, conversationId: 'c', turnId: 't', origin })).result.success).toBe(true);
    expect((await registry.execute({ name: 'reader', arguments: {}, conversationId: 'c', turnId: 't', origin, taint: ['x'] })).result.success).toBe(true);
  });

  it('lets nothing vouch for an address', async () => {
    const page = tool('page', { effects: [], vouches: true });
    const outcome = await registryWith(page).execute({ name: 'page', arguments: {}, conversationId: 'c', turnId: 't', origin });
    expect(outcome.vouched).toBeUndefined();
  });
});

describe('a gate that fails', () => {
  it('is a refusal, logged, never a pass', async () => {
    const risky = tool('risky', { risk: 'high' });
    const registry = registryWith(risky);
    const broken: CallGate = { decide: () => Promise.reject(new Error('boom')), vouched: () => undefined };
    registry.setGate(broken);
    const outcome = await registry.execute({ name: 'risky', arguments: {}, conversationId: 'c', turnId: 't', origin });
    expect(outcome.result.success).toBe(false);
    expect(outcome.decision).toBe('denied: the gate failed');
    expect(risky.runs).toBe(0);
  });
});

describe('tool:after hooks', () => {
  it('cannot drop what the tool said about outside content: its source and its third-party text stay', async () => {
    const page = tool('page', { effects: [], vouches: true });
    const registry = registryWith(page);
    registry.setGate({ decide: async () => ({ allowed: true }), vouched: (_entry, _params, result) => ({ urls: [...(result.thirdParty ?? [])], text: '' }) });
    let rewrite = 'rewritten: see https://evil.example/x';
    registry.on('tool:after', () => ({ result: { success: true, output: rewrite } }));
    const kept = await registry.execute({ name: 'page', arguments: {}, conversationId: 'c', turnId: 't', origin });
    expect(kept.result.externalSource).toBe('http:https://evil.example');
    expect(kept.result.thirdParty).toEqual(['see https://evil.example/x']);
    // A rewrite that no longer shows the page's words: they vouch for nothing (only what the model read can).
    rewrite = 'rewritten';
    const dropped = await registry.execute({ name: 'page', arguments: {}, conversationId: 'c', turnId: 't', origin });
    expect(dropped.result.externalSource).toBe('http:https://evil.example');
    expect(dropped.result.thirdParty).toBeUndefined();
  });
});
