import { findOneShot } from '../scheduler/when.js';
import { dayOf, timeOf } from './dates.js';
import { extractRecurrence, firstOccurrence } from './recurrence.js';
import { field, parseTaskLine, type Priority } from './task-line.js';
import type { TaskInput } from './tasks.js';

const REMIND = /^(?:please\s+)?(?:remind me|reminder)(?:\s+(?:to|that|about))?\s+/i;
const PRIORITY_WORDS: ReadonlyMap<string, Priority> = new Map([
  ['!highest', 'highest'], ['!urgent', 'highest'], ['!!!', 'highest'], ['!high', 'high'], ['!!', 'high'], ['!medium', 'medium'], ['!low', 'low'], ['!lowest', 'lowest'],
]);
// A clock time in the words that gave the date: then the person said when to be reminded.
const CLOCK = /\b(\d{1,2}(:\d{2})?\s*(am|pm|h)\b|\d{1,2}:\d{2}|noon|midnight|morning|afternoon|evening|tonight)/i;

/**
 * `/task <text>` in plain words: "pay rent every month on the 1st", "remind me to call Bob tomorrow at 3pm",
 * "submit the report by Friday !high #work". Dates come from the scheduler's parser (chrono, in the configured
 * zone), recurrence from rrule's; fields typed as Obsidian Tasks emoji are taken as they are.
 */
export function parseTaskText(input: string, now: number, timeZone: string): TaskInput & { remind: boolean } {
  let text = input.trim();
  const remind = REMIND.test(text);
  text = text.replace(REMIND, '');
  const typed = parseTaskLine(`- [ ] ${text}`);
  if (typed && typed.fields.length > 0) {
    const priority = field(typed, 'priority') as Priority | undefined;
    const input: TaskInput & { remind: boolean } = { description: typed.description, remind };
    for (const kind of ['due', 'scheduled', 'start', 'recurrence', 'reminder'] as const) {
      const value = field(typed, kind);
      if (value !== undefined) input[kind] = value;
    }
    if (priority) input.priority = priority;
    return input;
  }
  let priority: Priority | undefined;
  text = text.replace(/(^|\s)(!highest|!urgent|!!!|!high|!!|!medium|!lowest|!low)(?=\s|$)/i, (_all, space: string, word: string) => {
    priority = PRIORITY_WORDS.get(word.toLowerCase());
    return space;
  });
  const result: TaskInput & { remind: boolean } = { description: '', remind };
  if (priority) result.priority = priority;
  const recurring = extractRecurrence(text);
  if (recurring) {
    result.recurrence = recurring.recurrence.text;
    text = recurring.rest;
  }
  const found = findOneShot(text, now, timeZone);
  let time: string | undefined;
  if (found) {
    result.due = dayOf(found.at, timeZone);
    if (CLOCK.test(found.matched) || /\bin\s+\d+\s*(min|minute|hour|hr)/i.test(found.matched)) time = timeOf(found.at, timeZone);
    const before = text.slice(0, found.index).replace(/\s*\b(by|on|at|due|before|until|for)\s*$/i, '');
    text = `${before} ${text.slice(found.index + found.matched.length)}`;
  } else if (recurring) {
    const first = firstOccurrence(recurring.recurrence, dayOf(now, timeZone));
    if (first) result.due = first;
  }
  if (time !== undefined && result.due !== undefined) result.reminder = `${result.due} ${time}`;
  else if (remind && result.due !== undefined) result.reminder = `${result.due} 09:00`;
  result.description = text.replace(/\s+/g, ' ').replace(/^[\s,:;-]+|[\s,:;-]+$/g, '').trim();
  return result;
}
