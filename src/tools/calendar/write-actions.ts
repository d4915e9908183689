import { fail, ok, type ToolResult } from '../types.js';
import type { Calendars } from './calendars.js';
import type { CalDavClient } from './client.js';
import { expandObjects } from './expand.js';
import { formatOccurrences } from './format.js';
import { editEvent, newEvent, removeOccurrence, respondTo, type EventFields, type Target } from './ics.js';
import type { CalendarParams } from './params.js';
import type { CalendarObject } from './types.js';
import { parseDay, parseEventTime } from './when.js';

export interface WriteContext {
  calendars: Calendars;
  timeZone: string;
  now: number;
}

/** `create`: a new event in the account's default calendar. */
export async function createEvent(params: CalendarParams, context: WriteContext): Promise<ToolResult> {
  const client = context.calendars.client(params.account);
  if (!client) return fail(noAccount(params.account, context));
  const fields = fieldsOf(params, context);
  if (!fields.success) return fail(fields.error);
  if (fields.value.start === undefined && !fields.value.allDay) return fail('create needs start (a time, or a day with all_day: true).');
  const organizer = client.account.addresses[0];
  if (fields.value.attendees && fields.value.attendees.length > 0 && organizer === undefined) {
    return fail(`Inviting needs the person's own address: set tools.calendar.accounts[].addresses for ${client.account.name}. Nothing was created.`);
  }
  const calendar = await client.defaultCalendar();
  const made = newEvent({ ...fields.value, summary: params.summary ?? '(no title)' }, context.timeZone, organizer);
  await client.create(calendar, made.uid, made.data);
  return ok(`Created "${params.summary ?? '(no title)'}" in ${client.account.name}/${calendar.name} [uid=${made.uid}].`);
}

/** `update`: the whole event, or one occurrence of a series (an override), with If-Match. */
export async function updateEvent(params: CalendarParams, context: WriteContext): Promise<ToolResult> {
  const fields = fieldsOf(params, context);
  if (!fields.success) return fail(fields.error);
  return change(params, context, (object, target) => editEvent(object.data, target, fields.value, context.timeZone), 'Updated');
}

/** `delete`: the whole event (DELETE with If-Match), or one occurrence (an EXDATE). */
export async function deleteEvent(params: CalendarParams, context: WriteContext): Promise<ToolResult> {
  const found = await locate(params, context);
  if (!found.success) return fail(found.error);
  const { client, object, target } = found;
  if (target.occurrence !== undefined) {
    return change(params, context, (current) => removeOccurrence(current.data, target.uid, target.occurrence ?? 0, context.timeZone), 'Deleted one occurrence of');
  }
  const etag = params.version ?? object.etag;
  if (etag === undefined) return fail('The server gave no version (ETag) for this event; it cannot be deleted safely.');
  const outcome = await client.remove(object.href, etag);
  if (!outcome.written) return stale(client, object.href, context, target);
  return ok(`Deleted event ${target.uid}.`);
}

/** `respond`: the person's answer to an invitation, as their PARTSTAT on the event being answered. */
export async function respondEvent(params: CalendarParams, context: WriteContext): Promise<ToolResult> {
  const found = await locate(params, context);
  if (!found.success) return fail(found.error);
  const partstat = (params.response ?? 'accepted').toUpperCase();
  return change(params, context, (object, target) => respondTo(object.data, target, found.client.account.addresses, partstat, context.timeZone), `Answered ${params.response ?? 'accepted'} to`);
}

type Edit = (object: CalendarObject, target: Target) => { success: true; data: string } | { success: false; error: string };

/** Reads the resource, edits it, and writes it back only over the version the model saw (`version`) or just read. */
async function change(params: CalendarParams, context: WriteContext, edit: Edit, done: string): Promise<ToolResult> {
  const found = await locate(params, context);
  if (!found.success) return fail(found.error);
  const { client, object, target } = found;
  const edited = edit(object, target);
  if (!edited.success) return fail(`${edited.error} Nothing was changed.`);
  const etag = params.version ?? object.etag;
  if (etag === undefined) return fail('The server gave no version (ETag) for this event; it cannot be changed safely.');
  const outcome = await client.write(object.href, edited.data, etag);
  if (!outcome.written) return stale(client, object.href, context, target);
  return ok(`${done} event ${target.uid}${target.occurrence !== undefined ? ` (the occurrence of ${new Date(target.occurrence).toISOString()})` : ''}.`);
}

/**
 * A 412: someone changed the event since it was read. Nothing is retried: the person is shown the current version
 * and a retry needs their yes (the model calls again with the new version).
 */
async function stale(client: CalDavClient, href: string, context: WriteContext, target: Target): Promise<ToolResult> {
  const current = await client.read(href);
  if (!current) return fail(`Event ${target.uid} was deleted on the server meanwhile. Nothing was changed.`);
  const around = target.occurrence ?? context.now;
  const { occurrences } = expandObjects([current], { from: around - 366 * 86_400_000, to: around + 366 * 86_400_000 }, context.timeZone, { source: client.account.name, calendar: '', addresses: client.account.addresses, outside: false });
  const shown = formatOccurrences(occurrences.filter((occurrence) => occurrence.uid === target.uid).slice(0, 5), context.timeZone);
  return {
    success: false,
    output: `Nothing was changed: the event was changed on the server since it was read (HTTP 412, the version no longer matches). Its current version is ${current.etag ?? '(none)'}:\n${shown.text}\nShow the person this current version and ask whether to apply the change over it; only if they say yes, call again with version=${current.etag ?? ''}.`,
    ...(shown.thirdParty.length > 0 ? { thirdParty: shown.thirdParty } : {}),
    ...(shown.sources.length > 0 ? { externalSource: shown.sources.join(', ') } : {}),
  };
}

async function locate(params: CalendarParams, context: WriteContext): Promise<{ success: true; client: CalDavClient; object: CalendarObject; target: Target } | { success: false; error: string }> {
  if (params.uid === undefined) return { success: false, error: `${params.action} needs uid (from calendar list).` };
  let occurrence: number | undefined;
  if (params.occurrence !== undefined) {
    occurrence = Date.parse(params.occurrence);
    if (Number.isNaN(occurrence)) return { success: false, error: `occurrence "${params.occurrence}" is not a time; pass it as calendar list shows it.` };
  }
  const clients = params.account !== undefined ? [context.calendars.client(params.account)].filter((client) => client !== undefined) : context.calendars.clients;
  if (clients.length === 0) return { success: false, error: noAccount(params.account, context) };
  for (const client of clients) {
    const object = await client.find(params.uid);
    if (object) return { success: true, client, object, target: { uid: params.uid, ...(occurrence !== undefined ? { occurrence } : {}) } };
  }
  const feed = params.account === undefined ? await context.calendars.feedHolding(params.uid) : undefined;
  if (feed !== undefined) return { success: false, error: readOnly(`Event ${params.uid} is in the subscription "${feed}"`) };
  return { success: false, error: `No event with uid ${params.uid} in ${clients.map((client) => client.account.name).join(', ')} (subscriptions are read-only).` };
}

function fieldsOf(params: CalendarParams, context: WriteContext): { success: true; value: EventFields } | { success: false; error: string } {
  const fields: EventFields = {};
  if (params.summary !== undefined) fields.summary = params.summary;
  if (params.location !== undefined) fields.location = params.location;
  if (params.description !== undefined) fields.description = params.description;
  if (params.attendees !== undefined) fields.attendees = params.attendees.map((address) => address.trim().replace(/^mailto:/i, ''));
  if (params.alarm_minutes !== undefined) fields.alarmMinutes = params.alarm_minutes;
  if (params.repeat !== undefined) {
    if (params.repeat !== '' && !/^FREQ=(DAILY|WEEKLY|MONTHLY|YEARLY)(;[A-Z]+=[-+\w,]+)*$/i.test(params.repeat.trim())) {
      return { success: false, error: `repeat "${params.repeat}" is not an RRULE; write e.g. FREQ=WEEKLY;BYDAY=MO, FREQ=MONTHLY;BYDAY=-1FR or FREQ=DAILY;COUNT=5 ("" removes the repeat).` };
    }
    fields.repeat = params.repeat.trim().toUpperCase();
  }
  if (params.all_day === true) {
    if (params.start === undefined) return { success: false, error: 'all_day needs start (the first day).' };
    const first = parseDay(params.start, context.now, context.timeZone);
    if (!first.success) return { success: false, error: `start: ${first.error}` };
    const last = params.end !== undefined ? parseDay(params.end, context.now, context.timeZone) : first;
    if (!last.success) return { success: false, error: `end: ${last.error}` };
    if (last.value < first.value) return { success: false, error: 'end (the last day) is before start.' };
    fields.allDay = { first: first.value, last: last.value };
    return { success: true, value: fields };
  }
  if (params.start !== undefined) {
    const start = parseEventTime(params.start, context.now, context.timeZone);
    if (!start.success) return { success: false, error: `start: ${start.error}` };
    fields.start = start.value;
  }
  if (params.end !== undefined) {
    const end = parseEventTime(params.end, context.now, context.timeZone);
    if (!end.success) return { success: false, error: `end: ${end.error}` };
    if (fields.start !== undefined && end.value <= fields.start) return { success: false, error: 'end is not after start.' };
    fields.end = end.value;
  }
  return { success: true, value: fields };
}

/** A write aimed at a feed: why it cannot be done, and what can. */
function readOnly(what: string): string {
  return `${what}, a read-only ICS feed: Familiar cannot create, change, delete or answer its events. Nothing was changed. Tell the person; if they want their own copy to change, create it as a new event in one of their CalDAV accounts.`;
}

function noAccount(name: string | undefined, context: WriteContext): string {
  if (name !== undefined && context.calendars.isSubscription(name)) return readOnly(`"${name}" is a subscription`);
  const names = context.calendars.clients.map((client) => client.account.name);
  if (names.length === 0) return 'No CalDAV account is configured (tools.calendar.accounts); subscriptions are read-only.';
  return `No account "${name ?? ''}"; accounts: ${names.join(', ')}.`;
}
