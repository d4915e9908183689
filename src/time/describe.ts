import { ZonedClock } from '../lib/clock.js';
import { describeCron } from './timing.js';

/** What a scheduled thing's schedule is and where it stands (a scheduler job has these fields). */
export interface ScheduleFacts {
  /** A 5- or 6-field cron expression in `tz`, or undefined for a one-shot. */
  cron: string | undefined;
  tz: string;
  runAt: number | undefined;
  enabled: boolean;
  nextRunAt: number | undefined;
  doneAt: number | undefined;
}

/** "At 08:00, Monday through Friday (Europe/Paris)" or "once, Tuesday 24 December 2026 at 18:00 (…)". */
export function describeSchedule(facts: Pick<ScheduleFacts, 'cron' | 'tz' | 'runAt'>, clock: ZonedClock): string {
  if (facts.cron !== undefined) return `${describeCron(facts.cron)} (${facts.tz}; cron ${facts.cron})`;
  return `once, ${facts.runAt !== undefined ? clockFor(facts.tz, clock).describe(new Date(facts.runAt)) : 'at no time'}`;
}

/** When it runs next: a time (flagged when due), or why never ("done", "paused"); in the job's own zone when it has one. */
export function describeNextRun(facts: Pick<ScheduleFacts, 'enabled' | 'nextRunAt' | 'doneAt'> & { tz?: string }, clock: ZonedClock, now: number): string {
  if (facts.doneAt !== undefined) return 'done';
  if (!facts.enabled) return 'paused';
  if (facts.nextRunAt === undefined) return 'never (the schedule has no further time)';
  const when = clockFor(facts.tz, clock).describe(new Date(facts.nextRunAt));
  return facts.nextRunAt <= now ? `${when} (due now)` : when;
}

/**
 * A job timed in another zone than the daemon's (a household person's) is shown on that zone's clock, whose
 * description names the zone: "Monday, 1 June 2026 at 07:00 (America/Montreal, UTC-04:00)".
 */
function clockFor(timeZone: string | undefined, clock: ZonedClock): ZonedClock {
  return timeZone === undefined || timeZone === clock.timeZone ? clock : new ZonedClock(timeZone);
}
