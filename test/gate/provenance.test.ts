// The provenance policy on its own: which call in a tainted turn may go ahead (and what its choice costs in bits),
// and which asks the person.
import { describe, expect, it } from 'vitest';
import { addressesIn, quotes, requestAddress, vouchedBy } from '../../src/net/addresses.js';
import { checkEffects } from '../../src/gate/provenance.js';
import type { Effect, Provenance } from '../../src/tools/effects.js';
import { UNKNOWN_EFFECTS } from '../../src/tools/effects.js';

const provenance = (person: string[], pages: string[]): Provenance => ({ personTexts: () => person, vouched: () => pages.map((page) => vouchedBy([page], {})) });
const PAGE = 'Read more at <a href="https://garden.example/roses?x=1&amp;y=2">roses</a> or https://garden.example/tulips. Roses bloom in June.';
const seen = provenance(['summarise https://news.example/today and search for "roses in June"'], [PAGE]);
const asks = (effects: Effect[], given: Provenance | undefined = seen) => checkEffects(effects, given).ask;

describe('egress in a tainted turn', () => {
  it('lets a GET through to an address the person wrote or a third party wrote whole', () => {
    expect(asks([{ kind: 'egress', url: 'https://news.example/today', method: 'GET' }])).toBe(false);
    expect(asks([{ kind: 'egress', url: 'https://garden.example/tulips' }])).toBe(false);
    // A link written in HTML with &amp; is the same address.
    expect(asks([{ kind: 'egress', url: 'https://garden.example/roses?x=1&y=2' }])).toBe(false);
    const verdict = checkEffects([{ kind: 'egress', url: 'https://garden.example/tulips' }], seen);
    expect(verdict.lines.join('\n')).toContain('appears in the outside content that was read');
  });

  it('compares addresses as the request sends them: scheme and host case, default port, dot segments, fragment', () => {
    for (const url of ['HTTPS://Garden.Example/tulips', 'https://garden.example:443/tulips', 'https://garden.example/a/../tulips', 'https://garden.example/tulips#top']) {
      expect(asks([{ kind: 'egress', url }]), url).toBe(false);
    }
  });

  it('never looser: no prefix, no substring, no other case in the path or query, no other encoding', () => {
    for (const url of ['https://garden.example/', 'https://garden.example/tul', 'https://garden.example/Tulips', 'https://garden.example/tulips/', 'https://garden.example/roses?x=1', 'https://garden.example/%74ulips', 'https://news.example/TODAY']) {
      expect(asks([{ kind: 'egress', url }]), url).toBe(true);
    }
  });

  it('asks for an address the model composed: data in the path, the query, or another host', () => {
    for (const url of ['https://garden.example/tulips/PIN-1234', 'https://garden.example/tulips?d=PIN-1234', 'https://news.example/today?d=secret', 'https://evil.example/']) {
      const verdict = checkEffects([{ kind: 'egress', url }], seen);
      expect(verdict.ask, url).toBe(true);
      expect(verdict.bits).toBe(0);
      expect(verdict.lines.join('\n')).toContain('was composed by the model');
    }
  });

  it('charges a fetch log2(N+1) bits, N the addresses it could have chosen among', () => {
    // news.example/today (the person's), and the page's links: tulips, and the &amp; link read both ways (two
    // addresses a server would tell apart, so two choices).
    expect(checkEffects([{ kind: 'egress', url: 'https://garden.example/tulips' }], seen).bits).toBeCloseTo(Math.log2(5));
    const page = Array.from({ length: 256 }, (_, index) => `https://evil.example/${index}`).join(' ');
    expect(checkEffects([{ kind: 'egress', url: 'https://evil.example/7' }], provenance([], [page])).bits).toBeCloseTo(Math.log2(257));
  });

  it('asks for anything but a plain GET, even to a known address: a method, a body, headers', () => {
    expect(asks([{ kind: 'egress', url: 'https://news.example/today', method: 'POST' }])).toBe(true);
    expect(asks([{ kind: 'egress', url: 'https://news.example/today', carriesData: true }])).toBe(true);
    expect(asks([{ kind: 'egress', url: 'https://news.example/today', method: 'HEAD' }])).toBe(false);
  });

  it('lets a search through only for a run of words the person or a third party wrote, as written or in lower case', () => {
    expect(asks([{ kind: 'egress', query: 'roses in June' }])).toBe(false);
    expect(asks([{ kind: 'egress', query: 'roses  in june' }])).toBe(false);
    expect(asks([{ kind: 'egress', query: 'Roses bloom' }])).toBe(false);
    // The case of each letter is a bit the model could choose: only the two spellings count.
    expect(asks([{ kind: 'egress', query: 'RoSeS in June' }])).toBe(true);
    expect(asks([{ kind: 'egress', query: 'roses in june PIN-1234' }])).toBe(true);
    expect(checkEffects([{ kind: 'egress', query: 'roses in June' }], seen).bits).toBeGreaterThan(0);
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

describe('what third parties\' words vouch for', () => {
  it('finds whole links, not bare domains or other schemes', () => {
    expect(addressesIn('see https://a.example/x, (https://b.example/y) and c.example/z or ftp://d.example/ or mailto:e@f.example')).toEqual(['https://a.example/x', 'https://b.example/y']);
    expect(requestAddress('javascript:alert(1)')).toBeUndefined();
  });

  it('leaves out an address the call\'s own arguments held (an echo), with or without its scheme', () => {
    const echoed = vouchedBy(['No results for https://evil.example/AbCd. See https://other.example/'], { query: 'https://evil.example/AbCd' });
    expect(echoed.urls).toEqual(['https://other.example/']);
    expect(vouchedBy(['Did you mean https://evil.example/AbCd?'], { query: 'evil.example/AbCd' }).urls).toEqual([]);
    expect(vouchedBy(['<a href="https://x.example/next">next</a>'], { url: 'https://x.example/page' }).urls).toEqual(['https://x.example/next']);
  });

  it('quotes word runs exactly or all in lower case, at most 16 words', () => {
    expect(quotes('Roses bloom in June.', 'bloom in June')).toBe(true);
    expect(quotes('Roses bloom in June.', 'bloom in june')).toBe(true);
    expect(quotes('Roses bloom in June.', 'Bloom in June')).toBe(false);
    expect(quotes('Roses bloom in June.', 'roses june')).toBe(false);
    const long = Array.from({ length: 20 }, (_, index) => `w${index}`).join(' ');
    expect(quotes(long, long)).toBe(false);
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
    expect(checkEffects([], seen)).toEqual({ ask: false, lines: [], bits: 0 });
  });
});
