import { zoneOffsetMs } from './zoned.js';
import { zoneOffsetsFromDatabase, type ZoneOffsets } from './zone-rules.js';

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const two = (value: number): string => String(value).padStart(2, '0');

/**
 * Date formatting in the configured zone, in English and in fixed shapes (the prompt's date line, lists of runs).
 * The zone's offsets come from the system's time zone database (`zone-rules.ts`), not from Intl: the first
 * Intl.DateTimeFormat loads ICU's locale data (about 8 MB and 25 ms), which the prompt's date line of a one-shot
 * `familiar ask` paid for alone. Where the database is missing (a container without tzdata), ICU answers.
 */
export class ZonedClock {
  readonly timeZone: string;
  private offsets: ZoneOffsets | undefined;
  /** The last description and its minute: the text changes once a minute, turns come far more often. */
  private described: { minute: number; text: string } | undefined;

  constructor(timeZone: string) {
    this.timeZone = timeZone;
  }

  /** Milliseconds to add to UTC for the zone's wall clock at `date`. */
  private offsetMs(date: Date): number {
    this.offsets ??= zoneOffsetsFromDatabase(this.timeZone) ?? ((instant) => zoneOffsetMs(instant, this.timeZone));
    return this.offsets(date.getTime());
  }

  /** The zone's wall clock at `date`, read with the UTC getters. */
  private wall(date: Date): Date {
    return new Date(Math.floor(date.getTime() / 60_000) * 60_000 + this.offsetMs(date));
  }

  /** "Sunday, 22 November 2026 at 05:10 (Europe/Paris, UTC+01:00)". */
  describe(date: Date): string {
    const minute = Math.floor(date.getTime() / 60_000);
    if (this.described?.minute === minute) return this.described.text;
    const wall = this.wall(date);
    const day = `${WEEKDAYS[wall.getUTCDay()] ?? ''}, ${wall.getUTCDate()} ${MONTHS[wall.getUTCMonth()] ?? ''} ${wall.getUTCFullYear()}`;
    const text = `${day} at ${two(wall.getUTCHours())}:${two(wall.getUTCMinutes())} (${this.timeZone}, ${this.offsetOf(date)})`;
    this.described = { minute, text };
    return text;
  }

  /** "2026-11-22 05:10" in the zone. */
  format(date: Date): string {
    const wall = this.wall(date);
    return `${wall.getUTCFullYear()}-${two(wall.getUTCMonth() + 1)}-${two(wall.getUTCDate())} ${two(wall.getUTCHours())}:${two(wall.getUTCMinutes())}`;
  }

  /** "UTC+01:00", "UTC-03:30", "UTC+00:00". */
  offsetOf(date: Date): string {
    const minutes = Math.round(this.offsetMs(date) / 60_000);
    const sign = minutes < 0 ? '-' : '+';
    return `UTC${sign}${two(Math.floor(Math.abs(minutes) / 60))}:${two(Math.abs(minutes) % 60)}`;
  }
}
