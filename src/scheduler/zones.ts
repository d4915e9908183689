import type { Logger } from '../log.js';
import { nextOccurrence } from '../time/timing.js';
import { iso } from './due.js';
import type { JobStore } from './store.js';
import type { Job, JobSource } from './types.js';

/**
 * The zone a job is timed in: its person's own (`people.<name>.timezone`, read live through `personZone`) when it has
 * a person and one is set, else the daemon's. Jobs declared in config.yaml, and jobs from before the household (no
 * person), follow `timezone`.
 */
export function jobZone(job: { person?: string | undefined; source: JobSource }, timeZone: string, personZone?: (person: string) => string | undefined): string {
  if (job.person === undefined || job.source === 'config') return timeZone;
  return personZone?.(job.person) ?? timeZone;
}

/**
 * Re-times recurring jobs whose zone changed: after a change of `timezone` (at start) those that follow the daemon's,
 * after a change of a person's `timezone` (a live reload of `people`) that person's. A one-shot keeps its instant.
 */
export function retimeJobs(store: JobStore, zoneOf: (job: Job) => string, now: number, log: Logger): void {
  for (const job of store.list()) {
    if (job.cron === undefined) continue;
    const zone = zoneOf(job);
    if (zone === job.tz) continue;
    const nextRunAt = job.enabled ? nextOccurrence(job.cron, Math.max(now, job.lastScheduledAt ?? 0), zone) : job.nextRunAt;
    store.save({ ...job, tz: zone, nextRunAt, updatedAt: now });
    log.info({ jobId: job.id, from: job.tz, to: zone, nextRunAt: iso(nextRunAt) }, 'job re-timed for the new time zone');
  }
}
