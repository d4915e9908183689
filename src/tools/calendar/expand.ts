import ICAL from 'ical.js';
import { instantOfWallClock } from '../../lib/zoned.js';
import type { Attendee, CalendarObject, Occurrence } from './types.js';
import { registerZones } from './zones.js';

/** Where the objects came from, and whose words they are. */
export interface ExpandSource {
  source: string;
  calendar: string;
  /** The person's own addresses: an event organized by another is outside content. */
  addresses: readonly string[];
  /** Every event is outside content (a subscription). */
  outside: boolean;
}

// A series expanded past this many occurrences is cut: a minutely rule from years ago must not hang a turn.
const MAX_STEPS = 20_000;

/**
 * Every occurrence of the objects' events that overlaps [from, to), expanded here with ical.js (VTIMEZONE, RRULE,
 * RDATE, EXDATE, RECURRENCE-ID overrides), because Radicale and Xandikos do not expand and Nextcloud returns only the
 * master unless asked. Floating times and dates are read on the person's clock (`timeZone`). Never throws for a
 * broken object: it is skipped and named in `skipped`.
 */
export function expandObjects(objects: readonly CalendarObject[], range: { from: number; to: number }, timeZone: string, source: ExpandSource): { occurrences: Occurrence[]; skipped: string[] } {
  const occurrences: Occurrence[] = [];
  const skipped: string[] = [];
  for (const object of objects) {
    try {
      occurrences.push(...expandObject(object, range, timeZone, source));
    } catch {
      skipped.push(object.href);
    }
  }
  occurrences.sort((left, right) => left.start - right.start || left.summary.localeCompare(right.summary));
  return { occurrences, skipped };
}

function expandObject(object: CalendarObject, range: { from: number; to: number }, timeZone: string, source: ExpandSource): Occurrence[] {
  const calendar = new ICAL.Component(ICAL.parse(object.data) as unknown[]);
  registerZones(calendar, object.data);
  const byUid = new Map<string, { master?: ICAL.Component; overrides: ICAL.Component[] }>();
  for (const vevent of calendar.getAllSubcomponents('vevent')) {
    const uid = String(vevent.getFirstPropertyValue('uid') ?? '');
    const group = byUid.get(uid) ?? { overrides: [] };
    if (vevent.hasProperty('recurrence-id')) group.overrides.push(vevent);
    else group.master = vevent;
    byUid.set(uid, group);
  }
  const out: Occurrence[] = [];
  for (const group of byUid.values()) {
    if (!group.master) {
      // An invitation to one occurrence only: each override stands alone.
      for (const override of group.overrides) {
        const event = new ICAL.Event(override);
        pushIfOverlaps(out, occurrenceOf(event, event.startDate, event.endDate, object, timeZone, source, false), range);
      }
      continue;
    }
    const event = new ICAL.Event(group.master);
    for (const override of group.overrides) event.relateException(override);
    if (!event.isRecurring()) {
      pushIfOverlaps(out, occurrenceOf(event, event.startDate, event.endDate, object, timeZone, source, false), range);
      continue;
    }
    const iterator = event.iterator();
    // An override may move an occurrence from after the range into it: look a little past the end.
    const stopAt = range.to + 62 * 86_400_000;
    for (let step = 0, next = iterator.next(); next && step < MAX_STEPS; step += 1, next = iterator.next()) {
      if (instantOf(next, timeZone) >= stopAt) break;
      const details = event.getOccurrenceDetails(next);
      const occurrence = occurrenceOf(details.item, details.startDate, details.endDate, object, timeZone, source, true);
      occurrence.recurrenceId = new Date(instantOf(details.recurrenceId, timeZone)).toISOString();
      pushIfOverlaps(out, occurrence, range);
    }
  }
  return out;
}

function pushIfOverlaps(out: Occurrence[], occurrence: Occurrence, range: { from: number; to: number }): void {
  if (occurrence.start < range.to && occurrence.end > range.from) out.push(occurrence);
  // A zero-length event at the range's start still counts.
  else if (occurrence.start === occurrence.end && occurrence.start >= range.from && occurrence.start < range.to) out.push(occurrence);
}

/** A time as an instant: zoned and UTC times exactly; floating times and dates on the person's clock. */
export function instantOf(time: ICAL.Time, timeZone: string): number {
  const zone = time.zone;
  if (!time.isDate && zone && zone.tzid !== 'floating') return time.toUnixTime() * 1000;
  return instantOfWallClock({ year: time.year, month: time.month, day: time.day, hour: time.isDate ? 0 : time.hour, minute: time.isDate ? 0 : time.minute, second: time.isDate ? 0 : time.second }, timeZone);
}

function occurrenceOf(event: ICAL.Event, start: ICAL.Time, endTime: ICAL.Time | null, object: CalendarObject, timeZone: string, source: ExpandSource, recurring: boolean): Occurrence {
  const allDay = start.isDate;
  let end = endTime ?? start.clone();
  if (!endTime || end.compare(start) <= 0) {
    end = start.clone();
    // RFC 5545: an all-day event without DTEND lasts that one day.
    if (allDay) end.day += 1;
  }
  const startMs = instantOf(start, timeZone);
  const endMs = instantOf(end, timeZone);
  const component = event.component;
  const organizer = addressOf(component.getFirstPropertyValue('organizer'));
  const attendees = component.getAllProperties('attendee').map(attendeeOf).filter((attendee): attendee is Attendee => attendee !== undefined);
  const mine = source.addresses;
  const outside = source.outside || (organizer !== undefined && !mine.includes(organizer.toLowerCase()));
  const text = (name: string) => {
    const value = component.getFirstPropertyValue(name);
    return typeof value === 'string' && value.trim() !== '' ? value : undefined;
  };
  const declined = attendees.some((attendee) => attendee.partstat === 'DECLINED' && mine.includes(attendee.address.toLowerCase()));
  const busy = text('transp')?.toUpperCase() !== 'TRANSPARENT' && text('status')?.toUpperCase() !== 'CANCELLED' && !declined;
  const occurrence: Occurrence = {
    source: source.source, calendar: source.calendar, href: object.href, uid: event.uid, start: startMs, end: endMs, allDay,
    summary: text('summary') ?? '(no title)', attendees, recurring, busy, outside, alarms: alarmsOf(component),
  };
  if (object.etag !== undefined) occurrence.etag = object.etag;
  if (allDay) {
    const last = end.clone();
    last.day -= 1;
    occurrence.days = { first: start.toString().slice(0, 10), last: last.toString().slice(0, 10) };
  }
  for (const [key, name] of [['location', 'location'], ['description', 'description'], ['status', 'status']] as const) {
    const value = text(name);
    if (value !== undefined) occurrence[key] = value;
  }
  if (organizer !== undefined) occurrence.organizer = organizer;
  return occurrence;
}

/** `mailto:someone@example.org` → `someone@example.org`. */
export function addressOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return value.replace(/^mailto:/i, '').trim() || undefined;
}

function attendeeOf(property: ICAL.Property): Attendee | undefined {
  const address = addressOf(property.getFirstValue());
  if (address === undefined) return undefined;
  const name = property.getParameter('cn');
  const partstat = property.getParameter('partstat');
  return { address, partstat: typeof partstat === 'string' ? partstat.toUpperCase() : 'NEEDS-ACTION', ...(typeof name === 'string' ? { name } : {}) };
}

function alarmsOf(component: ICAL.Component): Occurrence['alarms'] {
  const alarms: Occurrence['alarms'] = [];
  component.getAllSubcomponents('valarm').forEach((alarm, index) => {
    const trigger = alarm.getFirstProperty('trigger');
    const value = trigger?.getFirstValue();
    // Only triggers relative to the start; an absolute or end-related trigger is rare and left to the server's clients.
    if (!(value instanceof ICAL.Duration) || trigger?.getParameter('related') === 'END') return;
    const description = alarm.getFirstPropertyValue('description');
    alarms.push({ minutesBefore: -value.toSeconds() / 60, index, ...(typeof description === 'string' && description !== '' ? { text: description } : {}) });
  });
  return alarms;
}
