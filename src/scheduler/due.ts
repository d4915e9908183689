import type { Logger } from '../log.js';
import { latestOccurrence, nextOccurrence } from '../time/timing.js';
import type { JobStore } from './store.js';
import type { Job, RunTrigger } from './types.js';

/** A run this late (or later) counts as missed and follows the job's catch-up policy. */
const LATE_GRACE_MS = 120_000;

/** What deciding about a due job needs of the scheduler. */
export interface DueContext {
  store: JobStore;
  log: Logger;
  catchUpWindowMs: number;
  /** The job has a run in flight, in this process or (by the ledger) another. */
  isRunning: (id: string) => boolean;
  /** Starts a claimed run; it records its own end. */
  launch: (job: Job, runId: number, scheduledFor: number, trigger: RunTrigger) => void;
}

interface Advance {
  nextRunAt: number | undefined;
  done: boolean;
}

/**
 * Decides what a due job does now: run, catch up, skip (still running) or record a miss. Every outcome is claimed in
 * the ledger first, so a time another process (or an earlier tick) claimed is not acted on twice.
 */
export function processDue(context: DueContext, job: Job, now: number): void {
  const due = job.nextRunAt;
  if (due === undefined) return;
  if (job.cron === undefined) {
    processOneShot(context, job, due, now);
    return;
  }
  const { store, log } = context;
  // Each job steps through its own zone's clock (its person's in a household), DST included.
  const timeZone = job.tz;
  // The usual case costs one cron step: the occurrence after `due` is still ahead, so nothing was missed.
  const following = nextOccurrence(job.cron, due, timeZone);
  const missedSome = following !== undefined && following <= now;
  const latest = missedSome ? (latestOccurrence(job.cron, now, timeZone) ?? due) : due;
  const scheduledFor = Math.max(latest, due);
  const advance = { nextRunAt: missedSome ? nextOccurrence(job.cron, Math.max(scheduledFor, now), timeZone) : following, done: false };
  // The latest occurrence is recent: it runs as scheduled (earlier ones, if any, were lost to a lag or a restart).
  const onTime = now - latest <= LATE_GRACE_MS;
  if (context.isRunning(job.id)) {
    const claimed = store.claim(job, scheduledFor, onTime ? 'schedule' : 'catch_up', 'skipped', advance, now, 'the previous run was still running');
    if (claimed !== undefined) log.warn({ jobId: job.id, scheduledFor: iso(scheduledFor) }, 'job skipped: its previous run is still running');
    return;
  }
  if (onTime) {
    const runId = store.claim(job, scheduledFor, 'schedule', 'running', advance, now);
    if (runId !== undefined) {
      if (missedSome) log.warn({ jobId: job.id, from: iso(due), to: iso(latest) }, 'earlier runs were missed (the daemon was down or busy); running the latest one');
      context.launch(job, runId, scheduledFor, 'schedule');
    }
    return;
  }
  const window = context.catchUpWindowMs;
  const missedFrom = `missed runs from ${iso(due)} to ${iso(latest)}`;
  if (job.catchUp === 'once' && now - latest <= window) {
    const runId = store.claim(job, scheduledFor, 'catch_up', 'running', advance, now);
    if (runId !== undefined) {
      log.info({ jobId: job.id, from: iso(due), to: iso(latest) }, 'catching up once for missed runs');
      context.launch(job, runId, scheduledFor, 'catch_up');
    }
    return;
  }
  const why = job.catchUp === 'skip' ? 'catch_up is "skip"' : `the latest was more than ${Math.round(window / 3600_000)} h ago (scheduler.catch_up_window)`;
  recordMiss(context, job, scheduledFor, advance, now, `${missedFrom}; ${why}`);
}

function processOneShot(context: DueContext, job: Job, due: number, now: number): void {
  const late = now - due > LATE_GRACE_MS;
  if (late && job.catchUp === 'skip') {
    recordMiss(context, job, due, { nextRunAt: undefined, done: true }, now, `missed while the daemon was down; catch_up is "skip"`);
    return;
  }
  const runId = context.store.claim(job, due, late ? 'catch_up' : 'schedule', 'running', { nextRunAt: undefined, done: true }, now);
  if (runId !== undefined) context.launch(job, runId, due, late ? 'catch_up' : 'schedule');
}

function recordMiss(context: DueContext, job: Job, scheduledFor: number, advance: Advance, now: number, note: string): void {
  const claimed = context.store.claim(job, scheduledFor, 'catch_up', 'missed', advance, now, note);
  if (claimed !== undefined) context.log.warn({ jobId: job.id, scheduledFor: iso(scheduledFor) }, `job not run: ${note}`);
}

export function iso(at: number | undefined): string | undefined {
  return at === undefined ? undefined : new Date(at).toISOString();
}
