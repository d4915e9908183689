import { createRequire } from 'node:module';
import type * as RRulePackage from 'rrule';
import { dayToUtc, utcToDay } from './dates.js';

// rrule is needed only when a task recurs: loaded then, not with the daemon.
const requireCjs = createRequire(import.meta.url);
let rruleModule: typeof RRulePackage | undefined;
function rrule(): typeof RRulePackage.RRule {
  rruleModule ??= requireCjs('rrule') as typeof RRulePackage;
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

function parse(text: string): Options | undefined {
  try {
    const options = rrule().parseText(text);
    return options.freq === undefined ? undefined : options;
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
  const rule = new RRule({ ...recurrence.options, dtstart: dayToUtc(from) });
  const first = rule.after(dayToUtc(from), true);
  return first ? utcToDay(first) : undefined;
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
    .replace(/\b(?:on\s+)?the\s+(\d{1,2}(?:st|nd|rd|th))\s+(?:day\s+)?of\s+every\s+month\b/i, 'every month on the $1')
    .replace(/\b(daily|weekly|monthly|yearly|annually)\b/i, (word) => `every ${{ daily: 'day', weekly: 'week', monthly: 'month', yearly: 'year', annually: 'year' }[word.toLowerCase() as 'daily']}`);
  const at = text.search(/\bevery\b/i);
  if (at < 0) return undefined;
  const tail = text.slice(at);
  const whole = parse(tail);
  if (!whole) return undefined;
  const wanted = JSON.stringify(whole);
  const words = tail.split(/\s+/);
  for (let count = 2; count <= words.length; count += 1) {
    let phrase = words.slice(0, count).join(' ');
    const options = parse(phrase);
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
