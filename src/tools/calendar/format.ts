import { wrapOutside } from '../external.js';
import type { Occurrence } from './types.js';

/** How an occurrence reads in a listing, on the person's clock; what others wrote is wrapped as outside content. */
export function formatOccurrences(occurrences: readonly Occurrence[], timeZone: string): { text: string; thirdParty: string[]; sources: string[] } {
  const thirdParty: string[] = [];
  const sources = new Set<string>();
  const lines = occurrences.map((occurrence) => {
    const when = formatWhen(occurrence, timeZone);
    const handle = [`uid=${occurrence.uid}`, occurrence.recurrenceId ? `occurrence=${occurrence.recurrenceId}` : '', occurrence.etag ? `version=${occurrence.etag}` : '', `calendar=${occurrence.source}/${occurrence.calendar}`].filter(Boolean).join(' ');
    const body = describe(occurrence);
    if (!occurrence.outside) return `- ${when} ${body}\n  [${handle}]`;
    const source = `calendar ${occurrence.source}/${occurrence.calendar}${occurrence.organizer ? `, organized by ${occurrence.organizer}` : ''}`;
    sources.add(`calendar:${occurrence.source}`);
    const { wrapped, shown } = wrapOutside(source, body);
    thirdParty.push(shown);
    return `- ${when}\n${wrapped}\n  [${handle}]`;
  });
  return { text: lines.join('\n'), thirdParty, sources: [...sources] };
}

function describe(occurrence: Occurrence): string {
  const parts = [occurrence.summary];
  if (occurrence.location) parts.push(`at ${occurrence.location}`);
  if (occurrence.status && occurrence.status !== 'CONFIRMED') parts.push(`(${occurrence.status.toLowerCase()})`);
  if (occurrence.organizer) parts.push(`organizer ${occurrence.organizer}`);
  if (occurrence.attendees.length > 0) parts.push(`attendees ${occurrence.attendees.map((attendee) => `${attendee.address} (${attendee.partstat.toLowerCase()})`).join(', ')}`);
  if (occurrence.description) parts.push(`— ${occurrence.description.slice(0, 500)}`);
  return parts.join(' ');
}

/** "Mon 19 Oct 09:00–10:00", "Fri 25 Dec (all day)". */
export function formatWhen(occurrence: Pick<Occurrence, 'start' | 'end' | 'allDay' | 'days'>, timeZone: string): string {
  const day = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' });
  const time = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  if (occurrence.allDay) {
    const days = occurrence.days;
    if (days && days.first !== days.last) return `${days.first} to ${days.last} (all day)`;
    return `${day.format(occurrence.start)} (all day)`;
  }
  const sameDay = day.format(occurrence.start) === day.format(occurrence.end);
  return `${day.format(occurrence.start)} ${time.format(occurrence.start)}–${sameDay ? '' : `${day.format(occurrence.end)} `}${time.format(occurrence.end)}`;
}
