import type { Calendars } from './calendars.js';
import { dayRange, localDate, parseDay } from './when.js';

/** What the console's week page shows; the console declares the same shape (ConsoleWeek) without importing this. */
export interface Week {
  first: string;
  days: Array<{ day: string; label: string; events: Array<{ time: string; summary: string; location?: string; from?: string }> }>;
  problems: string[];
}

/** The console's week view over the calendars: seven days from a day (default this week's Monday), on the person's clock. */
export function weekView(calendars: Calendars, timeZone: () => string, now: () => number): { week(first: string | undefined): Promise<Week> } {
  return {
    async week(first) {
      const zone = timeZone();
      let start: string;
      if (first !== undefined) {
        const parsed = parseDay(first, now(), zone);
        if (!parsed.success) throw new Error(parsed.error);
        start = parsed.value;
      } else start = mondayOf(localDate(now(), zone));
      const { occurrences, problems } = await calendars.occurrences(dayRange(start, 7, zone));
      const time = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
      const label = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short' });
      const days = Array.from({ length: 7 }, (_, index) => {
        const range = dayRange(start, index + 1, zone);
        const dayStart = dayRange(start, index, zone).to;
        const day = localDate(dayStart, zone);
        const events = occurrences.filter((occurrence) => occurrence.start < range.to && occurrence.end > dayStart).map((occurrence) => ({
          time: occurrence.allDay ? 'all day' : `${time.format(Math.max(occurrence.start, dayStart))}–${time.format(Math.min(occurrence.end, range.to))}`,
          summary: occurrence.summary,
          ...(occurrence.location ? { location: occurrence.location } : {}),
          ...(occurrence.outside ? { from: occurrence.organizer ?? occurrence.source } : {}),
        }));
        return { day, label: label.format(Date.parse(`${day}T12:00:00Z`)), events };
      });
      return { first: start, days, problems };
    },
  };
}

function mondayOf(day: string): string {
  const date = new Date(`${day}T12:00:00Z`);
  date.setUTCDate(date.getUTCDate() - ((date.getUTCDay() + 6) % 7));
  return date.toISOString().slice(0, 10);
}
