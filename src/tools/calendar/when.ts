import type { Result } from '../../lib/result.js';
import { instantOfWallClock, wallClockAt } from '../../lib/zoned.js';
import { parseRunAt } from '../../time/timing.js';
import { parseWhenText, WHEN_FORMS } from '../../time/when.js';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A time the model passes: an ISO time (read on the person's clock without an offset) or words, through the same
 * parser as `schedule` and `reminder_create` ("tomorrow at 9am", "next Monday 14:00", "friday 17:30").
 */
export function parseEventTime(text: string, now: number, timeZone: string): Result<number> {
  const value = text.trim();
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) return parseRunAt(value, timeZone);
  const parsed = parseWhenText(value, now, timeZone);
  if (!parsed.success) return { success: false, error: `${parsed.error} Give an ISO time ("2026-12-24T18:00") or ${WHEN_FORMS.split(', and recurrences')[0] ?? ''}.` };
  if (parsed.value.schedule.type !== 'once') return { success: false, error: `"${value}" is a repeat; give the first time, and the repeat as repeat (an RRULE such as FREQ=WEEKLY;BYDAY=MO).` };
  return { success: true, value: parsed.value.schedule.at };
}

/** A day: `YYYY-MM-DD`, or words ("today", "next friday"), as the local date `YYYY-MM-DD`. */
export function parseDay(text: string, now: number, timeZone: string): Result<string> {
  const value = text.trim();
  if (DATE_ONLY.test(value)) return { success: true, value };
  if (/^today$/i.test(value)) return { success: true, value: localDate(now, timeZone) };
  const at = parseEventTime(value, now, timeZone);
  return at.success ? { success: true, value: localDate(at.value, timeZone) } : at;
}

/** The local date of an instant. */
export function localDate(instant: number, timeZone: string): string {
  const wall = wallClockAt(instant, timeZone);
  return `${wall.year}-${String(wall.month).padStart(2, '0')}-${String(wall.day).padStart(2, '0')}`;
}

/** Local midnight starting a `YYYY-MM-DD` day, and `days` later. */
export function dayRange(first: string, days: number, timeZone: string): { from: number; to: number } {
  const [year = 1970, month = 1, day = 1] = first.split('-').map(Number);
  const from = instantOfWallClock({ year, month, day, hour: 0, minute: 0, second: 0 }, timeZone);
  const after = new Date(Date.UTC(year, month - 1, day + days));
  const to = instantOfWallClock({ year: after.getUTCFullYear(), month: after.getUTCMonth() + 1, day: after.getUTCDate(), hour: 0, minute: 0, second: 0 }, timeZone);
  return { from, to };
}
