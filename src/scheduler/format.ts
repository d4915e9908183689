import type { ZonedClock } from '../lib/clock.js';
import { describeNextRun, describeSchedule } from '../time/describe.js';
import type { Job, JobRun } from './types.js';

/** One job, several lines, for replies and `familiar jobs list`. */
export function formatJob(job: Job, clock: ZonedClock, now: number): string {
  const what = job.kind === 'reminder' ? `reminder: ${job.prompt}` : `prompt: ${job.prompt}`;
  return [
    `${job.id}${job.enabled ? '' : ' (paused)'} — ${describeSchedule(job, clock)}`,
    `  next run: ${describeNextRun(job, clock, now)}`,
    `  ${truncate(what, 200)}`,
  ].join('\n');
}

export function formatJobs(jobs: readonly Job[], clock: ZonedClock, now: number): string {
  if (jobs.length === 0) return 'No scheduled jobs.';
  return jobs.map((job) => formatJob(job, clock, now)).join('\n');
}

/** One ledger row: status, start, duration, error, and an excerpt of the output. */
export function formatRun(run: JobRun, clock: ZonedClock): string {
  const head = [
    `#${run.id} ${run.status}`,
    `scheduled ${clock.format(new Date(run.scheduledFor))}`,
    `started ${clock.format(new Date(run.startedAt))}`,
    run.durationMs !== undefined ? `${(run.durationMs / 1000).toFixed(1)} s` : undefined,
    run.trigger !== 'schedule' ? run.trigger : undefined,
    run.deliveredTo !== undefined ? `→ ${run.deliveredTo}` : undefined,
  ].filter((part) => part !== undefined).join(' · ');
  const lines = [head];
  if (run.error) lines.push(`  error: ${truncate(run.error, 300)}`);
  if (run.output) lines.push(`  output: ${truncate(run.output.replace(/\s+/g, ' '), 300)}`);
  return lines.join('\n');
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
