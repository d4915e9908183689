import { createRequire } from 'node:module';
import type * as Chrono from 'chrono-node';
import type { Result } from '../lib/result.js';
import { instantOfWallClock, wallClockAsUtc } from '../lib/zoned.js';

// chrono-node is the largest module the daemon would load at start; it is needed only to parse a `when`.
const requireCjs = createRequire(import.meta.url);
let chronoModule: typeof Chrono | undefined;
function chrono(): typeof Chrono {
  chronoModule ??= requireCjs('chrono-node') as typeof Chrono;
  return chronoModule;
}

/** Loads the natural-language parser now (it is loaded on first use otherwise). */
export function loadWhenParser(): void {
  chrono();
}

/**
 * The one parser behind the schedule tool's `when`, `scheduler.jobs[].when`, `familiar jobs add --when` and
 * `/remind`. It places a time exactly or refuses with examples of what works; it never turns words it does not
 * understand into something else.
 */

/** The hours a part of the day means, for one-shots ("next Monday morning") and repeats ("every morning") alike. */
export const PART_OF_DAY_HOURS: ReadonlyMap<string, number> = new Map([['morning', 8], ['afternoon', 14], ['evening', 18], ['night', 21], ['tonight', 21]]);
/** The hour of a day named without a time ("tomorrow", "every Monday"). */
export const DEFAULT_HOUR = 9;

export type WhenSchedule = { type: 'cron'; cron: string } | { type: 'once'; at: number };
/** A time found in a text: the schedule, the words that said it, and the rest of the text. */
export type WhenFound = { schedule: WhenSchedule; spec: string; rest: string };
export type WhenResult = Result<WhenFound>;

/** A natural-language time: a one-shot instant, or a recurrence turned into cron (kept for older callers). */
export type ParsedWhen = { type: 'once'; at: number; text: string } | { type: 'cron'; cron: string; text: string };

export const WHEN_FORMS =
  'one-shots like "in 20 minutes", "in 2 hours", "tomorrow at 9am", "at noon", "next Monday morning", "friday 17:30", "2026-12-24 18:00", ' +
  'and recurrences like "every day at 7:30", "daily at 9", "every weekday at 8", "every weekend at 10", "every Monday at 9", ' +
  '"every Monday and Thursday at 18:00", "every morning", "every hour", "every 15 minutes", "every 2 hours between 9 and 17", ' +
  '"every first Monday at 10", "every last Friday at 16:00"';

const DAY_NUMBERS: ReadonlyMap<string, number> = new Map([
  ['sunday', 0], ['sun', 0], ['monday', 1], ['mon', 1], ['tuesday', 2], ['tue', 2], ['tues', 2], ['wednesday', 3], ['wed', 3],
  ['thursday', 4], ['thu', 4], ['thur', 4], ['thurs', 4], ['friday', 5], ['fri', 5], ['saturday', 6], ['sat', 6],
]);
const DAY = '(?:sun|mon|tues?|wed|thu(?:rs?)?|fri|sat)(?:day|nesday|urday|sday)?s?';
const DAY_LIST = `${DAY}(?:\\s*(?:,|and|&)\\s*${DAY})*`;
const TIME = '(?:noon|midnight|\\d{1,2}(?::\\d{2})?(?:\\s*(?:am|pm)|h)?)(?![\\w:])';
const PART = '(?:morning|afternoon|evening|night)';
const ORDINALS: ReadonlyMap<string, string> = new Map([['first', '#1'], ['1st', '#1'], ['second', '#2'], ['2nd', '#2'], ['third', '#3'], ['3rd', '#3'], ['fourth', '#4'], ['4th', '#4'], ['last', 'L']]);
// A text that starts with one of these means a repeat: it is read as one or refused, never as a one-shot.
const REPEAT_WORD = /^(?:every|each|daily|hourly|weekly|monthly|yearly|weekdays|weekends|on\s+weekdays|on\s+weekends)\b/i;

const refuse = (error: string): WhenResult => ({ success: false, error });
const found = (schedule: WhenSchedule, spec: string, rest: string): WhenResult => ({ success: true, value: { schedule, spec: spec.trim(), rest: rest.trim() } });

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

function dayNumbers(list: string): string | undefined {
  const numbers = new Set<number>();
  for (const name of list.toLowerCase().split(/\s*(?:,|and|&)\s*/)) {
    const number = DAY_NUMBERS.get(name) ?? DAY_NUMBERS.get(name.replace(/s$/, ''));
    if (number === undefined) return undefined;
    numbers.add(number);
  }
  return [...numbers].sort((a, b) => a - b).join(',');
}

/** " at 9", " at 7:30pm", " in the morning", " at night", " 17:30" after a day: the time of day, if any. */
function readTimeOfDay(text: string): { time: { hour: number; minute: number }; length: number } | 'bad' | undefined {
  const at = new RegExp(`^\\s+(?:at|@)\\s*(${TIME}|night)`, 'i').exec(text);
  if (at) {
    if ((at[1] ?? '').toLowerCase() === 'night') return { time: { hour: PART_OF_DAY_HOURS.get('night') ?? 21, minute: 0 }, length: at[0].length };
    const time = parseClockTime(at[1] ?? '');
    return time ? { time, length: at[0].length } : 'bad';
  }
  const part = new RegExp(`^\\s+(?:in\\s+the\\s+)?(${PART})\\b`, 'i').exec(text);
  if (part) return { time: { hour: PART_OF_DAY_HOURS.get((part[1] ?? '').toLowerCase()) ?? DEFAULT_HOUR, minute: 0 }, length: part[0].length };
  const bare = /^\s+(\d{1,2}:\d{2}(?:\s*(?:am|pm))?|\d{1,2}\s*(?:am|pm))(?![\w:])/i.exec(text);
  if (bare) {
    const time = parseClockTime(bare[1] ?? '');
    return time ? { time, length: bare[0].length } : 'bad';
  }
  return undefined;
}

/** " on weekdays", " on Monday and Friday", " on weekends": the days an interval runs on, if given. */
function readDays(text: string): { days: string; length: number } | 'bad' | undefined {
  const match = new RegExp(`^\\s+(?:on\\s+)?(weekdays|weekends|${DAY_LIST})(?![\\w])`, 'i').exec(text);
  if (!match) return undefined;
  const which = (match[1] ?? '').toLowerCase();
  const days = which === 'weekdays' ? '1-5' : which === 'weekends' ? '0,6' : dayNumbers(which);
  return days === undefined ? 'bad' : { days, length: match[0].length };
}

const REPEAT_EXAMPLES =
  'What works: "every day at 7:30", "daily at 9", "every weekday at 8", "every Monday and Thursday at 18:00", "every morning", ' +
  '"every 15 minutes", "every 2 hours between 9 and 17", "every first Monday at 10", "every last Friday at 16:00".';

/**
 * Reads a repeat at the start of `text` ("every day at 9", "daily at 9", "every 2 hours between 9 and 17",
 * "every first Monday"). Undefined when the text does not start with a repeat word; a refusal when it does but
 * cannot be kept exactly. Times without a time of day run at DEFAULT_HOUR; parts of the day at PART_OF_DAY_HOURS.
 */
export function readRecurrence(text: string): WhenResult | undefined {
  const source = text.trimStart();
  if (!REPEAT_WORD.test(source)) return undefined;
  const interval = /^(?:every\s+(?:(\d+)\s+)?(minutes?|mins?|hours?|hrs?)|hourly)(?![\w])/i.exec(source);
  if (interval) return readInterval(source, interval);
  const nth = new RegExp(`^every\\s+(first|1st|second|2nd|third|3rd|fourth|4th|last)\\s+(${DAY})(?:\\s+of\\s+(?:the|every)\\s+month)?(?![\\w])`, 'i').exec(source);
  if (nth) {
    const day = dayNumbers(nth[2] ?? '');
    if (day === undefined || day.includes(',')) return refuse(`"${text.trim()}": name one day of the week. ${REPEAT_EXAMPLES}`);
    return withTimeOfDay(source, nth[0].length, (minute, hour) => `${minute} ${hour} * * ${day}${ORDINALS.get((nth[1] ?? '').toLowerCase()) ?? ''}`);
  }
  const part = new RegExp(`^every\\s+(${PART})(?![\\w])`, 'i').exec(source);
  if (part) {
    const hour = PART_OF_DAY_HOURS.get((part[1] ?? '').toLowerCase()) ?? DEFAULT_HOUR;
    return found({ type: 'cron', cron: `0 ${hour} * * *` }, part[0], source.slice(part[0].length));
  }
  const days = new RegExp(`^(?:(?:every|each)\\s+(day|weekday|weekend|${DAY_LIST})|(daily)|on\\s+(weekdays|weekends)|(weekdays|weekends))(?![\\w])`, 'i').exec(source);
  if (days) {
    const which = (days[1] ?? days[2] ?? days[3] ?? days[4] ?? '').toLowerCase();
    const dayOfWeek = ['day', 'daily'].includes(which) ? '*' : ['weekday', 'weekdays'].includes(which) ? '1-5' : ['weekend', 'weekends'].includes(which) ? '0,6' : dayNumbers(which);
    if (dayOfWeek === undefined) return refuse(`"${text.trim()}" names a day I do not know. ${REPEAT_EXAMPLES}`);
    return withTimeOfDay(source, days[0].length, (minute, hour) => `${minute} ${hour} * * ${dayOfWeek}`);
  }
  return refuse(`I cannot place the repeat in "${text.trim()}" exactly. ${REPEAT_EXAMPLES}`);
}

function withTimeOfDay(source: string, used: number, cron: (minute: number, hour: number) => string): WhenResult {
  const time = readTimeOfDay(source.slice(used));
  if (time === 'bad') return refuse(`"${source.trim()}" has a time I cannot read; write it like 7:30, 9am or 18:00. ${REPEAT_EXAMPLES}`);
  const length = used + (time?.length ?? 0);
  const { hour, minute } = time?.time ?? { hour: DEFAULT_HOUR, minute: 0 };
  return found({ type: 'cron', cron: cron(minute, hour) }, source.slice(0, length), source.slice(length));
}

/** "every N minutes|hours" with optional " at :15", " between 9 and 17" and days: only what cron can keep exactly. */
function readInterval(source: string, match: RegExpExecArray): WhenResult {
  const count = match[1] !== undefined ? Number(match[1]) : 1;
  let inMinutes = /^min/i.test(match[2] ?? '');
  let step = count;
  if (inMinutes && step >= 60 && step % 60 === 0) {
    inMinutes = false;
    step /= 60;
  }
  const said = match[0];
  if (step < 1) return refuse(`"${said}" is not a time. ${REPEAT_EXAMPLES}`);
  if (inMinutes && 60 % step !== 0) {
    return refuse(`"${said}" cannot be kept exactly: a repeat in minutes must divide an hour (1, 2, 3, 4, 5, 6, 10, 12, 15, 20 or 30 minutes), else the last interval of each hour would be shorter. Try "every 30 minutes" or "every 2 hours", or give a cron expression. ${REPEAT_EXAMPLES}`);
  }
  if (!inMinutes && 24 % step !== 0) {
    return refuse(`"${said}" cannot be kept exactly: a repeat in hours must divide a day (1, 2, 3, 4, 6, 8 or 12 hours), else the last interval of each day would be shorter. Try "every 4 hours" or give a cron expression. ${REPEAT_EXAMPLES}`);
  }
  let used = said.length;
  let minute = '0';
  let hours = inMinutes ? '*' : step === 1 ? '*' : `*/${step}`;
  let days = '*';
  let window: { from: number; to: number } | undefined;
  for (;;) {
    const rest = source.slice(used);
    const past = /^\s+at\s+:(\d{1,2})(?![\w:])/i.exec(rest) ?? /^\s+at\s+(\d{1,2})\s+past(?![\w])/i.exec(rest);
    if (past && !inMinutes && minute === '0') {
      if (Number(past[1]) > 59) return refuse(`"${past[0].trim()}": minutes go up to 59. ${REPEAT_EXAMPLES}`);
      minute = String(Number(past[1]));
      used += past[0].length;
      continue;
    }
    const between = new RegExp(`^\\s+(?:between\\s+(${TIME})\\s+and\\s+(${TIME})|from\\s+(${TIME})\\s+(?:to|until|till)\\s+(${TIME}))`, 'i').exec(rest);
    if (between && window === undefined) {
      const from = parseClockTime(between[1] ?? between[3] ?? '');
      const to = parseClockTime(between[2] ?? between[4] ?? '');
      if (!from || !to || from.minute !== 0 || to.minute !== 0 || from.hour >= to.hour) {
        return refuse(`"${between[0].trim()}" must be whole hours, the first before the second on the same day (e.g. "between 9 and 17"). ${REPEAT_EXAMPLES}`);
      }
      window = { from: from.hour, to: to.hour };
      used += between[0].length;
      continue;
    }
    const dayList = readDays(rest);
    if (dayList !== undefined && days === '*') {
      if (dayList === 'bad') return refuse(`"${rest.trim()}" names a day I do not know. ${REPEAT_EXAMPLES}`);
      days = dayList.days;
      used += dayList.length;
      continue;
    }
    break;
  }
  if (inMinutes) minute = step === 1 ? '*' : `*/${step}`;
  if (window) {
    // "between 9 and 17" is 09:00 up to (not including) 17:00, so the last run is before 17:00.
    const last = window.to - 1;
    if (inMinutes) hours = `${window.from}-${last}`;
    else hours = step === 1 ? `${window.from}-${last}` : `${window.from}-${last}/${step}`;
  }
  return found({ type: 'cron', cron: `${minute} ${hours} * * ${days}` }, source.slice(0, used), source.slice(used));
}

/** Kept for callers that want only the cron of a repeat at the start of `text`. Contract: never throws. */
export function parseRecurrence(text: string): { cron: string; matched: string } | undefined {
  const result = readRecurrence(text);
  if (!result?.success || result.value.schedule.type !== 'cron') return undefined;
  return { cron: result.value.schedule.cron, matched: result.value.spec };
}

interface OneShot { at: number; index: number; matched: string; isRange: boolean }

/** A counted calendar duration: "2 days", "a week", "one month" (not "next week", a day named without a time). */
const COUNTED_DAYS = /\b(?:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|couple of)\s+(?:days?|weeks?|fortnights?|months?|years?)\b/i;
const PART_OF_DAY = /\b(?:morning|afternoon|evening|tonight|night)\b/i;

/**
 * Every one-shot time chrono finds in `text`, in `timeZone`, relative to `now`. Durations ("in 2 hours") are
 * added to the instant; calendar times ("tomorrow at 9am") are read on the zone's wall clock, so they stay right
 * across a DST change. A day without a time is DEFAULT_HOUR; a part of the day is PART_OF_DAY_HOURS.
 */
function findOneShots(text: string, now: number, timeZone: string): OneShot[] {
  // chrono knows offsets, not IANA zones: let it work on the zone's wall clock presented as UTC.
  const reference = { instant: wallClockAsUtc(now, timeZone), timezone: 0 };
  return chrono().parse(text, reference, { forwardDate: true }).map((result) => {
    const base = { index: result.index, matched: result.text, isRange: result.end !== null && result.end !== undefined };
    if (result.tags().has('result/relativeDateAndTime')) {
      // A pure duration: exact arithmetic on the instant, whatever the wall clock does meanwhile.
      return { ...base, at: now + (result.start.date().getTime() - reference.instant.getTime()) };
    }
    if (result.start.isCertain('timezoneOffset')) return { ...base, at: result.start.date().getTime() };
    let hour = result.start.get('hour') ?? DEFAULT_HOUR;
    let minute = result.start.get('minute') ?? 0;
    let second = result.start.get('second') ?? 0;
    // "in 2 weeks", "3 days from now": a duration in days, weeks or months keeps the time of day it was said at (on
    // the wall clock, so across a DST change too), as "in 48 hours" does; only a day named without one gets 09:00.
    const counted = result.tags().has('result/relativeDate') && COUNTED_DAYS.test(result.text) && !PART_OF_DAY.test(result.text);
    if (!result.start.isCertain('hour') && !counted) {
      // chrono's own guesses (06:00 for "morning", 12:00 for a bare day) give way to the one set of defaults.
      const part = PART_OF_DAY.exec(result.text)?.[0].toLowerCase();
      hour = part !== undefined ? (PART_OF_DAY_HOURS.get(part) ?? DEFAULT_HOUR) : DEFAULT_HOUR;
      minute = 0;
      // chrono carries the seconds of "now" into a day named without a time: "tomorrow" is 09:00:00, not 09:00:27.
      second = 0;
    }
    const at = instantOfWallClock({
      year: result.start.get('year') ?? 1970, month: result.start.get('month') ?? 1, day: result.start.get('day') ?? 1,
      hour, minute, second,
    }, timeZone);
    return { ...base, at };
  });
}

/**
 * The first one-shot time in a free text (a task's due date), read with the same defaults as `when` (one set of
 * part-of-day hours, 09:00 for a day named without a time). Undefined when there is none, or it is a range.
 */
export function findOneShot(text: string, now: number, timeZone: string): { at: number; index: number; matched: string } | undefined {
  const [shot] = findOneShots(text, now, timeZone);
  return shot && !shot.isRange ? { at: shot.at, index: shot.index, matched: shot.matched } : undefined;
}

// Words that only join a time to the sentence ("at noon", "on Friday", "in 2 hours", "by 5pm").
const CONNECTOR = /^(?:at|on|in|by|for)$/i;
const stripEdges = (text: string): string => text.replace(/^[\s,.:;!–—-]+|[\s,.:;!–—-]+$/g, '');

/**
 * Finds the time in a reminder ("/remind <when> <text>" or "/remind <text> <when>"): a repeat at the start or at
 * the end, else one chrono time at the start or at the end. A time in the middle, two times, a range, or a repeat
 * that cannot be kept exactly are refused with examples.
 */
export function findWhenInText(text: string, now: number, timeZone: string): WhenResult {
  const trimmed = text.trim();
  const leading = readRecurrence(trimmed);
  if (leading) return leading;
  // A repeat at the end: it must run to the end of the text.
  for (const match of trimmed.matchAll(/(?:^|\s)(?=(?:every|each|daily|hourly|weekly|monthly|on\s+weekdays|on\s+weekends)\b)/gi)) {
    const start = match.index + match[0].length;
    const trailing = readRecurrence(trimmed.slice(start));
    if (!trailing) continue;
    if (!trailing.success) return trailing;
    if (stripEdges(trailing.value.rest) !== '') continue;
    return found(trailing.value.schedule, trailing.value.spec, trimmed.slice(0, start));
  }
  const shots = findOneShots(trimmed, now, timeZone);
  if (shots.length === 0) return refuse(`I could not find a time in "${trimmed}".`);
  if (shots.length > 1) return refuse(`"${trimmed}" has more than one time (${shots.map((shot) => `"${shot.matched}"`).join(', ')}); give one.`);
  const shot = shots[0] as OneShot;
  if (shot.isRange) return refuse(`"${shot.matched}" is a range, not one time; say when the reminder should go off.`);
  const before = trimmed.slice(0, shot.index).trim();
  const after = trimmed.slice(shot.index + shot.matched.length).trim();
  const beforeWords = stripEdges(before);
  if (beforeWords === '' || CONNECTOR.test(beforeWords)) {
    return found({ type: 'once', at: shot.at }, `${beforeWords} ${shot.matched}`, after);
  }
  if (stripEdges(after) === '') {
    // "call Mum at 9pm": the joining word belongs to the time, not to the text.
    const rest = before.replace(/\s+(?:at|on|in|by)$/i, '');
    return found({ type: 'once', at: shot.at }, trimmed.slice(rest.length), rest);
  }
  return refuse(`The time "${shot.matched}" stands in the middle of "${trimmed}"; put it first or last.`);
}

/** Parses a whole `when` text: everything in it must be the time. */
export function parseWhenText(text: string, now: number, timeZone: string): WhenResult {
  const result = findWhenInText(text, now, timeZone);
  if (!result.success) return result;
  if (stripEdges(result.value.rest) !== '') {
    return refuse(`"${text.trim()}" has words that are not part of a time ("${stripEdges(result.value.rest)}").`);
  }
  return result;
}

/** The whole `when` text as a schedule, or undefined when it is not one (older callers). */
export function parseWhen(text: string, now: number, timeZone: string): ParsedWhen | undefined {
  const result = parseWhenText(text, now, timeZone);
  if (!result.success) return undefined;
  const { schedule } = result.value;
  return schedule.type === 'cron' ? { type: 'cron', cron: schedule.cron, text } : { type: 'once', at: schedule.at, text };
}
