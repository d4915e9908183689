import { instantOfWallClock, wallClockAt, zoneOffsetMs } from '../lib/zoned.js';

/** Calendar days as `YYYY-MM-DD` (what Obsidian Tasks and front matter use), read in the configured zone. */

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^([01]?\d|2[0-3]):([0-5]\d)$/;

/** Today's date on the zone's wall clock. */
export function dayOf(instant: number, timeZone: string): string {
  const wall = wallClockAt(instant, timeZone);
  return `${wall.year}-${pad(wall.month)}-${pad(wall.day)}`;
}

/** "HH:mm" on the zone's wall clock. */
export function timeOf(instant: number, timeZone: string): string {
  const wall = wallClockAt(instant, timeZone);
  return `${pad(wall.hour)}:${pad(wall.minute)}`;
}

/** "2026-11-22T10:15:00+01:00": a timestamp a person reads in their own zone (front matter created/updated). */
export function localTimestamp(instant: number, timeZone: string): string {
  const wall = wallClockAt(instant, timeZone);
  const offset = Math.round(zoneOffsetMs(instant, timeZone) / 60_000);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${wall.year}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

export function isDay(text: string): boolean {
  const match = DAY.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export function isTime(text: string): boolean {
  return TIME.test(text);
}

/** Midnight UTC of a day: date arithmetic on calendar days, free of zones and DST. */
export function dayToUtc(day: string): Date {
  const match = DAY.exec(day);
  if (!match) throw new Error(`not a date: ${day}`);
  return new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
}

export function utcToDay(date: Date): string {
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

export function addDays(day: string, days: number): string {
  const date = dayToUtc(day);
  date.setUTCDate(date.getUTCDate() + days);
  return utcToDay(date);
}

export function daysBetween(from: string, to: string): number {
  return Math.round((dayToUtc(to).getTime() - dayToUtc(from).getTime()) / 86_400_000);
}

/** The instant the zone's clocks show `day` at `time` ("09:00"). */
export function instantOf(day: string, time: string, timeZone: string): number {
  const date = dayToUtc(day);
  const [hour, minute] = time.split(':').map(Number);
  return instantOfWallClock(
    { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), hour: hour ?? 0, minute: minute ?? 0, second: 0 },
    timeZone,
  );
}

/** Monday-based ISO weekday, 1..7. */
export function weekday(day: string): number {
  const value = dayToUtc(day).getUTCDay();
  return value === 0 ? 7 : value;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
