import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { MAX_TIMER_MS, Scheduler, type CreateJobInput } from '../../src/scheduler/scheduler.js';
import { JobStore } from '../../src/scheduler/store.js';
import type { Job, RunOutcome, RunTrigger } from '../../src/scheduler/types.js';
import { captureLogger, tempDir } from '../helpers/app.js';

const HOUR = 3_600_000;
const START = new Date('2026-06-01T10:00:00Z');

interface Call {
  jobId: string;
  scheduledFor: string;
  trigger: RunTrigger;
  startedAt: string;
}

describe('scheduler (fake timers, real SQLite)', () => {
  let dir: string;
  let db: Database;
  let logs: string[];
  let calls: Call[];
  let behaviour: (job: Job, signal: AbortSignal) => Promise<RunOutcome>;
  let schedulers: Scheduler[];

  const make = (options: { catchUpWindowMs?: number; runTimeoutMs?: number } = {}) => {
    const scheduler = new Scheduler({
      store: new JobStore(db),
      timeZone: 'Europe/Paris',
      log: captureLogger(logs, []),
      execute: async (job, run, signal) => {
        calls.push({ jobId: job.id, scheduledFor: new Date(run.scheduledFor).toISOString(), trigger: run.trigger, startedAt: new Date().toISOString() });
        return behaviour(job, signal);
      },
      runTimeoutMs: options.runTimeoutMs ?? 600_000,
      catchUpWindowMs: options.catchUpWindowMs ?? 24 * HOUR,
      closeWaitMs: 100,
    });
    schedulers.push(scheduler);
    return scheduler;
  };
  const create = (scheduler: Scheduler, input: Partial<CreateJobInput>) => {
    const created = scheduler.create({ prompt: 'do it', source: 'chat', origin: { channel: 'telegram', chatId: '42' }, ...input });
    if (!created.success) throw new Error(created.error);
    return created.value;
  };
  const ledger = (jobId: string) =>
    db.prepare('SELECT scheduled_for, trigger, status, error FROM job_runs WHERE job_id = ? ORDER BY scheduled_for').all(jobId) as Array<{ scheduled_for: number; trigger: string; status: string; error: string | null }>;

  beforeEach(() => {
    vi.useFakeTimers({ now: START, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    dir = tempDir();
    db = openDatabase(dir);
    logs = [];
    calls = [];
    schedulers = [];
    behaviour = async () => ({ status: 'ok', output: 'done' });
  });

  afterEach(() => {
    for (const scheduler of schedulers) scheduler.stop();
    vi.useRealTimers();
    db.close();
  });

  it('fires a seconds-field cron once at each occurrence and records each run', async () => {
    const scheduler = make();
    const job = create(scheduler, { cron: '*/10 * * * * *' });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(calls.map((call) => call.scheduledFor)).toEqual(['2026-06-01T10:00:10.000Z', '2026-06-01T10:00:20.000Z', '2026-06-01T10:00:30.000Z']);
    expect(calls.every((call) => call.startedAt === call.scheduledFor)).toBe(true);
    expect(ledger(job.id).map((row) => row.status)).toEqual(['ok', 'ok', 'ok']);
  });

  it('never arms a timer longer than the cap, and a run_at 40 days ahead does not fire early', async () => {
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const scheduler = make();
    const dueAt = START.getTime() + 40 * 24 * HOUR;
    create(scheduler, { run_at: new Date(dueAt).toISOString() });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(40 * 24 * HOUR - 1000);
    expect(calls).toHaveLength(0);
    const delays = setTimeoutSpy.mock.calls.map((call) => Number(call[1] ?? 0));
    expect(Math.max(...delays)).toBeLessThanOrEqual(MAX_TIMER_MS);
    await vi.advanceTimersByTimeAsync(2000);
    expect(calls).toEqual([expect.objectContaining({ scheduledFor: new Date(dueAt).toISOString(), trigger: 'schedule' })]);
    setTimeoutSpy.mockRestore();
  }, 60_000);

  it('lists jobs without changing their next-run times, even when overdue', () => {
    const scheduler = make();
    const job = create(scheduler, { cron: '0 * * * *' });
    const rowBefore = db.prepare('SELECT * FROM jobs WHERE id = ?').get(job.id);
    vi.setSystemTime(START.getTime() + 5 * HOUR);
    const listed = scheduler.list();
    expect(listed.find((candidate) => candidate.id === job.id)?.nextRunAt).toBe(Date.parse('2026-06-01T11:00:00Z'));
    expect(db.prepare('SELECT * FROM jobs WHERE id = ?').get(job.id)).toEqual(rowBefore);
    expect(ledger(job.id)).toEqual([]);
  });

  it('keeps a job across a restart and fires it once, at its scheduled time', async () => {
    const first = make();
    first.start();
    const job = create(first, { run_at: '2026-06-01T10:05:00Z' });
    await vi.advanceTimersByTimeAsync(60_000);
    first.stop();
    const second = make();
    second.start();
    expect(second.get(job.id)?.nextRunAt).toBe(Date.parse('2026-06-01T10:05:00Z'));
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(calls).toEqual([expect.objectContaining({ jobId: job.id, scheduledFor: '2026-06-01T10:05:00.000Z', startedAt: '2026-06-01T10:05:00.000Z' })]);
  });

  it('runs a one-shot that fell due while the daemon was down once at start', async () => {
    const down = make();
    const job = create(down, { when: 'in 1 hour' });
    vi.setSystemTime(START.getTime() + 3 * HOUR);
    const up = make();
    up.start();
    await vi.advanceTimersByTimeAsync(HOUR);
    expect(calls).toEqual([expect.objectContaining({ jobId: job.id, scheduledFor: '2026-06-01T11:00:00.000Z', trigger: 'catch_up', startedAt: '2026-06-01T13:00:00.000Z' })]);
    expect(up.get(job.id)?.doneAt).toBeDefined();
    expect(up.list().map((candidate) => candidate.id)).not.toContain(job.id);
  });

  it('catches up a recurring job once for all the runs it missed under "once"', async () => {
    const down = make();
    const job = create(down, { cron: '0 * * * *' });
    vi.setSystemTime(Date.parse('2026-06-01T15:30:00Z'));
    const up = make();
    up.start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toEqual([expect.objectContaining({ scheduledFor: '2026-06-01T15:00:00.000Z', trigger: 'catch_up' })]);
    expect(up.get(job.id)?.nextRunAt).toBe(Date.parse('2026-06-01T16:00:00Z'));
    await vi.advanceTimersByTimeAsync(30 * 60_000);
    expect(calls.map((call) => [call.scheduledFor, call.trigger])).toEqual([
      ['2026-06-01T15:00:00.000Z', 'catch_up'],
      ['2026-06-01T16:00:00.000Z', 'schedule'],
    ]);
  });

  it('does not run missed runs under "skip", but records and logs the miss', async () => {
    const down = make();
    const job = create(down, { cron: '0 * * * *', catchUp: 'skip' });
    vi.setSystemTime(Date.parse('2026-06-01T15:30:00Z'));
    const up = make();
    up.start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toEqual([]);
    expect(ledger(job.id)).toEqual([expect.objectContaining({ status: 'missed', error: expect.stringMatching(/missed runs from 2026-06-01T11:00:00.000Z to 2026-06-01T15:00:00.000Z; catch_up is "skip"/) })]);
    expect(logs.join('')).toMatch(/job not run: missed runs/);
    expect(up.get(job.id)?.nextRunAt).toBe(Date.parse('2026-06-01T16:00:00Z'));
  });

  it('does not catch up a run older than scheduler.catch_up_window', async () => {
    const down = make({ catchUpWindowMs: HOUR });
    const job = create(down, { cron: '0 8 * * *' });
    vi.setSystemTime(Date.parse('2026-06-02T15:00:00Z'));
    const up = make({ catchUpWindowMs: HOUR });
    up.start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toEqual([]);
    expect(ledger(job.id)).toEqual([expect.objectContaining({ status: 'missed', error: expect.stringMatching(/catch_up_window/) })]);
  });

  it('skips (and records) an occurrence that comes while the previous run is still going', async () => {
    behaviour = () => new Promise((resolve) => setTimeout(() => resolve({ status: 'ok', output: 'slow' }), 25_000));
    const scheduler = make();
    const job = create(scheduler, { cron: '*/10 * * * * *' });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(40_000);
    expect(calls.map((call) => call.scheduledFor)).toEqual(['2026-06-01T10:00:10.000Z', '2026-06-01T10:00:40.000Z']);
    expect(ledger(job.id).map((row) => `${new Date(row.scheduled_for).toISOString().slice(17, 19)} ${row.status}`)).toEqual([
      '10 ok', '20 skipped', '30 skipped', '40 running',
    ]);
  });

  it('marks a run cut by a crash as interrupted and never runs that time again', async () => {
    behaviour = () => new Promise(() => undefined);
    const crashed = make();
    const job = create(crashed, { cron: '0 * * * *' });
    crashed.start();
    await vi.advanceTimersByTimeAsync(HOUR);
    expect(calls).toHaveLength(1);
    crashed.stop(); // the process dies here: no outcome is ever recorded
    behaviour = async () => ({ status: 'ok', output: 'done' });
    const restarted = make();
    restarted.start();
    await vi.advanceTimersByTimeAsync(30 * 60_000);
    expect(calls).toHaveLength(1);
    expect(ledger(job.id)).toEqual([expect.objectContaining({ scheduled_for: Date.parse('2026-06-01T11:00:00Z'), status: 'interrupted' })]);
    await vi.advanceTimersByTimeAsync(30 * 60_000);
    expect(calls.map((call) => call.scheduledFor)).toEqual(['2026-06-01T11:00:00.000Z', '2026-06-01T12:00:00.000Z']);
  });

  it('lets only one of two racing claims of the same scheduled time through', () => {
    const scheduler = make();
    const job = create(scheduler, { cron: '0 * * * *' });
    const store = new JobStore(db);
    const advance = { nextRunAt: Date.parse('2026-06-01T12:00:00Z'), done: false };
    const first = store.claim(job, Date.parse('2026-06-01T11:00:00Z'), 'schedule', 'running', advance, Date.now());
    const second = store.claim(job, Date.parse('2026-06-01T11:00:00Z'), 'schedule', 'running', advance, Date.now());
    expect(first).toBeTypeOf('number');
    expect(second).toBeUndefined();
    // Even a claimer that saw the moved job cannot insert the same time twice.
    const fresh = store.get(job.id);
    if (!fresh) throw new Error('job vanished');
    expect(store.claim(fresh, Date.parse('2026-06-01T11:00:00Z'), 'schedule', 'running', advance, Date.now())).toBeUndefined();
    expect(ledger(job.id)).toHaveLength(1);
  });

  it('cuts a run at scheduler.run_timeout_s', async () => {
    behaviour = (_job, signal) =>
      new Promise((resolve) => signal.addEventListener('abort', () => resolve({ status: 'failed', output: '', error: String((signal.reason as Error).message) })));
    const scheduler = make({ runTimeoutMs: 5000 });
    const job = create(scheduler, { when: 'in 10 seconds' });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(16_000);
    expect(ledger(job.id)).toEqual([expect.objectContaining({ status: 'failed', error: 'the run took longer than 5 s' })]);
  });

  it('hands jobs owned by another subsystem to its executor, and lists one owner\'s jobs by id prefix', async () => {
    const scheduler = make();
    const owned: string[] = [];
    scheduler.addExecutor((job) => job.id.startsWith('skill-'), async (job) => {
      owned.push(job.id);
      return { status: 'ok', output: 'skill ran' };
    });
    create(scheduler, { id: 'skill-news', when: 'in 5 seconds' });
    create(scheduler, { id: 'plain', when: 'in 5 seconds' });
    expect(scheduler.list({ idPrefix: 'skill-' }).map((job) => job.id)).toEqual(['skill-news']);
    scheduler.start();
    await vi.advanceTimersByTimeAsync(6000);
    expect(owned).toEqual(['skill-news']);
    expect(calls.map((call) => call.jobId)).toEqual(['plain']);
    expect(ledger('skill-news')).toEqual([expect.objectContaining({ status: 'ok' })]);
  });

  it('re-times recurring jobs on the new clock when the configured time zone changes', () => {
    const paris = make();
    const job = create(paris, { cron: '0 8 * * *' });
    expect(job.nextRunAt).toBe(Date.parse('2026-06-02T06:00:00Z'));
    const newYork = new Scheduler({
      store: new JobStore(db), timeZone: 'America/New_York', log: captureLogger(logs, []), execute: async () => ({ status: 'ok', output: '' }),
      runTimeoutMs: 1000, catchUpWindowMs: HOUR,
    });
    schedulers.push(newYork);
    newYork.start();
    expect(newYork.get(job.id)).toMatchObject({ tz: 'America/New_York', nextRunAt: Date.parse('2026-06-01T12:00:00Z') });
  });

  it('on close, waits for a running job, then cuts it and records it as interrupted', async () => {
    behaviour = (_job, signal) =>
      new Promise((resolve) => signal.addEventListener('abort', () => resolve({ status: 'interrupted', output: '', error: 'the daemon shut down during the run' })));
    const scheduler = make();
    const job = create(scheduler, { when: 'in 2 seconds' });
    scheduler.start();
    await vi.advanceTimersByTimeAsync(2000);
    expect(scheduler.runningJobs()).toEqual([job.id]);
    const closed = scheduler.close();
    await vi.advanceTimersByTimeAsync(200);
    await closed;
    expect(scheduler.runningJobs()).toEqual([]);
    expect(ledger(job.id)).toEqual([expect.objectContaining({ status: 'interrupted', error: 'the daemon shut down during the run' })]);
  });

  it('does not fire a paused job, and resumes from the next time after now', async () => {
    const scheduler = make();
    const job = create(scheduler, { cron: '0 * * * *' });
    scheduler.start();
    scheduler.pause(job.id);
    await vi.advanceTimersByTimeAsync(2 * HOUR + 60_000);
    expect(calls).toEqual([]);
    const resumed = scheduler.resume(job.id);
    expect(resumed.success && resumed.value.nextRunAt).toBe(Date.parse('2026-06-01T13:00:00Z'));
    await vi.advanceTimersByTimeAsync(HOUR);
    expect(calls.map((call) => call.scheduledFor)).toEqual(['2026-06-01T13:00:00.000Z']);
  });
});
