import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The offset from UTC, in milliseconds, of a time zone at an instant (Paris in winter: +3 600 000). */
export type ZoneOffsets = (instant: number) => number;

/**
 * A zone's offsets from the system's time zone database (`/usr/share/zoneinfo`, or `$TZDIR`), in the TZif format
 * (RFC 8536): its table of transitions, then the POSIX TZ rule in its footer for instants after the table (a "slim"
 * file has almost no table). Undefined when the file is missing or not understood: the caller then asks ICU.
 *
 * Why not Intl: the first Intl.DateTimeFormat loads ICU's locale and calendar data, about 8 MB and 25 ms, which a
 * one-shot `familiar ask` paid for the prompt's date line alone. The database is what the system itself uses.
 */
export function zoneOffsetsFromDatabase(timeZone: string, zoneDir = process.env.TZDIR || '/usr/share/zoneinfo'): ZoneOffsets | undefined {
  if (!/^[A-Za-z0-9_+-]+(\/[A-Za-z0-9_+-]+)*$/.test(timeZone)) return undefined;
  let data: Buffer;
  try {
    data = readFileSync(path.join(zoneDir, timeZone));
  } catch {
    return undefined;
  }
  return parseTzif(data);
}

interface Table {
  /** Transition instants, in seconds, ascending. */
  times: number[];
  /** The offset (seconds) in force from each transition on. */
  offsets: number[];
  /** Before the first transition. */
  initial: number;
}

/** Exported for tests. */
export function parseTzif(data: Buffer): ZoneOffsets | undefined {
  if (data.length < 44 || data.toString('latin1', 0, 4) !== 'TZif') return undefined;
  const version = data[4] ?? 0;
  const header = (at: number) => ({
    isutcnt: data.readUInt32BE(at + 20), isstdcnt: data.readUInt32BE(at + 24), leapcnt: data.readUInt32BE(at + 28),
    timecnt: data.readUInt32BE(at + 32), typecnt: data.readUInt32BE(at + 36), charcnt: data.readUInt32BE(at + 40),
  });
  const first = header(0);
  const firstLength = 44 + first.timecnt * 5 + first.typecnt * 6 + first.charcnt + first.leapcnt * 8 + first.isstdcnt + first.isutcnt;
  // Version 1 files hold 32-bit times only; later versions repeat the data with 64-bit times, then the footer.
  const wide = version >= 0x32 && data.length > firstLength + 44;
  const start = wide ? firstLength : 0;
  if (wide && data.toString('latin1', start, start + 4) !== 'TZif') return undefined;
  const counts = wide ? header(start) : first;
  const timeSize = wide ? 8 : 4;
  let at = start + 44;
  const times: number[] = [];
  for (let index = 0; index < counts.timecnt; index += 1, at += timeSize) times.push(wide ? Number(data.readBigInt64BE(at)) : data.readInt32BE(at));
  const typeOf: number[] = [];
  for (let index = 0; index < counts.timecnt; index += 1, at += 1) typeOf.push(data[at] ?? 0);
  const types: number[] = [];
  for (let index = 0; index < counts.typecnt; index += 1, at += 6) types.push(data.readInt32BE(at));
  if (types.length === 0) return undefined;
  at += counts.charcnt + counts.leapcnt * (timeSize + 4) + counts.isstdcnt + counts.isutcnt;
  const table: Table = { times, offsets: typeOf.map((type) => types[type] ?? 0), initial: types[0] ?? 0 };
  let rule: ZoneOffsets | undefined;
  if (wide && data[at] === 0x0a) {
    const end = data.indexOf(0x0a, at + 1);
    const footer = end === -1 ? '' : data.toString('latin1', at + 1, end);
    if (footer !== '') {
      rule = parsePosixRule(footer);
      if (!rule) return undefined;
    }
  }
  return (instant) => {
    const seconds = Math.floor(instant / 1000);
    const { times: list } = table;
    if (list.length === 0 || seconds < (list[0] ?? 0)) return (list.length === 0 && rule ? rule(instant) : table.initial * 1000);
    if (rule && seconds >= (list.at(-1) ?? 0)) return rule(instant);
    // The last transition at or before the instant.
    let low = 0;
    let high = list.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((list[middle] ?? 0) <= seconds) low = middle;
      else high = middle - 1;
    }
    return (table.offsets[low] ?? 0) * 1000;
  };
}

/** `[+-]hh[:mm[:ss]]` in seconds. */
function clockSeconds(text: string): number | undefined {
  const match = /^([+-]?)(\d{1,3})(?::(\d{2}))?(?::(\d{2}))?$/.exec(text);
  if (!match) return undefined;
  const value = Number(match[2]) * 3600 + Number(match[3] ?? 0) * 60 + Number(match[4] ?? 0);
  return match[1] === '-' ? -value : value;
}

const NAME = '(?:[A-Za-z]{3,}|<[A-Za-z0-9+-]+>)';
const OFFSET = '[+-]?\\d{1,2}(?::\\d{2}){0,2}';
const DATE = '(?:M\\d{1,2}\\.\\d\\.\\d|J\\d{1,3}|\\d{1,3})(?:/[+-]?\\d{1,3}(?::\\d{2}){0,2})?';
const POSIX = new RegExp(`^${NAME}(${OFFSET})(?:(${NAME})(${OFFSET})?(?:,(${DATE}),(${DATE}))?)?$`);

/**
 * A POSIX TZ rule (`CET-1CEST,M3.5.0,M10.5.0/3`): a standard offset, and optionally a summer offset with the dates
 * it starts and ends. POSIX writes offsets west of Greenwich as positive, so they are negated. Exported for tests.
 */
export function parsePosixRule(rule: string): ZoneOffsets | undefined {
  const match = POSIX.exec(rule);
  const standard = match ? clockSeconds(match[1] ?? '') : undefined;
  if (!match || standard === undefined) return undefined;
  const standardOffset = -standard;
  const [, , summerName, summerText, startRule, endRule] = match;
  if (summerName === undefined) return () => standardOffset * 1000;
  // Summer time without its dates would need POSIX's default dates; TZif footers always give them.
  if (startRule === undefined || endRule === undefined) return undefined;
  const summerOffset = summerText === undefined ? standardOffset + 3600 : -(clockSeconds(summerText) ?? 0);
  return (instant) => {
    const year = new Date(instant + standardOffset * 1000).getUTCFullYear();
    // The rule's times are local: the start in standard time, the end in summer time.
    const starts = ruleInstant(startRule, year) - standardOffset * 1000;
    const ends = ruleInstant(endRule, year) - summerOffset * 1000;
    const summer = starts < ends ? instant >= starts && instant < ends : !(instant >= ends && instant < starts);
    return (summer ? summerOffset : standardOffset) * 1000;
  };
}

/** The local wall-clock instant (as if UTC) a rule date names in `year`. */
function ruleInstant(rule: string, year: number): number {
  const [date = '', time] = rule.split('/');
  const seconds = time === undefined ? 7200 : (clockSeconds(time) ?? 7200);
  let day: number;
  if (date.startsWith('M')) {
    const [month = 1, week = 1, weekday = 0] = date.slice(1).split('.').map(Number);
    const firstOfMonth = Date.UTC(year, month - 1, 1);
    const firstWeekday = new Date(firstOfMonth).getUTCDay();
    let dayOfMonth = 1 + ((weekday - firstWeekday + 7) % 7) + (week - 1) * 7;
    const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
    while (dayOfMonth > daysInMonth) dayOfMonth -= 7;
    day = Date.UTC(year, month - 1, dayOfMonth);
  } else if (date.startsWith('J')) {
    // Julian day 1–365, February 29 never counted.
    const julian = Number(date.slice(1));
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    day = Date.UTC(year, 0, 1) + (julian - 1 + (leap && julian >= 60 ? 1 : 0)) * 86_400_000;
  } else {
    day = Date.UTC(year, 0, 1) + Number(date) * 86_400_000;
  }
  return day + seconds * 1000;
}
