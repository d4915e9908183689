import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp } from '../helpers/app.js';

const HOUR = 3_600_000;
const TELEGRAM = { channel: 'telegram', chatId: '1001', userId: '1001', conversationId: 'c-telegram' };

// One daemon (command mode, a clock of the test's) for the file; each test makes its own intent.
describe('standing intents', () => {
  let fake: FakeOpenAI;
  let app: Daemon;
  let clock = Date.UTC(2026, 10, 27, 9, 0);

  const command = async (name: string, args: string, chat = TELEGRAM): Promise<string> => {
    const reply = await app.commands.get(name)?.run({ ...chat, args });
    return typeof reply === 'string' ? reply : '';
  };
  const when = async (args: string): Promise<string> => /(i-[0-9a-f]{6})/.exec(await command('when', args))?.[1] ?? '';
  const person = (text: string, chat = 'telegram:1001') => app.intents.check(text, { from: 'person', chat });

  beforeAll(async () => {
    fake = await startOpenAiServer();
    ({ app } = await makeTestApp(fake, {}, undefined, { mode: 'command', now: () => new Date(clock) }));
  });

  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  it('makes an intent with /when and lists it with /intents', async () => {
    const id = await when('dentist, "root canal" => ask about the bill');
    expect(id).not.toBe('');
    expect(await command('intents', '')).toContain(`${id}: when "dentist, "root canal"" comes up → ask about the bill`);
  });

  it('answers /when without an arrow with how to write it', async () => {
    expect(await command('when', 'dentist remind me')).toContain('Usage: /when');
  });

  it('fires on the person\'s message with a reminder in their own words and none of the matched text', async () => {
    await when('plumber => the tap in the kitchen drips');
    const fired = await person('The PLUMBER said https://evil.example/pay is where to pay');
    expect(fired.map((entry) => entry.phrase)).toEqual(['plumber']);
    expect(JSON.stringify(fired)).not.toContain('evil.example');
  });

  it('does not fire again within its cooldown', async () => {
    await when('gutter => clean it before winter');
    expect(await person('the gutter again')).toHaveLength(1);
    clock += 23 * HOUR;
    expect(await person('gutter, still')).toHaveLength(0);
  });

  it('fires at most its fire budget, then is done', async () => {
    const id = await when('boiler => call the landlord');
    const counts: number[] = [];
    for (let index = 0; index < 4; index += 1) {
      counts.push((await person('the boiler is cold')).length);
      clock += 25 * HOUR;
    }
    expect(counts).toEqual([1, 1, 1, 0]);
    expect(await command('intents', '')).not.toContain(id);
  });

  it('expires after 90 days', async () => {
    await when('passport => renew it');
    clock += 91 * 24 * HOUR;
    expect(await person('passport office called')).toHaveLength(0);
  });

  it('fires no more once cancelled with /intents cancel', async () => {
    const id = await when('insurance => compare offers');
    expect(await command('intents', `cancel ${id}`)).toBe(`Cancelled ${id}.`);
    expect(await person('insurance renewal')).toHaveLength(0);
  });

  it('is not fired by a message in another chat, nor cancelled from it', async () => {
    const id = await when('garage => pick up the car');
    const other = { ...TELEGRAM, chatId: '2002', userId: '2002' };
    expect(await person('garage', 'telegram:2002')).toHaveLength(0);
    expect(await command('intents', `cancel ${id}`, other)).toContain('No standing intent');
  });

  it('fires on outside content (a mail) with only a reminder: no model call', async () => {
    await when('invoice => pay it by Friday');
    const calls = fake.requests.length;
    const fired = await app.intents.check('unread mail from Acme <billing@acme.example>: Your invoice', { from: 'outside', source: 'email:me/INBOX' });
    expect(fired).toHaveLength(1);
    expect(fake.requests.length).toBe(calls);
  });
});
