// people: in config (docs/household.md): one owner, an id belongs to one person, identity by (channel, sender id).
import { describe, expect, it } from 'vitest';
import { People } from '../../src/config/people.js';
import { validateConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';

function problems(raw: unknown): string[] {
  try {
    validateConfig(raw);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems.map((problem) => `${problem.keyPath}: ${problem.reason}`);
  }
}

const HOUSEHOLD = {
  people: {
    ann: { role: 'owner', ids: { telegram: [1001], console: true }, timezone: 'Europe/Paris' },
    ben: { role: 'member', ids: { telegram: [1002], discord: ['300000000000000002'] }, budget: { daily_tokens: 5000 } },
    cid: { role: 'child', ids: { telegram: ['1003'] } },
  },
};

describe('people: in config', () => {
  it('is absent by default: one person, no household', () => {
    const config = validateConfig({});
    expect(config.people).toBeUndefined();
    expect(new People(config).household).toBe(false);
  });

  it('refuses a household without an owner, naming the key', () => {
    expect(problems({ people: { ben: { role: 'member' } } })).toEqual(['people: no person has role: owner (ben); exactly one must']);
  });

  it('refuses a second owner at its role key', () => {
    expect(problems({ people: { ann: { role: 'owner' }, ben: { role: 'owner' } } })).toEqual(['people.ben.role: ann is already the owner; a household has exactly one']);
  });

  it('refuses one channel id in two people, naming both', () => {
    const found = problems({ people: { ann: { role: 'owner', ids: { telegram: [7] } }, ben: { ids: { telegram: ['7'] } } } });
    expect(found).toEqual(['people.ben.ids.telegram: telegram id 7 is also ann\'s (people.ann.ids.telegram); an id belongs to one person']);
  });

  it('keeps the console the owner\'s', () => {
    expect(problems({ people: { ann: { role: 'owner' }, ben: { ids: { console: true } } } })).toEqual([
      'people.ben.ids.console: the console is the owner\'s (its login link is printed on the owner\'s terminal)',
    ]);
  });

  it('refuses a name that is not a folder name, and the reserved "guest"', () => {
    expect(problems({ people: { ann: { role: 'owner' }, '../x': {} } }).join('\n')).toMatch(/people\.\.\.\/x: a name of lower-case letters/);
    expect(problems({ people: { ann: { role: 'owner' }, guest: {} } })).toEqual(['people.guest: "guest" is the name of senders who are in no person\'s ids; choose another name']);
  });

  it('knows a person only by channel and sender id; the terminal and console are the owner\'s; anyone else is a guest', () => {
    const people = new People(validateConfig(HOUSEHOLD));
    expect(people.household).toBe(true);
    expect(people.forSender('telegram', '1002').name).toBe('ben');
    expect(people.forSender('discord', '300000000000000002').name).toBe('ben');
    expect(people.forSender('telegram', '1003')).toMatchObject({ name: 'cid', role: 'child', folder: 'people/cid' });
    expect(people.forSender('cli', undefined).name).toBe('ann');
    expect(people.forSender('console', 'owner')).toMatchObject({ name: 'ann', timezone: 'Europe/Paris' });
    expect(people.forSender('discord', '1002')).toMatchObject({ name: 'guest', role: 'guest', folder: undefined });
    expect(people.idsOn('telegram')).toEqual(['1001', '1002', '1003']);
  });

  it('gives a child the safe default tools, a guest web search only, and a member everything', () => {
    const people = new People(validateConfig(HOUSEHOLD));
    expect(people.grantsOf(people.forSender('telegram', '1003'))).toContain('memory.write');
    expect(people.grantsOf(people.forSender('telegram', '1003'))).not.toContain('email.send');
    expect(people.grantsOf(people.forSender('telegram', '9'))).toEqual(['web.search', 'web.read']);
    expect(people.grantsOf(people.forSender('telegram', '1002'))).toBeUndefined();
  });

  it('follows a reload that changed people', () => {
    const config = validateConfig(HOUSEHOLD);
    const people = new People(config);
    const ben = config.people?.['ben'];
    if (ben) ben.ids['telegram'] = ['2002'];
    people.refresh();
    expect(people.forSender('telegram', '2002').name).toBe('ben');
    expect(people.forSender('telegram', '1002').name).toBe('guest');
  });
});
