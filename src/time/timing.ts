import { createRequire } from 'node:module';
import type { CronExpressionParser as CronParser } from 'cron-parser';
import type Cronstrue from 'cronstrue';
import { errorMessage } from '../errors.js';
import { parseWhenText, WHEN_FORMS } from './when.js';
import { instantOfWallClock, zoneOffsetMs } from '../lib/zoned.js';
import type { Result } from '../lib/result.js';

/** A job's schedule once resolved: a cron expression, or one instant. */
export type Schedule = { type: 'cron'; cron: string } | { type: 'once'; at: number };

export interface ScheduleInput {
  cron?: string | undefined;
  run_at?: string | undefined;
  when?: string | undefined;
}

export const CRON_FORMS =
  'a cron expression has 5 fields "minute hour day-of-month month day-of-week" (e.g. "0 8 * * 1-5" = weekdays at 08:00) ' +
  'or 6 with seconds first (e.g. "*/30 * * * * *" = every 30 seconds)';

// cron-parser (with luxon) and cronstrue are CommonJS packages loaded on first use, synchronously: a daemon
// without cron jobs does not pay for them at start.
const requireCjs = createRequire(import.meta.url);
let parser: typeof CronParser | undefined;
const cronParser = (): typeof CronParser => (parser ??= (requireCjs('cron-parser') as typeof import('cron-parser')).CronExpressionParser);
let describer: typeof Cronstrue | undefined;
const cronstrue = (): typeof Cronstrue => (describer ??= requireCjs('cronstrue') as typeof Cronstrue);

/**
 * The expression with its spaces normalised, when it has the shape of one (5 or 6 fields, no "@" macro); whether
 * its fields hold valid values is validateCron's to say. Costs nothing: cron-parser is not loaded.
 */
export function cronShape(expression: string): Result<string> {
  const cron = expression.trim().replace(/\s+/g, ' ');
  const fields = cron.split(' ').length;
  if (cron.startsWith('@') || fields < 5 || fields > 6) {
    return { success: false, error: `"${expression}" is not a valid cron expression (${fields} fields); ${CRON_FORMS}.` };
  }
  return { success: true, value: cron };
}

/** Each field's name and range, seconds first (a 5-field expression starts at minutes). */
const FIELDS = [
  { name: 'seconds', min: 0, max: 59 }, { name: 'minutes', min: 0, max: 59 }, { name: 'hours', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 }, { name: 'month', min: 1, max: 12 }, { name: 'day-of-week', min: 0, max: 7 },
] as const;

/**
 * A step larger than its field's range: cron-parser accepts a step of 90 in the seconds field and then runs at second
 * 0 only (every 60 s, though it reads "every 90 seconds"). A step up to the field's size is what cron can keep.
 */
function stepProblem(cron: string): string | undefined {
  const fields = cron.split(' ');
  const ranges = fields.length === 6 ? FIELDS : FIELDS.slice(1);
  for (const [index, text] of fields.entries()) {
    const range = ranges[index];
    if (!range) continue;
    const size = range.name === 'day-of-week' ? 7 : range.max - range.min + 1;
    for (const item of text.split(',')) {
      const step = /\/(\d+)$/.exec(item)?.[1];
      if (step !== undefined && Number(step) > size) {
        return `step ${step} in the ${range.name} field is larger than the field's range (${range.min}-${range.max}): it would fire once per pass of the field, not every ${step}; use a step up to ${size} (one that divides ${size} keeps the intervals even)`;
      }
    }
  }
  return undefined;
}

/** Validates a 5- or 6-field cron expression. Contract: never throws. */
export function validateCron(expression: string, timeZone: string): Result<string> {
  const shape = cronShape(expression);
  if (!shape.success) return shape;
  const cron = shape.value;
  const step = stepProblem(cron);
  if (step !== undefined) return { success: false, error: `"${expression}" is not a valid cron expression (${step}); ${CRON_FORMS}.` };
  try {
    const parsed = cronParser().parse(cron, { tz: timeZone, currentDate: new Date() });
    parsed.next();
  } catch (error) {
    return { success: false, error: `"${expression}" is not a valid cron expression (${errorMessage(error)}); ${CRON_FORMS}.` };
  }
  return { success: true, value: cron };
}

// cron-parser takes about a millisecond per parse and per step in a time zone. Jobs share expressions and
// fire together (100 jobs at 08:00), so answers are memoised; the cache is dropped when it grows large.
const memo = new Map<string, number | undefined>();
const MEMO_LIMIT = 5000;

function memoised(key: string, compute: () => number | undefined): number | undefined {
  if (memo.has(key)) return memo.get(key);
  const value = compute();
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(key, value);
  return value;
}

/**
 * The first occurrence strictly after `after`. Undefined when the expression never fires again. When clocks go back,
 * a job whose hour field is a wildcard or a step also runs in the repeated hour's second pass (Vixie cron's and
 * croniter's rule); a job at fixed hours runs once, in the first pass (docs/scheduling.md).
 */
export function nextOccurrence(cron: string, after: number, timeZone: string): number | undefined {
  return memoised(`n\u0000${timeZone}\u0000${cron}\u0000${after}`, () => {
    const first = firstPassAfter(cron, after, timeZone);
    if (!runsInBothPasses(cron)) return first;
    const back = clocksGoBack(after - LOOK_MS, after + LOOK_MS, timeZone);
    if (!back) return first;
    // A first-pass run f in the hour before the change repeats at f + delta; the earliest one after `after`.
    const start = Math.max(back.at - back.deltaMs, after - back.deltaMs + 1);
    const repeated = firstPassAfter(cron, start - 1, timeZone);
    if (repeated === undefined || repeated >= back.at) return first;
    const second = repeated + back.deltaMs;
    return first === undefined || second < first ? second : first;
  });
}

/** The last occurrence at or before `at`, with the same rule for a repeated hour as nextOccurrence. */
export function latestOccurrence(cron: string, at: number, timeZone: string): number | undefined {
  return memoised(`p\u0000${timeZone}\u0000${cron}\u0000${at}`, () => {
    const first = firstPassAtOrBefore(cron, at, timeZone);
    if (!runsInBothPasses(cron)) return first;
    const back = clocksGoBack(first !== undefined ? Math.max(first, at - DAY_MS) : at - LOOK_MS, at, timeZone);
    if (!back) return first;
    const repeated = firstPassAtOrBefore(cron, Math.min(back.at - 1, at - back.deltaMs), timeZone);
    if (repeated === undefined || repeated < back.at - back.deltaMs) return first;
    const second = repeated + back.deltaMs;
    return first === undefined || second > first ? second : first;
  });
}

const LOOK_MS = 3 * 3_600_000;
const DAY_MS = 24 * 3_600_000;

/** The hour field is a wildcard or a step ("0 * * * *", "*\u002f15 * * * *", "0 1-5/2 * * *"): it runs in both passes. */
function runsInBothPasses(cron: string): boolean {
  const fields = cron.split(' ');
  const hour = fields[fields.length === 6 ? 2 : 1] ?? '';
  return hour.startsWith('*') || hour.includes('/');
}

/**
 * Where the zone's clocks go back between two instants: the instant of the change and how far they go back; undefined
 * when they do not (one change at most is looked for: zones change at most twice a year).
 */
function clocksGoBack(from: number, to: number, timeZone: string): { at: number; deltaMs: number } | undefined {
  const before = zoneOffsetMs(from, timeZone);
  if (zoneOffsetMs(to, timeZone) >= before) return undefined;
  let low = from;
  let high = to;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (zoneOffsetMs(middle, timeZone) === before) low = middle;
    else high = middle;
  }
  return { at: high, deltaMs: before - zoneOffsetMs(high, timeZone) };
}

/** cron-parser's next run: the first occurrence of a repeated wall time only. */
function firstPassAfter(cron: string, after: number, timeZone: string): number | undefined {
  try {
    return cronParser().parse(cron, { tz: timeZone, currentDate: new Date(after) }).next().getTime();
  } catch {
    return undefined;
  }
}

function firstPassAtOrBefore(cron: string, at: number, timeZone: string): number | undefined {
  try {
    // prev() is strictly before its reference: start one millisecond later to include `at` itself.
    return cronParser().parse(cron, { tz: timeZone, currentDate: new Date(at + 1) }).prev().getTime();
  } catch {
    return undefined;
  }
}

const ISO_LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** An ISO time; without an offset it is read on the clock of `timeZone` (a date alone means 09:00). */
export function parseRunAt(text: string, timeZone: string): Result<number> {
  const value = text.trim();
  const usage = `run_at must be an ISO time such as "2026-12-24T18:00" (read in ${timeZone}) or "2026-12-24T17:00:00Z"`;
  if (ISO_WITH_OFFSET.test(value)) {
    const at = Date.parse(value.replace(' ', 'T'));
    return Number.isNaN(at) ? { success: false, error: `"${text}" is not a valid time; ${usage}.` } : { success: true, value: at };
  }
  const match = ISO_LOCAL.exec(value);
  if (!match) return { success: false, error: `"${text}" is not a valid time; ${usage}.` };
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => (part === undefined ? undefined : Number(part)));
  const wall = { year: year ?? 0, month: month ?? 0, day: day ?? 0, hour: hour ?? 9, minute: minute ?? 0, second: second ?? 0 };
  const check = new Date(Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second));
  if (check.getUTCMonth() !== wall.month - 1 || check.getUTCDate() !== wall.day || wall.hour > 23 || wall.minute > 59 || wall.second > 59) {
    return { success: false, error: `"${text}" is not a valid date; ${usage}.` };
  }
  return { success: true, value: instantOfWallClock(wall, timeZone) };
}

/**
 * Turns exactly one of cron / run_at / when into a schedule. Errors say which forms work.
 * Contract: never throws; a one-shot must lie in the future.
 */
export function resolveSchedule(input: ScheduleInput, now: number, timeZone: string): Result<Schedule> {
  const given = (['cron', 'run_at', 'when'] as const).filter((key) => input[key] !== undefined && input[key].trim() !== '');
  if (given.length !== 1) {
    return {
      success: false,
      error: `Give exactly one of cron, run_at or when (got ${given.length === 0 ? 'none' : given.join(' and ')}). when accepts ${WHEN_FORMS}; ${CRON_FORMS}.`,
    };
  }
  let schedule: Schedule;
  if (input.cron !== undefined && given[0] === 'cron') {
    const cron = validateCron(input.cron, timeZone);
    if (!cron.success) return cron;
    schedule = { type: 'cron', cron: cron.value };
  } else if (input.run_at !== undefined && given[0] === 'run_at') {
    const at = parseRunAt(input.run_at, timeZone);
    if (!at.success) return at;
    schedule = { type: 'once', at: at.value };
  } else {
    const text = input.when ?? '';
    const parsed = parseWhenText(text, now, timeZone);
    if (!parsed.success) {
      return { success: false, error: `Could not understand the time "${text}". when accepts ${WHEN_FORMS}; or pass cron (${CRON_FORMS}) or run_at (an ISO time). ${parsed.error}` };
    }
    schedule = parsed.value.schedule;
  }
  if (schedule.type === 'once' && schedule.at <= now) {
    return { success: false, error: `That time (${new Date(schedule.at).toISOString()}) is already past; give a future time.` };
  }
  if (schedule.type === 'cron' && nextOccurrence(schedule.cron, now, timeZone) === undefined) {
    return { success: false, error: `The cron expression "${schedule.cron}" never fires; ${CRON_FORMS}.` };
  }
  return { success: true, value: schedule };
}

/** "At 08:00, Monday through Friday" for a cron expression; never throws. */
export function describeCron(cron: string): string {
  try {
    return cronstrue().toString(cron, { use24HourTimeFormat: true, verbose: false });
  } catch {
    return `cron ${cron}`;
  }
}
