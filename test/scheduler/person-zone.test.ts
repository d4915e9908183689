import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { ZonedClock } from '../../src/lib/clock.js';
import { withPerson, type ActingPerson } from '../../src/lib/person-scope.js';
import { createSchedulerCommands } from '../../src/scheduler/chat-commands.js';
import { formatJob } from '../../src/scheduler/format.js';
import { Scheduler, type CreateJobInput } from '../../src/scheduler/scheduler.js';
import { JobStore } from '../../src/scheduler/store.js';
import type { Job } from '../../src/scheduler/types.js';
import { appliedBy } from '../../src/ops/reload.js';
import { captureLogger, tempDir } from '../helpers/app.js';
import { oracleRuns } from '../helpers/cron-oracle.js';

// A household over two zones: Ann (the owner) and the daemon in Paris, Ben in Montreal.
const PARIS = 'Europe/Paris';
const MONTREAL = 'America/Montreal';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ANN: ActingPerson = { name: 'ann', role: 'owner', folder: 'people/ann' };
const BEN: ActingPerson = { name: 'ben', role: 'member', folder: 'people/ben', timezone: MONTREAL };
const iso = (instants: Array<number | undefined>) => instants.map((at) => (at === undefined ? 'none' : new Date(at).toISOString()));

describe('jobs are timed in their person\'s time zone (fake timers, real SQLite)', () => {
  let db: Database;
  let zones: Map<string, string>;
  let fired: Array<{ jobId: string; scheduledFor: number }>;
  let schedulers: Scheduler[];

  const make = (timeZone = PARIS) => {
    const scheduler = new Scheduler({
      store: new JobStore(db), timeZone, log: captureLogger([], []),
      execute: async (job, run) => {
        fired.push({ jobId: job.id, scheduledFor: run.scheduledFor });
        return { status: 'ok', output: 'done' };
      },
      runTimeoutMs: 60_000, catchUpWindowMs: DAY, closeWaitMs: 100,
      personZone: (person) => zones.get(person),
    });
    schedulers.push(scheduler);
    return scheduler;
  };
  const create = (scheduler: Scheduler, person: ActingPerson | undefined, input: Partial<CreateJobInput>): Job => {
    const run = () => scheduler.create({ prompt: 'do it', source: 'chat', origin: { channel: 'telegram', chatId: person?.name ?? 'old' }, ...input });
    const created = person ? withPerson(person, run) : run();
    if (!created.success) throw new Error(created.error);
    return created.value;
  };

  beforeEach(() => {
    db = openDatabase(tempDir());
    zones = new Map([['ben', MONTREAL]]);
    fired = [];
    schedulers = [];
  });

  afterEach(() => {
    for (const scheduler of schedulers) scheduler.stop();
    vi.useRealTimers();
    db.close();
  });

  it('fires a member\'s "every day at 7" at 07:00 Montreal time, as the oracle has it, while the daemon runs in Paris', async () => {
    const start = Date.parse('2026-06-01T08:00:00Z');
    vi.useFakeTimers({ now: start, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const scheduler = make();
    const job = create(scheduler, BEN, { when: 'every day at 7' });
    expect(job).toMatchObject({ cron: '0 7 * * *', tz: MONTREAL, person: 'ben' });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(3 * DAY);
    const expected = oracleRuns('0 7 * * *', MONTREAL, start, start + 3 * DAY);
    expect(iso(fired.map((run) => run.scheduledFor))).toEqual(iso(expected));
    expect(iso(expected)[0]).toBe('2026-06-01T11:00:00.000Z');
  });

  it('sets a member\'s "/remind tomorrow at 9" for 09:00 on their clock, and says so in their zone', async () => {
    // 23:30 on 1 June in Montreal is already 2 June in Paris: "tomorrow" is the 2nd for Ben.
    vi.useFakeTimers({ now: Date.parse('2026-06-02T03:30:00Z'), toFake: ['Date'] });
    const scheduler = make();
    const remind = createSchedulerCommands(scheduler, new ZonedClock(PARIS)).get('remind');
    const reply = await withPerson(BEN, () => remind?.run({ channel: 'telegram', chatId: '7', userId: '7', conversationId: 'telegram:7', args: 'tomorrow at 9 call the bank' }));
    const [job] = scheduler.list();
    expect(job).toMatchObject({ kind: 'reminder', tz: MONTREAL, runAt: Date.parse('2026-06-02T13:00:00Z') });
    expect(reply).toMatch(/at 09:00 \(America\/Montreal, UTC-04:00\)/);
  });

  it('keeps a member\'s 07:00 on their clock across their own DST change (Montreal, 8 March 2026), checked against the oracle', async () => {
    const start = Date.parse('2026-03-06T00:00:00Z');
    vi.useFakeTimers({ now: start, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const scheduler = make();
    create(scheduler, BEN, { cron: '0 7 * * *' });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(4 * DAY);
    const runs = iso(fired.map((run) => run.scheduledFor));
    expect(runs).toEqual(iso(oracleRuns('0 7 * * *', MONTREAL, start, start + 4 * DAY)));
    // EST (UTC-5) until the 8th at 02:00, EDT (UTC-4) after; Paris changes only on the 29th.
    expect(runs).toEqual(['2026-03-06T12:00:00.000Z', '2026-03-07T12:00:00.000Z', '2026-03-08T11:00:00.000Z', '2026-03-09T11:00:00.000Z']);
  });

  it('catches up a member\'s missed runs on their own clock', async () => {
    const start = Date.parse('2026-06-01T08:00:00Z');
    vi.useFakeTimers({ now: start, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const job = create(make(), BEN, { cron: '0 7 * * *' });
    // The daemon is down for two days and comes back at 09:00 Montreal time on the 3rd.
    vi.setSystemTime(Date.parse('2026-06-03T13:00:00Z'));
    const later = make();
    later.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(iso(fired.map((run) => run.scheduledFor))).toEqual(['2026-06-03T11:00:00.000Z']);
    expect(iso([later.get(job.id)?.nextRunAt])).toEqual(['2026-06-04T11:00:00.000Z']);
  });

  it('re-times a member\'s recurring job when their zone changes live, and leaves the owner\'s and older jobs alone', () => {
    vi.useFakeTimers({ now: Date.parse('2026-06-01T08:00:00Z'), toFake: ['Date'] });
    const scheduler = make();
    const bens = create(scheduler, BEN, { cron: '0 7 * * *' });
    const anns = create(scheduler, ANN, { cron: '0 7 * * *' });
    const older = create(scheduler, undefined, { cron: '0 7 * * *' });
    expect(iso([bens.nextRunAt, anns.nextRunAt, older.nextRunAt])).toEqual(['2026-06-01T11:00:00.000Z', '2026-06-02T05:00:00.000Z', '2026-06-02T05:00:00.000Z']);
    zones.set('ben', 'Asia/Tokyo');
    scheduler.retime();
    expect(scheduler.get(bens.id)).toMatchObject({ tz: 'Asia/Tokyo', nextRunAt: Date.parse('2026-06-01T22:00:00Z') });
    expect(scheduler.get(anns.id)).toMatchObject({ tz: PARIS, nextRunAt: anns.nextRunAt });
    expect(scheduler.get(older.id)).toMatchObject({ tz: PARIS, nextRunAt: older.nextRunAt });
  });

  it('re-times only the jobs that follow the daemon\'s zone when `timezone` changes', () => {
    vi.useFakeTimers({ now: Date.parse('2026-06-01T08:00:00Z'), toFake: ['Date'] });
    const paris = make();
    const bens = create(paris, BEN, { cron: '0 7 * * *' });
    const anns = create(paris, ANN, { cron: '0 7 * * *' });
    make('America/New_York').start();
    const store = new JobStore(db);
    expect(store.get(bens.id)).toMatchObject({ tz: MONTREAL, nextRunAt: bens.nextRunAt });
    expect(store.get(anns.id)).toMatchObject({ tz: 'America/New_York', nextRunAt: Date.parse('2026-06-01T11:00:00Z') });
  });

  it('times the owner\'s jobs in the owner\'s zone when one is set', () => {
    vi.useFakeTimers({ now: Date.parse('2026-06-01T08:00:00Z'), toFake: ['Date'] });
    zones.set('ann', 'Europe/London');
    const job = create(make(), { ...ANN, timezone: 'Europe/London' }, { when: 'every day at 7' });
    expect(job).toMatchObject({ tz: 'Europe/London', nextRunAt: Date.parse('2026-06-02T06:00:00Z') });
  });

  it('lists a job in its own zone when it differs from the daemon\'s', () => {
    vi.useFakeTimers({ now: Date.parse('2026-06-01T08:00:00Z'), toFake: ['Date'] });
    const scheduler = make();
    const clock = new ZonedClock(PARIS);
    const bens = create(scheduler, BEN, { run_at: '2026-06-02T09:00' });
    const anns = create(scheduler, ANN, { run_at: '2026-06-02T09:00' });
    expect(formatJob(bens, clock, Date.now())).toContain('next run: Tuesday, 2 June 2026 at 09:00 (America/Montreal, UTC-04:00)');
    expect(formatJob(anns, clock, Date.now())).toContain('next run: Tuesday, 2 June 2026 at 09:00 (Europe/Paris, UTC+02:00)');
  });

  it('asks for the jobs to be re-timed when a reload changes a person, after the people are read again', () => {
    const calls: string[] = [];
    appliedBy({ refreshAccess: () => calls.push('people'), jobZones: () => calls.push('jobs') })(['people.ben.timezone']);
    expect(calls).toEqual(['people', 'jobs']);
  });
});
