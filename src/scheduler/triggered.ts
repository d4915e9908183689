import { parsePhrases } from '../lib/phrases.js';
import type { Logger } from '../log.js';
import type { JobStore } from './store.js';
import type { Job, TriggerEvent, TriggerFeed } from './types.js';

/** What handing triggers to their jobs needs of the scheduler. */
export interface TriggerContext {
  store: JobStore;
  feed: TriggerFeed;
  log: Logger;
  now: () => number;
  /** The job has a run in flight in this process. */
  isRunning: (id: string) => boolean;
  /** Starts a claimed run of the trigger; it records its own end. */
  launch: (job: Job, runId: number, event: TriggerEvent) => void;
}

/** Whether a trigger job takes this trigger: no `match`, or one of its phrases in the summary or payload. */
export function takes(job: Job, event: TriggerEvent): boolean {
  const match = job.trigger?.match;
  if (match === undefined) return true;
  const phrases = parsePhrases(match);
  return phrases !== undefined && phrases.find(`${event.summary}\n${event.payload}`) !== undefined;
}

/**
 * Hands the inbox's pending triggers, oldest first, to the jobs that take them: each job claims its run in the
 * ledger (one row per job and trigger, so a second dispatch after a crash claims nothing), then the trigger is
 * marked dispatched. A job still running an earlier trigger holds the rest back in order (one run of a job at a
 * time, as for cron); the scheduler dispatches again when that run ends. Contract: never throws (logged).
 */
export function dispatchTriggers(context: TriggerContext): void {
  const { store, feed, log } = context;
  let events: TriggerEvent[];
  try {
    events = feed.pending();
  } catch (error) {
    log.error({ err: error }, 'could not read the trigger inbox');
    return;
  }
  for (const event of events) {
    try {
      const jobs = store.triggerJobs(event.source).filter((job) => takes(job, event));
      const waiting = jobs.find((job) => context.isRunning(job.id) && store.runsWithStatus(job.id, 'running').every((run) => run.scheduledFor !== event.receivedAt));
      if (waiting) {
        log.debug({ jobId: waiting.id, trigger: event.id }, 'trigger waits for the job\'s run in flight');
        return;
      }
      for (const job of jobs) {
        const runId = store.claimTrigger(job.id, event.receivedAt, context.now());
        if (runId !== undefined) context.launch(job, runId, event);
      }
      feed.markDispatched(event.id, jobs.map((job) => job.id));
      if (jobs.length === 0) log.debug({ trigger: event.id }, 'trigger taken by no job; the heartbeat\'s inbox probe reports it');
    } catch (error) {
      log.error({ err: error, trigger: event.id }, 'could not dispatch a trigger');
      return;
    }
  }
}
