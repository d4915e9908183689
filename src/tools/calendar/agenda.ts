import type { Calendars } from './calendars.js';
import { formatWhen } from './format.js';
import { dayRange, localDate } from './when.js';

/**
 * The person's days as plain text for `/today`, `/week` and `familiar calendar today|list`: what the person reads
 * directly (no model sees it). An event from someone else says who it is from.
 */
export async function agenda(calendars: Calendars, options: { days: number; first?: string; timeZone: string; now: number }): Promise<string> {
  const first = options.first ?? localDate(options.now, options.timeZone);
  const range = dayRange(first, options.days, options.timeZone);
  const { occurrences, problems } = await calendars.occurrences(range);
  const lines = occurrences.map((occurrence) => {
    const from = occurrence.outside ? ` (from ${occurrence.organizer ?? occurrence.source})` : '';
    return `${formatWhen(occurrence, options.timeZone)}  ${occurrence.summary}${occurrence.location ? ` @ ${occurrence.location}` : ''}${from}`;
  });
  const head = options.days === 1 ? `${first}:` : `${first} and the ${options.days - 1} days after:`;
  const body = lines.length > 0 ? lines.join('\n') : 'nothing in the calendar.';
  return `${head}\n${body}${problems.length > 0 ? `\n(not read: ${problems.join('; ')})` : ''}`;
}
