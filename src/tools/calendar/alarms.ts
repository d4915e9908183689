import { createHash } from 'node:crypto';
import type { Logger } from '../../log.js';
import type { SchedulerAccess } from '../context.js';
import type { Calendars } from './calendars.js';
import { formatWhen } from './format.js';
import type { Occurrence } from './types.js';

/** Alarm jobs carry this prefix; the rest of the id is a hash of where the alarm comes from. */
export const ALARM_PREFIX = 'cal-';
/** How often the calendars are read again for alarms. */
export const ALARM_SYNC_MS = 15 * 60_000;

export interface AlarmDeps {
  calendars: Calendars;
  scheduler: SchedulerAccess;
  timeZone: () => string;
  now: () => number;
  days: number;
  log: Logger;
}

/** The job id of one alarm of one occurrence: the same on every sync, so a re-read never makes a second one. */
export function alarmJobId(occurrence: Pick<Occurrence, 'source' | 'uid' | 'recurrenceId'>, alarm: number): string {
  const key = `${occurrence.source}\n${occurrence.uid}\n${occurrence.recurrenceId ?? ''}\n${alarm}`;
  return `${ALARM_PREFIX}${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
}

/**
 * Event alarms (VALARM, relative to the start) become Familiar's own reminders: one-shot reminder jobs in the
 * scheduler, delivered like `reminder_create`'s through the one delivery path (buttons, quiet chats, the default
 * chat). Idempotent by event UID + occurrence + alarm; an alarm that is gone or moved loses or moves its job. An
 * alarm on an invitation or a feed is delivered as outside content. Contract: `sync` never throws.
 */
export class CalendarAlarms {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<{ created: number; removed: number }> | undefined;

  constructor(private readonly deps: AlarmDeps) {}

  start(): void {
    void this.sync();
    this.timer = setInterval(() => void this.sync(), ALARM_SYNC_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  sync(): Promise<{ created: number; removed: number }> {
    this.running ??= this.syncNow().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async syncNow(): Promise<{ created: number; removed: number }> {
    const counts = { created: 0, removed: 0 };
    try {
      const now = this.deps.now();
      const horizon = now + this.deps.days * 86_400_000;
      // An alarm may go off up to a few days before its event: read a little past the horizon.
      const { occurrences, problems } = await this.deps.calendars.occurrences({ from: now, to: horizon + 7 * 86_400_000 });
      const wanted = new Map<string, { at: number; text: string; sources: string[] }>();
      for (const occurrence of occurrences) {
        for (const alarm of occurrence.alarms) {
          const at = occurrence.start - alarm.minutesBefore * 60_000;
          if (at <= now || at > horizon) continue;
          const text = `${occurrence.summary} — ${formatWhen(occurrence, this.deps.timeZone())}${occurrence.location ? ` @ ${occurrence.location}` : ''}`;
          wanted.set(alarmJobId(occurrence, alarm.index), { at, text, sources: occurrence.outside ? [`calendar:${occurrence.source}`] : [] });
        }
      }
      const existing = new Map(this.deps.scheduler.list().filter((job) => job.id.startsWith(ALARM_PREFIX)).map((job) => [job.id, job]));
      for (const [id, job] of existing) {
        const want = wanted.get(id);
        // A calendar that could not be read keeps its jobs: an outage must not cancel alarms.
        if (problems.length > 0 && !want) continue;
        if (want && job.nextRunAt === want.at && job.prompt === want.text) continue;
        if (job.nextRunAt === undefined && !want) continue;
        this.deps.scheduler.remove(id);
        if (!want) counts.removed += 1;
      }
      for (const [id, want] of wanted) {
        const job = existing.get(id);
        if (job && job.nextRunAt === want.at && job.prompt === want.text) continue;
        const created = this.deps.scheduler.create({ id, kind: 'reminder', prompt: want.text, run_at: new Date(want.at).toISOString(), catchUp: 'once', ...(want.sources.length > 0 ? { sources: want.sources } : {}) });
        if (created.success) counts.created += 1;
        else this.deps.log.warn({ jobId: id, error: created.error }, 'calendar alarm not scheduled');
      }
    } catch (error) {
      this.deps.log.warn({ err: error }, 'calendar alarms could not be read');
    }
    return counts;
  }
}
