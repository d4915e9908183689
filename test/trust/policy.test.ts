// The provenance policy on its own: which call in a tainted turn may go ahead and which asks the person.
import { describe, expect, it } from 'vitest';
import type { Effect, Provenance } from '../../src/tools/effects.js';
import { UNKNOWN_EFFECTS } from '../../src/tools/effects.js';
import { checkEffects } from '../../src/trust/policy.js';

const provenance = (person: string[], outside: string[]): Provenance => ({ personTexts: () => person, outsideTexts: () => outside });
const PAGE = 'Read more at <a href="https://garden.example/roses?x=1&amp;y=2">roses</a> or https://garden.example/tulips';
const seen = provenance(['summarise https://news.example/today and search for "roses in June"'], [PAGE]);
const asks = (effects: Effect[], given: Provenance | undefined = seen) => checkEffects(effects, given).ask;

describe('egress in a tainted turn', () => {
  it('lets a GET through to an address the person wrote or the outside content holds, verbatim', () => {
    expect(asks([{ kind: 'egress', url: 'https://news.example/today', method: 'GET' }])).toBe(false);
    expect(asks([{ kind: 'egress', url: 'https://garden.example/tulips' }])).toBe(false);
    // A link written in HTML with &amp; is the same address.
    expect(asks([{ kind: 'egress', url: 'https://garden.example/roses?x=1&y=2' }])).toBe(false);
    const verdict = checkEffects([{ kind: 'egress', url: 'https://garden.example/tulips' }], seen);
    expect(verdict.lines.join('\n')).toContain('appears in the outside content that was read');
  });

  it('asks for an address the model composed: data in the path, the query, or another host', () => {
    for (const url of ['https://garden.example/tulips/PIN-1234', 'https://garden.example/tulips?d=PIN-1234', 'https://news.example/today?d=secret', 'https://evil.example/']) {
      const verdict = checkEffects([{ kind: 'egress', url }], seen);
      expect(verdict.ask, url).toBe(true);
      expect(verdict.lines.join('\n')).toContain('was composed by the model');
    }
  });

  it('asks for anything but a plain GET, even to a known address: a method, a body, headers', () => {
    expect(asks([{ kind: 'egress', url: 'https://news.example/today', method: 'POST' }])).toBe(true);
    expect(asks([{ kind: 'egress', url: 'https://news.example/today', carriesData: true }])).toBe(true);
    expect(asks([{ kind: 'egress', url: 'https://news.example/today', method: 'HEAD' }])).toBe(false);
  });

  it('lets a search through only for words the person or the content wrote', () => {
    expect(asks([{ kind: 'egress', query: 'Roses  in june' }])).toBe(false);
    expect(asks([{ kind: 'egress', query: 'roses in june PIN-1234' }])).toBe(true);
  });

  it('always asks for mail, and says where each recipient came from', () => {
    const verdict = checkEffects([{ kind: 'egress', to: ['alice@example.org'] }], provenance(['mail alice@example.org'], []));
    expect(verdict.ask).toBe(true);
    expect(verdict.lines).toEqual(['Recipient alice@example.org is one you wrote.']);
  });

  it('asks for a way out whose destination cannot be checked (MCP, a custom tool, a tool that declares nothing)', () => {
    expect(asks([...UNKNOWN_EFFECTS])).toBe(true);
    expect(asks([{ kind: 'egress', what: 'an MCP call' }])).toBe(true);
  });

  it('with no provenance at all, every address counts as composed', () => {
    expect(checkEffects([{ kind: 'egress', url: 'https://news.example/today' }], undefined).ask).toBe(true);
  });
});

describe('persisting in a tainted turn', () => {
  it('asks before changing the files in every prompt, however the path is written', () => {
    for (const file of ['persona.md', './persona.md', 'profile.md', '/profile.md']) expect(asks([{ kind: 'persist', target: 'memory', path: file }]), file).toBe(true);
  });

  it('lets other memory files be written (they are labelled as outside content elsewhere)', () => {
    expect(asks([{ kind: 'persist', target: 'memory', path: 'notes/garden.md' }])).toBe(false);
  });

  it('asks before anything that runs unattended: an agent job, a skill, an install; a reminder is fine', () => {
    expect(asks([{ kind: 'persist', target: 'job', runs: true }])).toBe(true);
    expect(asks([{ kind: 'persist', target: 'job' }])).toBe(true);
    expect(asks([{ kind: 'persist', target: 'job', runs: false }])).toBe(false);
    expect(asks([{ kind: 'persist', target: 'skill' }])).toBe(true);
    expect(asks([{ kind: 'install', what: 'a skill from a hub' }])).toBe(true);
  });

  it('one effect that asks makes the call ask, and every effect is explained', () => {
    const verdict = checkEffects([{ kind: 'persist', target: 'memory', path: 'notes/a.md' }, { kind: 'egress', url: 'https://evil.example/' }], seen);
    expect(verdict.ask).toBe(true);
    expect(verdict.lines).toHaveLength(1);
    expect(checkEffects([], seen)).toEqual({ ask: false, lines: [] });
  });
});
