/**
 * Wall-clock time in an IANA zone <-> instants, with DST gaps and overlaps resolved the way cron does.
 * Formatters are built once per zone (building an Intl.DateTimeFormat per call is slow).
 */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The wall clock in `timeZone` at `instant` (milliseconds are dropped). */
export function wallClockAt(instant: number, timeZone: string): WallClock {
  const parts = formatterFor(timeZone).formatToParts(new Date(instant));
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((part) => part.type === type)?.value ?? 0);
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour') % 24, minute: get('minute'), second: get('second') };
}

/** Offset of `timeZone` from UTC at `instant`, in milliseconds (Paris in winter: +3 600 000). */
export function zoneOffsetMs(instant: number, timeZone: string): number {
  const wall = wallClockAt(instant, timeZone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant at which the zone's clocks show `wall`. A time skipped by a DST jump (02:30 on the
 * spring-forward day) moves forward by the gap (03:30), as cron does; a time that happens twice
 * (02:30 on the fall-back day) is the first of the two.
 */
export function instantOfWallClock(wall: WallClock, timeZone: string): number {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  // The true offset is one of the offsets in force within a day of the naive guess.
  const offsets = new Set([zoneOffsetMs(asUtc - 86_400_000, timeZone), zoneOffsetMs(asUtc, timeZone), zoneOffsetMs(asUtc + 86_400_000, timeZone)]);
  const exact = [...offsets].map((offset) => asUtc - offset).filter((instant) => asUtc - zoneOffsetMs(instant, timeZone) === instant);
  if (exact.length > 0) return Math.min(...exact);
  // In a gap: read the wall clock with the offset from before the jump, which lands after it.
  const before = zoneOffsetMs(asUtc - 86_400_000, timeZone);
  return asUtc - before;
}

/** The instant's wall clock as if it were UTC: lets a UTC-only parser work in the zone's local time. */
export function wallClockAsUtc(instant: number, timeZone: string): Date {
  return new Date(Math.floor(instant / 1000) * 1000 + zoneOffsetMs(instant, timeZone));
}
