import { createRequire } from 'node:module';
import type * as Chrono from 'chrono-node';

// chrono-node is the largest module the daemon would load at start; it is needed only to parse a `when`.
const requireCjs = createRequire(import.meta.url);
let chronoModule: typeof Chrono | undefined;
function chrono(): typeof Chrono {
  chronoModule ??= requireCjs('chrono-node') as typeof Chrono;
  return chronoModule;
}
import { instantOfWallClock, wallClockAsUtc } from '../lib/zoned.js';

/** A natural-language time: a one-shot instant, or a simple recurrence turned into cron. */
export type ParsedWhen =
  | { type: 'once'; at: number; text: string }
  | { type: 'cron'; cron: string; text: string };

export const WHEN_FORMS =
  'one-shots like "in 20 minutes", "in 2 hours", "tomorrow at 9am", "next Monday morning", "friday 17:30", "2026-12-24 18:00", ' +
  'and recurrences like "every day at 7:30", "every weekday at 8", "every weekend at 10", "every Monday at 9", ' +
  '"every Monday and Thursday at 18:00", "every hour", "every 15 minutes"';

const DAY_NUMBERS: ReadonlyMap<string, number> = new Map([
  ['sunday', 0], ['sun', 0], ['monday', 1], ['mon', 1], ['tuesday', 2], ['tue', 2], ['tues', 2], ['wednesday', 3], ['wed', 3],
  ['thursday', 4], ['thu', 4], ['thur', 4], ['thurs', 4], ['friday', 5], ['fri', 5], ['saturday', 6], ['sat', 6],
]);
const DAY = '(?:sun|mon|tues?|wed|thu(?:rs?)?|fri|sat)(?:day|nesday|urday|sday)?s?';
const TIME = '(?:noon|midnight|\\d{1,2}(?::\\d{2})?\\s*(?:am|pm|h)?)';
// "every <days> [at|@ <time>]" with days = day | weekday | weekend | a list of week days.
const EVERY_DAYS = new RegExp(`^every\\s+(day|weekday|weekend|(?:${DAY})(?:\\s*(?:,|and|&)\\s*(?:${DAY}))*)(?:\\s+(?:at|@)\\s*(${TIME}))?`, 'i');
const EVERY_PART_OF_DAY = /^every\s+(morning|evening|night)/i;
const EVERY_INTERVAL = /^every\s+(\d+\s+)?(minute|min|hour|hr)s?(?:\s+at\s+:?(\d{1,2}))?/i;

/**
 * Parses a recurrence at the start of `text`; returns the cron and how much of the text it used.
 * Contract: never throws; undefined when `text` does not start with a recurrence it knows.
 */
export function parseRecurrence(text: string): { cron: string; matched: string } | undefined {
  const trimmed = text.trim();
  const interval = EVERY_INTERVAL.exec(trimmed);
  if (interval) {
    const count = interval[1] ? Number(interval[1].trim()) : 1;
    const unit = (interval[2] ?? '').toLowerCase();
    if (unit.startsWith('min')) {
      if (count < 1 || count > 59) return undefined;
      return { cron: count === 1 ? '* * * * *' : `*/${count} * * * *`, matched: interval[0] };
    }
    if (count < 1 || count > 23) return undefined;
    const minute = interval[3] !== undefined ? Number(interval[3]) : 0;
    if (minute > 59) return undefined;
    return { cron: `${minute} ${count === 1 ? '*' : `*/${count}`} * * *`, matched: interval[0] };
  }
  const part = EVERY_PART_OF_DAY.exec(trimmed);
  if (part) {
    const hour = { morning: 8, evening: 18, night: 21 }[(part[1] ?? 'morning').toLowerCase() as 'morning' | 'evening' | 'night'];
    return { cron: `0 ${hour} * * *`, matched: part[0] };
  }
  const days = EVERY_DAYS.exec(trimmed);
  if (!days) return undefined;
  const time = parseClockTime(days[2] ?? '9:00');
  if (!time) return undefined;
  const which = (days[1] ?? '').toLowerCase();
  let dayOfWeek: string;
  if (which === 'day') dayOfWeek = '*';
  else if (which === 'weekday') dayOfWeek = '1-5';
  else if (which === 'weekend') dayOfWeek = '0,6';
  else {
    const numbers = new Set<number>();
    for (const name of which.split(/\s*(?:,|and|&)\s*/)) {
      const number = DAY_NUMBERS.get(name.replace(/s$/, '')) ?? DAY_NUMBERS.get(name);
      if (number === undefined) return undefined;
      numbers.add(number);
    }
    dayOfWeek = [...numbers].sort((a, b) => a - b).join(',');
  }
  return { cron: `${time.minute} ${time.hour} * * ${dayOfWeek}`, matched: days[0] };
}

/** "7:30", "8", "9am", "9:15 pm", "17h", "noon", "midnight". */
function parseClockTime(text: string): { hour: number; minute: number } | undefined {
  const value = text.trim().toLowerCase();
  if (value === 'noon') return { hour: 12, minute: 0 };
  if (value === 'midnight') return { hour: 0, minute: 0 };
  const match = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm|h)?$/.exec(value);
  if (!match) return undefined;
  let hour = Number(match[1]);
  const minute = match[2] ? Number(match[2]) : 0;
  if (match[3] === 'am' || match[3] === 'pm') {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (match[3] === 'pm' ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return undefined;
  return { hour, minute };
}

/**
 * Finds a one-shot time in `text`, in `timeZone`, relative to `now`. Durations ("in 2 hours") are
 * added to the instant; calendar times ("tomorrow at 9am") are read on the zone's wall clock, so
 * they stay right across a DST change.
 */
export function findOneShot(text: string, now: number, timeZone: string): { at: number; index: number; matched: string } | undefined {
  // chrono knows offsets, not IANA zones: let it work on the zone's wall clock presented as UTC.
  const reference = { instant: wallClockAsUtc(now, timeZone), timezone: 0 };
  const [result] = chrono().parse(text, reference, { forwardDate: true });
  if (!result) return undefined;
  const found = { index: result.index, matched: result.text };
  if (result.tags().has('result/relativeDateAndTime')) {
    // A pure duration: exact arithmetic on the instant, whatever the wall clock does meanwhile.
    const offset = result.start.date().getTime() - reference.instant.getTime();
    return { at: now + offset, ...found };
  }
  if (result.start.isCertain('timezoneOffset')) {
    // "9am UTC": the text names its own offset; chrono's instant is right as it stands.
    return { at: result.start.date().getTime(), ...found };
  }
  const at = instantOfWallClock(
    {
      year: result.start.get('year') ?? 1970,
      month: result.start.get('month') ?? 1,
      day: result.start.get('day') ?? 1,
      hour: result.start.get('hour') ?? 0,
      minute: result.start.get('minute') ?? 0,
      second: result.start.get('second') ?? 0,
    },
    timeZone,
  );
  return { at, ...found };
}

/** Parses a whole `when` text: a recurrence, else a one-shot. Undefined when neither is found. */
export function parseWhen(text: string, now: number, timeZone: string): ParsedWhen | undefined {
  const recurrence = parseRecurrence(text);
  if (recurrence && recurrence.matched.trim().length === text.trim().length) return { type: 'cron', cron: recurrence.cron, text };
  const oneShot = findOneShot(text, now, timeZone);
  if (!oneShot) return undefined;
  // Words left over ("tomorrow at 9am or so") mean chrono only understood part of it: refuse rather than guess.
  const rest = (text.slice(0, oneShot.index) + text.slice(oneShot.index + oneShot.matched.length)).replace(/[\s,.!]+/g, '');
  if (rest.length > 0 && !/^(at|on|in)$/i.test(rest)) return undefined;
  return { type: 'once', at: oneShot.at, text };
}
