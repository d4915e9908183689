import { instantOfWallClock } from '../../lib/zoned.js';
import { fail, ok, type ToolResult } from '../types.js';
import type { Calendars } from './calendars.js';
import { formatOccurrences } from './format.js';
import type { CalendarParams } from './params.js';
import type { Occurrence } from './types.js';
import { dayRange, localDate, parseDay } from './when.js';

export interface ReadContext {
  calendars: Calendars;
  timeZone: string;
  now: number;
}

/** The days a read covers: `from` (default today) for `days` (default 7). */
export function rangeOf(params: Pick<CalendarParams, 'from' | 'days'>, context: ReadContext): { success: true; range: { from: number; to: number }; first: string } | { success: false; error: string } {
  const first = params.from !== undefined ? parseDay(params.from, context.now, context.timeZone) : { success: true as const, value: localDate(context.now, context.timeZone) };
  if (!first.success) return { success: false, error: `from: ${first.error}` };
  return { success: true, range: dayRange(first.value, params.days ?? 7, context.timeZone), first: first.value };
}

/** `list` and `search`: the occurrences in the range (search: whose text contains every word of `text`). */
export async function listEvents(params: CalendarParams, context: ReadContext): Promise<ToolResult> {
  const range = rangeOf(params, context);
  if (!range.success) return fail(range.error);
  const { occurrences, problems } = await context.calendars.occurrences(range.range);
  const words = (params.text ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const chosen = words.length === 0 ? occurrences : occurrences.filter((occurrence) => words.every((word) => searchable(occurrence).includes(word)));
  const span = `${range.first} and the ${(params.days ?? 7) - 1} days after it (${context.timeZone})`;
  const problemText = problems.length > 0 ? `\nNot read: ${problems.join('; ')}` : '';
  if (chosen.length === 0) return ok(`No events${words.length > 0 ? ` matching "${params.text ?? ''}"` : ''} on ${span}.${problemText}`);
  const formatted = formatOccurrences(chosen.slice(0, 200), context.timeZone);
  const output = `${chosen.length} event(s) on ${span}:\n${formatted.text}${chosen.length > 200 ? '\n(only the first 200 shown)' : ''}${problemText}`;
  return ok(output, {
    ...(formatted.sources.length > 0 ? { externalSource: formatted.sources.join(', ') } : {}),
    ...(formatted.thirdParty.length > 0 ? { thirdParty: formatted.thirdParty } : {}),
  });
}

function searchable(occurrence: Occurrence): string {
  return [occurrence.summary, occurrence.location ?? '', occurrence.description ?? '', occurrence.organizer ?? '', ...occurrence.attendees.map((attendee) => attendee.address)].join(' ').toLowerCase();
}

/**
 * `free_busy`, computed here from the expanded occurrences (no server's free-busy report is needed): the busy
 * spans merged, and the free gaps between `day_start` and `day_end` hours of each day. An all-day event is busy all
 * day, as RFC 5545 has it (TRANSP defaults to OPAQUE); clients mark birthdays and holidays TRANSPARENT, and those,
 * cancelled events and invitations the person declined do not make them busy. Only times are shown, never the text.
 */
export async function freeBusy(params: CalendarParams, context: ReadContext): Promise<ToolResult> {
  const range = rangeOf(params, context);
  if (!range.success) return fail(range.error);
  const { occurrences, problems } = await context.calendars.occurrences(range.range);
  const busy = mergeSpans(occurrences.filter((occurrence) => occurrence.busy).map((occurrence) => [occurrence.start, occurrence.end] as [number, number]));
  const day = new Intl.DateTimeFormat('en-GB', { timeZone: context.timeZone, weekday: 'short', day: 'numeric', month: 'short' });
  const clock = new Intl.DateTimeFormat('en-GB', { timeZone: context.timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const at = (instant: number) => `${day.format(instant)} ${clock.format(instant)}`;
  const [openHour, closeHour] = [params.day_start ?? 9, params.day_end ?? 18];
  const lines: string[] = [];
  for (let index = 0; index < (params.days ?? 7); index += 1) {
    const dayStart = dayRange(range.first, index, context.timeZone).to;
    // Hours on the wall clock, so a day with a clock change still opens at day_start.
    const [year = 1970, month = 1, date = 1] = localDate(dayStart, context.timeZone).split('-').map(Number);
    const hour = (value: number) => (value === 24 ? dayRange(range.first, index + 1, context.timeZone).to : instantOfWallClock({ year, month, day: date, hour: value, minute: 0, second: 0 }, context.timeZone));
    const [open, close] = [hour(openHour), hour(closeHour)];
    let cursor = open;
    const free: string[] = [];
    for (const [start, end] of busy) {
      if (end <= cursor || start >= close) continue;
      if (start > cursor) free.push(`${clock.format(cursor)}–${clock.format(start)}`);
      cursor = Math.max(cursor, end);
    }
    if (cursor < close) free.push(`${clock.format(cursor)}–${clock.format(close)}`);
    lines.push(free.length > 0 ? `free ${day.format(open)} ${free.join(', ')}` : `${day.format(open)}: no free time between ${openHour}:00 and ${closeHour}:00`);
  }
  const busyText = busy.filter(([start, end]) => end > range.range.from && start < range.range.to)
    .map(([start, end]) => `busy ${at(start)}–${day.format(start) === day.format(end) ? clock.format(end) : at(end)}`);
  return ok(`${busyText.length > 0 ? busyText.join('\n') : 'No busy time.'}\n${lines.join('\n')}${problems.length > 0 ? `\nNot read: ${problems.join('; ')}` : ''}`);
}

function mergeSpans(spans: Array<[number, number]>): Array<[number, number]> {
  const sorted = [...spans].sort((left, right) => left[0] - right[0]);
  const merged: Array<[number, number]> = [];
  for (const [start, end] of sorted) {
    const last = merged.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}
