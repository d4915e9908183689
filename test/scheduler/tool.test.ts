import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp } from '../helpers/app.js';

const origin = { channel: 'telegram', chatId: '77', userId: '77' };

describe('the schedule tool and the /jobs and /remind commands', () => {
  let fake: FakeOpenAI;
  let app: App;

  beforeEach(async () => {
    fake = await startOpenAiServer();
    app = (await makeTestApp(fake)).app;
  });

  afterEach(async () => {
    await app.close(0);
    await fake.close();
  });

  const call = async (args: Record<string, unknown>) =>
    (await app.tools.execute({ name: 'schedule', arguments: args, conversationId: 'c', turnId: 't', origin })).result;

  it('creates a job that remembers its chat and answers with id, next run and description', async () => {
    const result = await call({ action: 'create', when: 'every Monday at 9', prompt: 'Plan the week' });
    expect(result.success).toBe(true);
    expect(result.output).toMatch(/^Created job (j-[0-9a-f]{6}): At 09:00, only on Monday \(Europe\/Paris; cron 0 9 \* \* 1\)\.\nNext run: Monday,? .* at 09:00 \(Europe\/Paris, UTC\+0[12]:00\)\.\nResults go to telegram:77\.$/);
    const id = /job (j-[0-9a-f]{6})/.exec(result.output)?.[1] ?? '';
    expect(app.scheduler.get(id)?.origin).toEqual(origin);
  });

  it('returns an unparseable time to the model with the forms that work', async () => {
    const result = await call({ action: 'create', when: 'after lunch-ish', prompt: 'x' });
    expect(result.success).toBe(false);
    expect(result.output).toMatch(/Could not understand the time "after lunch-ish"\. when accepts one-shots like .*recurrences like "every day at 7:30"/);
  });

  it('asks for an id where one is needed, and lists the known ids for an unknown one', async () => {
    await call({ action: 'create', id: 'known', cron: '0 7 * * *', prompt: 'x' });
    expect((await call({ action: 'pause' })).output).toMatch(/action "pause" needs id/);
    expect((await call({ action: 'resume', id: 'nope' })).output).toMatch(/No job with id "nope" in this chat; list the jobs to see the ids\./);
  });

  it('lists, updates and deletes, and listing changes nothing', async () => {
    await call({ action: 'create', id: 'daily', cron: '30 7 * * *', prompt: 'Weather' });
    const before = app.db.prepare('SELECT * FROM jobs').all();
    const listed = await call({ action: 'list' });
    expect(listed.output).toMatch(/^daily — At 07:30 \(Europe\/Paris; cron 30 7 \* \* \*\)\n {2}next run: .*07:30.*\n {2}prompt: Weather$/);
    expect(app.db.prepare('SELECT * FROM jobs').all()).toEqual(before);
    const updated = await call({ action: 'update', id: 'daily', when: 'every day at 8:15' });
    expect(updated.output).toMatch(/^Updated job daily: At 08:15/);
    expect((await call({ action: 'delete', id: 'daily' })).output).toBe('Deleted job daily.');
    expect(app.scheduler.list()).toEqual([]);
  });

  it('/jobs lists the jobs and /remind sets a reminder for this chat', async () => {
    const remind = app.commands.get('remind');
    const jobs = app.commands.get('jobs');
    const input = { channel: 'telegram', chatId: '77', userId: '77', conversationId: 'c' };
    const answer = await remind?.run({ ...input, args: 'tomorrow at 9am to call Mum' });
    expect(answer).toMatch(/^⏰ Reminder r-[0-9a-f]{6} set for \w+day,? .* at 09:00 .* — "call Mum"$/);
    const recurring = await remind?.run({ ...input, args: 'every weekday at 8 stand-up' });
    expect(recurring).toMatch(/At 08:00, Monday through Friday .* — "stand-up"$/);
    const listing = await jobs?.run({ ...input, args: '' });
    expect(listing).toMatch(/reminder: call Mum/);
    expect(listing).toMatch(/reminder: stand-up/);
    expect(fake.requests).toHaveLength(0);
  });
});
