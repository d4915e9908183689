import { randomUUID } from 'node:crypto';
import ICAL from 'ical.js';
import { wallClockAt } from '../../lib/zoned.js';
import { instantOf } from './expand.js';
import { registerZones, vtimezoneFor } from './zones.js';

/** What a new event or a change says; times are instants, all-day days `YYYY-MM-DD`. */
export interface EventFields {
  summary?: string;
  start?: number;
  end?: number;
  allDay?: { first: string; last: string };
  location?: string;
  description?: string;
  /** An RRULE value, e.g. `FREQ=WEEKLY;BYDAY=MO`. */
  repeat?: string;
  attendees?: readonly string[];
  alarmMinutes?: number;
}

const PRODID = '-//Familiar//Calendar//EN';

/** A new VCALENDAR with one VEVENT in the person's zone (its VTIMEZONE included so every client reads it alike). */
export function newEvent(fields: EventFields & { summary: string }, timeZone: string, organizer: string | undefined): { uid: string; data: string } {
  const calendar = new ICAL.Component(['vcalendar', [], []]);
  calendar.updatePropertyWithValue('prodid', PRODID);
  calendar.updatePropertyWithValue('version', '2.0');
  const zone = fields.allDay ? undefined : zoneFor(timeZone, calendar);
  const vevent = new ICAL.Component('vevent');
  const uid = randomUUID();
  vevent.updatePropertyWithValue('uid', uid);
  vevent.updatePropertyWithValue('dtstamp', ICAL.Time.fromJSDate(new Date(), true));
  applyFields(vevent, fields, zone);
  if (fields.attendees && fields.attendees.length > 0 && organizer !== undefined) vevent.updatePropertyWithValue('organizer', `mailto:${organizer}`);
  calendar.addSubcomponent(vevent);
  return { uid, data: calendar.toString() };
}

/** Which part of a series a change is for: the whole of it, or one occurrence (its original start). */
export type Target = { uid: string; occurrence?: number };

export type Edited = { success: true; data: string } | { success: false; error: string };

/**
 * Changes an event in its resource: the master for the whole series, or one occurrence — an override VEVENT with
 * that RECURRENCE-ID in the same resource (made from the master when there is none yet), never a new series.
 */
export function editEvent(data: string, target: Target, fields: EventFields, timeZone: string): Edited {
  const calendar = parseCalendar(data);
  const found = findComponent(calendar, target, timeZone);
  if (!found.success) return found;
  const zone = fields.allDay ? undefined : zoneFor(timeZone, calendar);
  applyFields(found.component, fields, zone);
  bumpSequence(found.component);
  return { success: true, data: calendar.toString() };
}

/** Removes one occurrence (an EXDATE on the master, and its override if any) and returns the resource's new text. */
export function removeOccurrence(data: string, uid: string, occurrence: number, timeZone: string): Edited {
  const calendar = parseCalendar(data);
  const master = calendar.getAllSubcomponents('vevent').find((vevent) => vevent.getFirstPropertyValue('uid') === uid && !vevent.hasProperty('recurrence-id'));
  if (!master) return { success: false, error: `No series with uid ${uid} here.` };
  for (const override of calendar.getAllSubcomponents('vevent')) {
    const rid = override.getFirstPropertyValue('recurrence-id');
    if (override.getFirstPropertyValue('uid') === uid && rid instanceof ICAL.Time && instantOf(rid, timeZone) === occurrence) calendar.removeSubcomponent(override);
  }
  const exdate = master.addPropertyWithValue('exdate', timeLike(master.getFirstPropertyValue('dtstart') as ICAL.Time, occurrence));
  const zone = (master.getFirstPropertyValue('dtstart') as ICAL.Time).zone;
  if (zone && zone.tzid !== 'UTC' && zone.tzid !== 'floating') exdate.setParameter('tzid', zone.tzid);
  bumpSequence(master);
  return { success: true, data: calendar.toString() };
}

/** Sets the person's PARTSTAT on the event (or one occurrence) being answered; their address must be an attendee. */
export function respondTo(data: string, target: Target, addresses: readonly string[], partstat: string, timeZone: string): Edited {
  const calendar = parseCalendar(data);
  const found = findComponent(calendar, target, timeZone);
  if (!found.success) return found;
  const mine = found.component.getAllProperties('attendee').find((attendee) => addresses.includes(String(attendee.getFirstValue()).replace(/^mailto:/i, '').toLowerCase()));
  if (!mine) return { success: false, error: `You are not an attendee of this event under ${addresses.join(', ') || 'any configured address'} (tools.calendar.accounts[].addresses); nothing to answer.` };
  mine.setParameter('partstat', partstat);
  mine.removeParameter('rsvp');
  return { success: true, data: calendar.toString() };
}

/** The VEVENT a target names; for an occurrence without an override yet, a new override made from the master. */
function findComponent(calendar: ICAL.Component, target: Target, timeZone: string): { success: true; component: ICAL.Component } | { success: false; error: string } {
  const vevents = calendar.getAllSubcomponents('vevent').filter((vevent) => vevent.getFirstPropertyValue('uid') === target.uid);
  const master = vevents.find((vevent) => !vevent.hasProperty('recurrence-id'));
  if (target.occurrence === undefined) {
    const whole = master ?? vevents[0];
    return whole ? { success: true, component: whole } : { success: false, error: `No event with uid ${target.uid} here.` };
  }
  const existing = vevents.find((vevent) => {
    const rid = vevent.getFirstPropertyValue('recurrence-id');
    return rid instanceof ICAL.Time && instantOf(rid, timeZone) === target.occurrence;
  });
  if (existing) return { success: true, component: existing };
  if (!master || !master.hasProperty('rrule') && !master.hasProperty('rdate')) {
    return { success: false, error: `Event ${target.uid} is not a series; leave occurrence out to change it.` };
  }
  const event = new ICAL.Event(master);
  const masterStart = event.startDate;
  const original = timeLike(masterStart, target.occurrence);
  if (!occursAt(event, original, timeZone)) return { success: false, error: `Event ${target.uid} has no occurrence starting ${new Date(target.occurrence).toISOString()}; use an occurrence as calendar list shows it.` };
  // A deep copy: toJSON() is the master's own jCal, and changing it would change the series.
  const override = new ICAL.Component(structuredClone(master.toJSON()) as unknown[]);
  for (const name of ['rrule', 'rdate', 'exdate', 'exrule']) override.removeAllProperties(name);
  const duration = event.duration;
  const end = original.clone();
  end.addDuration(duration);
  setTime(override, 'recurrence-id', original);
  setTime(override, 'dtstart', original);
  override.removeAllProperties('duration');
  setTime(override, 'dtend', end);
  calendar.addSubcomponent(override);
  return { success: true, component: override };
}

function occursAt(event: ICAL.Event, original: ICAL.Time, timeZone: string): boolean {
  const wanted = instantOf(original, timeZone);
  const iterator = event.iterator();
  for (let step = 0, next = iterator.next(); next && step < 20_000; step += 1, next = iterator.next()) {
    const at = instantOf(next, timeZone);
    if (at === wanted) return true;
    if (at > wanted) return false;
  }
  return false;
}

/** The instant as a time of the same kind as `like`: a date, or a time in the same zone. */
function timeLike(like: ICAL.Time, instant: number): ICAL.Time {
  if (like.isDate) {
    const utc = new Date(instant);
    return ICAL.Time.fromDateString(utc.toISOString().slice(0, 10));
  }
  const utc = ICAL.Time.fromJSDate(new Date(instant), true);
  if (!like.zone || like.zone.tzid === 'floating') return utc;
  return utc.convertToZone(like.zone);
}

function applyFields(vevent: ICAL.Component, fields: EventFields, zone: ICAL.Timezone | undefined): void {
  if (fields.summary !== undefined) vevent.updatePropertyWithValue('summary', fields.summary);
  if (fields.location !== undefined) vevent.updatePropertyWithValue('location', fields.location);
  if (fields.description !== undefined) vevent.updatePropertyWithValue('description', fields.description);
  if (fields.allDay) {
    const first = ICAL.Time.fromDateString(fields.allDay.first);
    const after = ICAL.Time.fromDateString(fields.allDay.last);
    after.day += 1;
    vevent.removeAllProperties('duration');
    setTime(vevent, 'dtstart', first);
    setTime(vevent, 'dtend', after);
  } else if (fields.start !== undefined && zone) {
    const start = zoned(fields.start, zone);
    const previousStart = vevent.getFirstPropertyValue('dtstart');
    const previousEnd = vevent.getFirstPropertyValue('dtend');
    let end: ICAL.Time;
    if (fields.end !== undefined) end = zoned(fields.end, zone);
    else if (previousStart instanceof ICAL.Time && previousEnd instanceof ICAL.Time && !previousStart.isDate) {
      // Moved without a new end: it keeps its length.
      end = start.clone();
      end.addDuration(previousEnd.subtractDate(previousStart));
    } else end = zoned(fields.start + 3_600_000, zone);
    vevent.removeAllProperties('duration');
    setTime(vevent, 'dtstart', start);
    setTime(vevent, 'dtend', end);
  } else if (fields.end !== undefined && zone) {
    setTime(vevent, 'dtend', zoned(fields.end, zone));
  }
  if (fields.repeat !== undefined) {
    vevent.removeAllProperties('rrule');
    if (fields.repeat !== '') vevent.addPropertyWithValue('rrule', ICAL.Recur.fromString(fields.repeat));
  }
  if (fields.attendees !== undefined) {
    const known = new Set(vevent.getAllProperties('attendee').map((attendee) => String(attendee.getFirstValue()).toLowerCase()));
    for (const address of fields.attendees) {
      const value = `mailto:${address}`;
      if (known.has(value.toLowerCase())) continue;
      const property = vevent.addPropertyWithValue('attendee', value);
      property.setParameter('partstat', 'NEEDS-ACTION');
      property.setParameter('rsvp', 'TRUE');
    }
  }
  if (fields.alarmMinutes !== undefined) {
    const alarm = new ICAL.Component('valarm');
    alarm.updatePropertyWithValue('action', 'DISPLAY');
    alarm.updatePropertyWithValue('description', String(vevent.getFirstPropertyValue('summary') ?? 'Reminder'));
    alarm.updatePropertyWithValue('trigger', ICAL.Duration.fromSeconds(-fields.alarmMinutes * 60));
    vevent.addSubcomponent(alarm);
  }
}

/** Sets a date or date-time property with its TZID (ical.js leaves the parameter to the caller). */
function setTime(vevent: ICAL.Component, name: string, time: ICAL.Time): void {
  vevent.removeAllProperties(name);
  const property = vevent.addPropertyWithValue(name, time);
  if (!time.isDate && time.zone && time.zone.tzid !== 'UTC' && time.zone.tzid !== 'floating') property.setParameter('tzid', time.zone.tzid);
}

function zoned(instant: number, zone: ICAL.Timezone): ICAL.Time {
  const wall = wallClockAt(instant, zone.tzid);
  return ICAL.Time.fromData({ year: wall.year, month: wall.month, day: wall.day, hour: wall.hour, minute: wall.minute, second: wall.second, isDate: false }, zone);
}

/** The person's zone for ical.js, its VTIMEZONE added to the calendar when missing. */
function zoneFor(timeZone: string, calendar: ICAL.Component): ICAL.Timezone {
  const has = calendar.getAllSubcomponents('vtimezone').some((block) => block.getFirstPropertyValue('tzid') === timeZone);
  if (!has) {
    const block = vtimezoneFor(timeZone);
    if (block) {
      calendar.addSubcomponent(block);
      if (!ICAL.TimezoneService.has(timeZone)) ICAL.TimezoneService.register(block);
    }
  }
  return ICAL.TimezoneService.has(timeZone) ? ICAL.TimezoneService.get(timeZone) : ICAL.Timezone.utcTimezone;
}

function parseCalendar(data: string): ICAL.Component {
  const calendar = new ICAL.Component(ICAL.parse(data) as unknown[]);
  registerZones(calendar, data);
  return calendar;
}

function bumpSequence(vevent: ICAL.Component): void {
  const sequence = Number(vevent.getFirstPropertyValue('sequence') ?? 0);
  vevent.updatePropertyWithValue('sequence', Number.isFinite(sequence) ? sequence + 1 : 1);
  vevent.updatePropertyWithValue('dtstamp', ICAL.Time.fromJSDate(new Date(), true));
}
