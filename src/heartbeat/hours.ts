import { wallClockAt } from '../lib/zoned.js';

/** A daily window of the wall clock, in minutes after midnight; `end < start` wraps past midnight. */
export interface HoursWindow {
  start: number;
  end: number;
}

/** "08:00-22:00" (checked by the config schema) as minutes. */
export function parseHours(text: string): HoursWindow {
  const [from = '', to = ''] = text.split('-');
  return { start: minutesOf(from), end: minutesOf(to) };
}

/** Whether `instant` falls in the window, on the wall clock of `timeZone`. An empty window ("08:00-08:00") holds nothing. */
export function withinHours(window: HoursWindow, instant: number, timeZone: string): boolean {
  const wall = wallClockAt(instant, timeZone);
  const minute = wall.hour * 60 + wall.minute;
  if (window.start === window.end) return false;
  if (window.start < window.end) return minute >= window.start && minute < window.end;
  return minute >= window.start || minute < window.end;
}

/** The local day of `instant` in `timeZone`, `YYYY-MM-DD`. */
export function localDay(instant: number, timeZone: string): string {
  const wall = wallClockAt(instant, timeZone);
  return `${wall.year}-${String(wall.month).padStart(2, '0')}-${String(wall.day).padStart(2, '0')}`;
}

function minutesOf(text: string): number {
  const [hours = '0', minutes = '0'] = text.split(':');
  return Number(hours) * 60 + Number(minutes);
}
