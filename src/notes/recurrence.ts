import type * as RRulePackage from 'rrule';
import { requireOnUse } from '../lib/folded.js';
import { dayToUtc, instantOf, utcToDay } from './dates.js';

// rrule is needed only when a task recurs: loaded then, not with the daemon.
let rruleModule: typeof RRulePackage | undefined;
function rrule(): typeof RRulePackage.RRule {
  rruleModule ??= requireOnUse<typeof RRulePackage>('rrule');
  return rruleModule.RRule;
}
type Options = ReturnType<typeof RRulePackage.RRule.parseText>;

/**
 * Recurrence as Obsidian Tasks writes it (`🔁 every month on the 1st`, `every 2 weeks`, `every weekday`,
 * `… when done`), read with rrule's text parser the way Tasks does: the rule is applied from the task's own
 * date, so "every year" repeats on that date's day and month.
 */
export interface Recurrence {
  text: string;
  whenDone: boolean;
  options: Options;
}

/** Contract: never throws; undefined when rrule does not understand the text. */
export function parseRecurrence(text: string): Recurrence | undefined {
  const clean = text.trim().replace(/\s+/g, ' ');
  const whenDone = /\bwhen done\s*$/i.test(clean);
  const rule = clean.replace(/\s*\bwhen done\s*$/i, '');
  if (!/^every\b/i.test(rule)) return undefined;
  const options = parse(rule);
  if (!options) return undefined;
  return { text: clean, whenDone, options };
}

function parse(text: string, keepTime = false): Options | undefined {
  try {
    const options = rrule().parseText(text);
    if (options.freq === undefined) return undefined;
    if (keepTime) return options;
    // Tasks recur on days: a time of day in the text ("at 7pm") must not make "the next day" the same day.
    const { byhour: _hour, byminute: _minute, bysecond: _second, ...days } = options;
    return days;
  } catch {
    return undefined;
  }
}

/** The first occurrence strictly after `from` (a day), with the rule anchored at `anchor` (default `from`). */
export function nextOccurrence(recurrence: Recurrence, from: string, anchor = from): string | undefined {
  const RRule = rrule();
  const rule = new RRule({ ...recurrence.options, dtstart: dayToUtc(anchor) });
  const next = rule.after(dayToUtc(from), false);
  return next ? utcToDay(next) : undefined;
}

/** The first occurrence on or after `from`: the due date of a new recurring task. */
export function firstOccurrence(recurrence: Recurrence, from: string): string | undefined {
  const RRule = rrule();
  // The interval counts from the first occurrence: "every 2 weeks on Friday" starts this Friday, not in a fortnight.
  const rule = new RRule({ ...recurrence.options, interval: 1, dtstart: dayToUtc(from) });
  const first = rule.after(dayToUtc(from), true);
  return first ? utcToDay(first) : undefined;
}

/**
 * A new recurring task's due day when its reminder is at `time` on that day: `due` itself, or the next occurrence when
 * that time has passed ("every day at 7am" said at 10:00 starts tomorrow; "rent on the 1st at 9:00" said on the 1st at
 * noon starts next month), since a reminder already past is never sent.
 */
export function dueWithReminder(recurrence: Recurrence, due: string, time: string | undefined, now: number, timeZone: string): string {
  if (time === undefined || instantOf(due, time, timeZone) > now) return due;
  return nextOccurrence(recurrence, due) ?? due;
}

/**
 * Finds a recurrence phrase in free text ("pay rent every month on the 1st", "water plants each Monday",
 * "rent on the 1st of every month", "monthly review"); returns it in Tasks' wording and the text without it.
 * rrule's parser ignores words it does not know at the end, so the phrase is the shortest run of words from
 * "every" that parses to the same rule as everything from "every" on.
 */
export function extractRecurrence(input: string): { recurrence: Recurrence; rest: string } | undefined {
  let text = input
    .replace(/\beach\b/gi, 'every')
    .replace(/\bevery other (day|week|month|year)\b/gi, 'every 2 $1s')
    .replace(/\b(?:on\s+)?the\s+(\d{1,2}(?:st|nd|rd|th))\s+(?:day\s+)?of\s+every\s+month\b/i, 'every month on the $1')
    .replace(/\b(daily|weekly|monthly|yearly|annually)\b/i, (word) => `every ${{ daily: 'day', weekly: 'week', monthly: 'month', yearly: 'year', annually: 'year' }[word.toLowerCase() as 'daily']}`);
  const at = text.search(/\bevery\b/i);
  if (at < 0) return undefined;
  const tail = text.slice(at);
  // Compared with the time kept, so "every Monday at 7pm" is one phrase and "at 7pm" does not stay behind.
  const whole = parse(tail, true);
  if (!whole) return undefined;
  const wanted = JSON.stringify(whole);
  const words = tail.split(/\s+/);
  for (let count = 2; count <= words.length; count += 1) {
    let phrase = words.slice(0, count).join(' ');
    const options = parse(phrase, true);
    if (!options || JSON.stringify(options) !== wanted) continue;
    const after = words.slice(count);
    if (after[0]?.toLowerCase() === 'when' && after[1]?.toLowerCase() === 'done') {
      phrase += ' when done';
      after.splice(0, 2);
    }
    const recurrence = parseRecurrence(phrase);
    if (!recurrence) return undefined;
    text = `${text.slice(0, at)} ${after.join(' ')}`.replace(/\s+/g, ' ').trim();
    return { recurrence, rest: text };
  }
  return undefined;
}
