import { describe, expect, it } from 'vitest';
import { applyChanges, changedKeys, classifyChanges } from '../../src/config/live.js';
import { configSchema, type Config } from '../../src/config/schema.js';

const make = (raw: Record<string, unknown> = {}): Config => configSchema().parse({ timezone: 'UTC', ...raw });

describe('what a config reload applies live', () => {
  it('finds the deepest changed keys, a list being one value', () => {
    expect(changedKeys({ a: { b: 1, c: [1] }, d: 1 }, { a: { b: 2, c: [1, 2] }, d: 1 })).toEqual(['a.b', 'a.c']);
    expect(changedKeys({ agents: {} }, { agents: { helper: { tools: ['*'] } } })).toEqual(['agents.helper']);
  });

  it('applies the live keys and names the others as needing a restart', () => {
    const current = make({ llm: { model: 'a' }, agent: { max_concurrent_turns: 4 } });
    const next = make({ llm: { model: 'b', base_url: 'http://127.0.0.1:1/v1' }, agent: { max_concurrent_turns: 2 } });
    expect(classifyChanges(current, next, [], [])).toEqual({ live: ['llm.model'], restart: ['llm.base_url', 'agent.max_concurrent_turns'] });
  });

  it('applies a household\'s people live, but turning the household on or off needs a restart', () => {
    const people = { ann: { role: 'owner', ids: { telegram: [1] } }, ben: { ids: { telegram: [2] } } };
    expect(classifyChanges(make(), make({ people }), [], [])).toEqual({ live: [], restart: ['people'] });
    const moved = { ...people, ben: { ids: { telegram: [3] } }, cid: { role: 'child' } };
    expect(classifyChanges(make({ people }), make({ people: moved }), [], [])).toEqual({ live: ['people.ben.ids.telegram', 'people.cid'], restart: [] });
  });

  it('keeps a live key that brings a secret the redaction does not know yet for the restart', () => {
    const current = make();
    const next = make({ agents: { helper: { persona: 'token is sk-new-secret-42' } } });
    expect(classifyChanges(current, next, [], ['sk-new-secret-42'])).toEqual({ live: [], restart: ['agents.helper'] });
    expect(classifyChanges(current, next, ['sk-new-secret-42'], ['sk-new-secret-42']).live).toEqual(['agents.helper']);
  });

  it('writes the new values into the same objects the parts hold, and removes a key that is gone', () => {
    const current = make({ llm: { model: 'a', temperature: 0.5 }, agents: { old: { tools: ['*'] } } });
    const llm = current.llm;
    const next = make({ llm: { model: 'b' }, agents: { fresh: { tools: ['memory_read'] } } });
    const { live } = classifyChanges(current, next, [], []);
    applyChanges(current, next, live);
    expect(llm.model).toBe('b');
    expect('temperature' in llm).toBe(false);
    expect(Object.keys(current.agents)).toEqual(['fresh']);
    // A copy: changing the next config later does not reach the running one.
    next.agents.fresh?.tools.push('x');
    expect(current.agents.fresh?.tools).toEqual(['memory_read']);
  });

  it('treats a record key named __proto__ as a plain key (no prototype is replaced)', () => {
    const current = make();
    const next = make();
    // As YAML parses `__proto__:` under a record: an own key.
    Object.defineProperty(next.agents, '__proto__', { value: { tools: ['*'] }, enumerable: true, writable: true, configurable: true });
    applyChanges(current, next, classifyChanges(current, next, [], []).live);
    expect(Object.getPrototypeOf(current.agents)).toBe(Object.prototype);
    expect(Object.hasOwn(current.agents, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).tools).toBeUndefined();
  });
});
