import { randomBytes } from 'node:crypto';
import { parseTarget } from '../lib/target.js';
import type { Result } from '../lib/result.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { CallOrigin } from '../tools/types.js';
import type { JobStore, ListJobsOptions } from './store.js';
import { nextOccurrence, resolveSchedule, type Schedule, type ScheduleInput } from '../time/timing.js';
import { iso, processDue, type DueContext } from './due.js';
import { dispatchTriggers, type TriggerContext } from './triggered.js';
import type { CatchUp, Job, JobKind, JobRun, JobSource, JobTrigger, RunOutcome, RunTrigger, TriggerEvent, TriggerFeed } from './types.js';
import { currentPerson, currentZone } from '../lib/person-scope.js';
import { jobZone, retimeJobs } from './zones.js';

/** Runs one claimed run of a job (an agent turn or a reminder) and delivers it. Contract: never throws. */
export type JobExecutor = (job: Job, run: { id: number; scheduledFor: number; trigger: RunTrigger; event?: TriggerEvent }, signal: AbortSignal) => Promise<RunOutcome>;

/** What a part that owns some jobs (a skill's, a task reminder's) gives the root to hand to the scheduler. */
export type JobExecutors = ReadonlyArray<{ owns: (job: Job) => boolean; execute: JobExecutor }>;

export interface SchedulerOptions {
  store: JobStore;
  timeZone: string;
  log: Logger;
  execute: JobExecutor;
  runTimeoutMs: number;
  catchUpWindowMs: number;
  /** How long `close()` waits for running jobs before cutting them. */
  closeWaitMs?: number;
  now?: () => number;
  /**
   * A household person's own time zone (`people.<name>.timezone`), read live; undefined when they have none. Without
   * it every job is timed in `timeZone`.
   */
  personZone?: (person: string) => string | undefined;
}

export interface CreateJobInput extends ScheduleInput {
  id?: string | undefined;
  kind?: JobKind;
  prompt: string;
  catchUp?: CatchUp | undefined;
  origin?: CallOrigin | undefined;
  deliverTo?: string | undefined;
  approve?: string[];
  /** Outside sources in play where the job was made (see Job.sources). */
  sources?: readonly string[];
  /** A trigger job: no schedule; it runs once per trigger of the source. */
  trigger?: JobTrigger | undefined;
  enabled?: boolean;
  source: JobSource;
  configHash?: string;
  /** How the schedule is shown when it differs from the cron/run_at/when given ("in 20 minutes"). */
  spec?: string;
  /** The daemon's own job (a skill's schedule, written against `timezone`): no person, the daemon's zone, whoever made it. */
  daemons?: boolean;
}

export interface UpdateJobInput extends ScheduleInput {
  prompt?: string | undefined;
  catchUp?: CatchUp | undefined;
  /** Outside sources in play where the change was made: added to the job's (a label is never removed by an edit). */
  sources?: readonly string[];
}

/** The one timer never sleeps longer: far-off jobs are re-checked, and edits made by `familiar jobs` in another process are seen. */
export const MAX_TIMER_MS = 30_000;

const JOB_ID = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Cron and one-shot jobs. One timer points at the earliest due job (capped at MAX_TIMER_MS); on wake
 * the wall clock decides what is due. Every scheduled time is claimed in the ledger before it runs.
 */
export class Scheduler {
  readonly store: JobStore;
  readonly timeZone: string;
  private readonly options: SchedulerOptions;
  private readonly log: Logger;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private armedFor: number | undefined;
  private active = false;
  private readonly running = new Map<string, Promise<void>>();
  private readonly controllers = new Set<AbortController>();
  private readonly executors: Array<{ owns: (job: Job) => boolean; execute: JobExecutor }> = [];
  private readonly dueContext: DueContext;
  private triggerContext: TriggerContext | undefined;

  constructor(options: SchedulerOptions) {
    this.options = options;
    this.store = options.store;
    this.timeZone = options.timeZone;
    this.log = options.log;
    this.now = options.now ?? Date.now;
    this.dueContext = {
      store: options.store, log: options.log, catchUpWindowMs: options.catchUpWindowMs,
      isRunning: (id) => this.running.has(id) || this.store.isRunning(id),
      launch: (job, runId, scheduledFor, trigger) => void this.launch(job, runId, scheduledFor, trigger),
    };
  }

  /**
   * Lets another subsystem run the jobs it owns (skills: ids `skill-*`) with the same ledger, timers and
   * exactly-once claims; every other job keeps the scheduler's executor.
   */
  addExecutor(owns: (job: Job) => boolean, execute: JobExecutor): void {
    this.executors.push({ owns, execute });
  }

  /** Gives the scheduler the trigger inbox: `trigger:` jobs run from it (at start, and on `dispatchTriggers()`). */
  setTriggerFeed(feed: TriggerFeed): void {
    this.triggerContext = {
      store: this.store, feed, log: this.log, now: this.now,
      isRunning: (id) => this.running.has(id),
      launch: (job, runId, event) => void this.launch(job, runId, event.receivedAt, 'trigger', event),
    };
  }

  /** Hands pending triggers to their jobs now (the inbox calls it when one arrives). */
  dispatchTriggers(): void {
    if (this.active && this.triggerContext) dispatchTriggers(this.triggerContext);
  }

  // ---- jobs

  create(input: CreateJobInput): Result<Job> {
    const id = input.id ?? this.newId(input.kind === 'reminder' ? 'r' : 'j');
    if (this.store.get(id)) return { success: false, error: `A job with id "${id}" already exists; choose another id or use action "update".` };
    const built = this.build({ ...input, id }, this.now());
    if (!built.success) return built;
    const job = built.value;
    this.store.insert(job);
    this.log.info({ jobId: id, spec: job.spec, nextRunAt: iso(job.nextRunAt) }, 'job created');
    this.rearm();
    return { success: true, value: job };
  }

  /** Validates an input into a job row (not stored). */
  private build(input: CreateJobInput & { id: string }, now: number): Result<Job> {
    const id = input.id;
    if (!JOB_ID.test(id)) return { success: false, error: `The id "${id}" is not valid: use 1-64 letters, digits, - and _.` };
    const person = input.daemons === true ? undefined : currentPerson()?.name;
    const zone = this.zoneOf({ person, source: input.source });
    const prompt = input.prompt.trim();
    if (prompt === '') return { success: false, error: 'The prompt is empty: say what the job should do (or, for a reminder, what to remind).' };
    if (input.deliverTo !== undefined) {
      try {
        parseTarget(input.deliverTo);
      } catch (error) {
        return { success: false, error: errorMessage(error) };
      }
    }
    const common = {
      id, kind: input.kind ?? 'agent', prompt, catchUp: input.catchUp ?? 'once', origin: input.origin, deliverTo: input.deliverTo,
      approve: input.approve ?? [], sources: [...(input.sources ?? [])], enabled: input.enabled ?? true, source: input.source, tz: zone,
      // In a household the job is its maker's: it runs as them and only they (or the owner) see it.
      ...(person !== undefined ? { person } : {}),
    } satisfies Partial<Job>;
    if (input.trigger) {
      const trigger = input.trigger;
      const spec = `on ${trigger.source}${trigger.match !== undefined ? ` matching ${trigger.match}` : ''}`;
      return { success: true, value: { ...common, trigger, cron: undefined, runAt: undefined, spec, nextRunAt: undefined, lastScheduledAt: undefined, doneAt: undefined, configHash: input.configHash, createdAt: now, updatedAt: now } };
    }
    const schedule = resolveSchedule(input, now, zone);
    if (!schedule.success) return schedule;
    const job: Job = {
      ...common, trigger: undefined,
      ...scheduleColumns(schedule.value, input.spec ?? specOf(input)), nextRunAt: firstRun(schedule.value, now, zone),
      lastScheduledAt: undefined, doneAt: undefined, configHash: input.configHash, createdAt: now, updatedAt: now,
    };
    return { success: true, value: job };
  }

  update(id: string, patch: UpdateJobInput): Result<Job> {
    const job = this.store.get(id);
    if (!job) return this.unknown(id);
    const now = this.now();
    const next: Job = { ...job, updatedAt: now };
    if (patch.prompt !== undefined) {
      if (patch.prompt.trim() === '') return { success: false, error: 'The prompt is empty.' };
      next.prompt = patch.prompt.trim();
    }
    if (patch.catchUp !== undefined) next.catchUp = patch.catchUp;
    if (patch.sources && patch.sources.length > 0) next.sources = [...new Set([...job.sources, ...patch.sources])];
    if (patch.cron !== undefined || patch.run_at !== undefined || patch.when !== undefined) {
      const zone = this.zoneOf(job);
      const schedule = resolveSchedule(patch, now, zone);
      if (!schedule.success) return schedule;
      Object.assign(next, scheduleColumns(schedule.value, specOf(patch)), { tz: zone, doneAt: undefined });
      next.nextRunAt = next.enabled ? firstRun(schedule.value, now, zone) : undefined;
    }
    this.store.save(next);
    this.rearm();
    return { success: true, value: next };
  }

  remove(id: string): boolean {
    const removed = this.store.remove(id);
    if (removed) this.rearm();
    return removed;
  }

  /** A paused job keeps its schedule; runs it would have had while paused are not caught up. */
  pause(id: string): Result<Job> {
    const job = this.store.get(id);
    if (!job) return this.unknown(id);
    const next: Job = { ...job, enabled: false, updatedAt: this.now() };
    this.store.save(next);
    this.rearm();
    return { success: true, value: next };
  }

  resume(id: string): Result<Job> {
    const job = this.store.get(id);
    if (!job) return this.unknown(id);
    if (job.doneAt !== undefined) return { success: false, error: `Job "${id}" already ran (it was a one-shot); create a new one.` };
    const now = this.now();
    // A recurring job resumes at its next time from now; a one-shot whose time passed meanwhile runs at once.
    const zone = job.cron !== undefined ? this.zoneOf(job) : job.tz;
    const nextRunAt = job.cron !== undefined ? nextOccurrence(job.cron, now, zone) : job.runAt;
    const next: Job = { ...job, enabled: true, nextRunAt, tz: zone, updatedAt: now };
    this.store.save(next);
    this.rearm();
    return { success: true, value: next };
  }

  get(id: string): Job | undefined {
    return this.store.get(id);
  }

  /** Read-only: listing never moves a job's next run, even an overdue one. */
  list(options: ListJobsOptions = {}): Job[] {
    return this.store.list(options);
  }

  runs(id: string, limit?: number): JobRun[] {
    return this.store.runs(id, limit);
  }

  /** Declared jobs (config.yaml) are upserted by id; a declaration that did not change leaves the job alone. */
  upsertDeclared(inputs: CreateJobInput[]): void {
    const declared = new Set(inputs.map((input) => input.id));
    for (const input of inputs) {
      const id = input.id ?? '';
      const existing = this.store.get(id);
      if (existing && existing.configHash === input.configHash && existing.source === 'config') continue;
      const built = this.build({ ...input, id }, this.now());
      if (!built.success) {
        this.log.error({ jobId: id }, `scheduler.jobs: job "${id}" is not valid: ${built.error}`);
        continue;
      }
      if (!existing) {
        this.store.insert(built.value);
        continue;
      }
      // Same id, new declaration: keep its history; a schedule that did not change keeps its next run.
      const sameSchedule = existing.spec === built.value.spec && existing.tz === built.value.tz;
      this.store.save({
        ...built.value,
        createdAt: existing.createdAt,
        lastScheduledAt: existing.lastScheduledAt,
        doneAt: sameSchedule ? existing.doneAt : undefined,
        nextRunAt: !built.value.enabled ? undefined : sameSchedule ? existing.nextRunAt : built.value.nextRunAt,
      });
      this.log.info({ jobId: id }, 'job updated from scheduler.jobs');
    }
    this.rearm();
    for (const id of this.store.idsFromConfig()) {
      if (!declared.has(id)) {
        this.store.remove(id);
        this.log.info({ jobId: id }, 'job removed: no longer declared in scheduler.jobs');
      }
    }
  }

  /** Runs a job now, outside its schedule (its next time is untouched). */
  async runNow(id: string): Promise<Result<RunOutcome & { runId: number }>> {
    const job = this.store.get(id);
    if (!job) return this.unknown(id);
    if (this.running.has(id) || this.store.isRunning(id)) return { success: false, error: `Job "${id}" is running right now; try again when it is done.` };
    const now = this.now();
    const runId = this.store.claimManual(id, now);
    if (runId === undefined) return { success: false, error: `Job "${id}" was just started; try again in a moment.` };
    const outcome = await this.launch(job, runId, now, 'manual');
    return { success: true, value: { ...outcome, runId } };
  }

  // ---- lifecycle

  start(): void {
    const now = this.now();
    for (const run of this.store.markInterrupted(now)) {
      this.log.warn({ jobId: run.jobId, scheduledFor: iso(run.scheduledFor) }, 'a job run was cut by a crash or kill; recorded as interrupted, not run again');
    }
    this.retime(now);
    this.active = true;
    this.tick();
    // Triggers acknowledged before a crash or stop but not yet handed to their jobs.
    this.dispatchTriggers();
  }

  stop(): void {
    this.active = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = undefined;
  }

  /** Waits for running jobs up to `closeWaitMs`, then cuts them (recorded as interrupted). */
  async close(): Promise<void> {
    this.stop();
    if (this.running.size === 0) return;
    const all = Promise.allSettled([...this.running.values()]);
    if (await settlesWithin(all, this.options.closeWaitMs ?? 10_000)) return;
    for (const controller of this.controllers) controller.abort(new DOMException('the daemon is shutting down', 'AbortError'));
    await settlesWithin(all, 2000);
  }

  /** Ids of jobs running in this process. */
  runningJobs(): string[] {
    return [...this.running.keys()];
  }

  /** When the timer will next wake (tests and `jobs list`). */
  nextWake(): number | undefined {
    return this.armedFor;
  }

  // ---- the loop

  private tick(): void {
    if (!this.active) return;
    const now = this.now();
    try {
      for (const job of this.store.due(now)) {
        try {
          processDue(this.dueContext, job, now);
        } catch (error) {
          this.log.error({ err: error, jobId: job.id }, 'could not process a due job');
        }
      }
    } catch (error) {
      this.log.error({ err: error }, 'scheduler tick failed');
    }
    this.arm();
  }

  private rearm(): void {
    if (this.active) this.arm();
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    const now = this.now();
    const earliest = this.store.earliestNextRun();
    // Never more than MAX_TIMER_MS: setTimeout overflows past 2^31-1 ms (24.8 days) and fires at once.
    const delay = earliest === undefined ? MAX_TIMER_MS : Math.min(Math.max(earliest - now, 0), MAX_TIMER_MS);
    this.armedFor = now + delay;
    this.timer = setTimeout(() => this.tick(), delay);
  }

  /** Runs a claimed run with the per-run timeout and records its outcome. Contract: never rejects. */
  private launch(job: Job, runId: number, scheduledFor: number, trigger: RunTrigger, event?: TriggerEvent): Promise<RunOutcome> {
    const controller = new AbortController();
    this.controllers.add(controller);
    const timeoutMs = this.options.runTimeoutMs;
    const timer = setTimeout(() => controller.abort(new DOMException(`the run took longer than ${Math.round(timeoutMs / 1000)} s`, 'TimeoutError')), timeoutMs);
    const startedAt = this.now();
    const log = this.log.child({ jobId: job.id, runId });
    log.info({ scheduledFor: iso(scheduledFor), trigger }, 'job run started');
    const outcome = (async (): Promise<RunOutcome> => {
      try {
        const execute = this.executors.find((entry) => entry.owns(job))?.execute ?? this.options.execute;
        return await execute(job, { id: runId, scheduledFor, trigger, ...(event ? { event } : {}) }, controller.signal);
      } catch (error) {
        return { status: 'failed', output: '', error: errorMessage(error) };
      }
    })().then((result) => {
      try {
        this.store.finishRun(runId, result, startedAt, this.now());
      } catch (error) {
        log.error({ err: error }, 'could not record the end of a job run');
      }
      log.info({ status: result.status, ms: this.now() - startedAt, ...(result.error ? { error: result.error } : {}) }, 'job run finished');
      return result;
    }).finally(() => {
      clearTimeout(timer);
      this.controllers.delete(controller);
      this.running.delete(job.id);
      // Triggers held back while this job ran.
      if (job.trigger) this.dispatchTriggers();
    });
    this.running.set(job.id, outcome.then(() => undefined));
    return outcome;
  }

  /** The zone a job is timed in (zones.ts). */
  zoneOf(job: { person?: string | undefined; source: JobSource }): string {
    return jobZone(job, this.timeZone, this.options.personZone);
  }

  /** The zone a time said now is read in: the acting person's (a chat's sender, the owner at the terminal). */
  currentZone(): string {
    return currentZone(this.timeZone);
  }

  /** Re-times recurring jobs whose zone changed (zones.ts), then re-arms the timer. */
  retime(now: number = this.now()): void {
    retimeJobs(this.store, (job) => this.zoneOf(job), now, this.log);
    this.rearm();
  }

  private newId(prefix: string): string {
    for (;;) {
      const id = `${prefix}-${randomBytes(3).toString('hex')}`;
      if (!this.store.get(id)) return id;
    }
  }

  /** Names no other ids: this message can reach a chat, which may see only its own jobs (`ownership.ts`). */
  private unknown(id: string): { success: false; error: string } {
    return { success: false, error: `No job with id "${id}"; list the jobs to see the ids.` };
  }
}

function firstRun(schedule: Schedule, now: number, timeZone: string): number | undefined {
  return schedule.type === 'once' ? schedule.at : nextOccurrence(schedule.cron, now, timeZone);
}

function scheduleColumns(schedule: Schedule, spec: string): Pick<Job, 'cron' | 'runAt' | 'spec'> {
  return schedule.type === 'cron' ? { cron: schedule.cron, runAt: undefined, spec } : { cron: undefined, runAt: schedule.at, spec };
}

function specOf(input: ScheduleInput): string {
  return (input.when ?? input.cron ?? input.run_at ?? '').trim();
}

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true as const), timeout]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}
