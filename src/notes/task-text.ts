import { findOneShot } from '../time/when.js';
import { dayOf, timeOf } from './dates.js';
import { dueWithReminder, extractRecurrence, firstOccurrence, parseRecurrence, type Recurrence } from './recurrence.js';
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
  const trailing = /[\s,;]+(?:and\s+)?remind me\s*$/i;
  const remind = REMIND.test(text) || trailing.test(text);
  text = text.replace(REMIND, '').replace(trailing, '');
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
  let rule: Recurrence | undefined;
  let time: string | undefined;
  if (recurring) {
    // Tasks' recurrence has no clock time: "every Monday at 7pm" recurs every Monday, reminded at 19:00.
    const clock = /\s+at\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm|h)?\b/i.exec(recurring.recurrence.text);
    const recurrence = clock ? recurring.recurrence.text.replace(clock[0], '') : recurring.recurrence.text;
    if (clock) {
      let hour = Number(clock[1]);
      if (clock[3]?.toLowerCase() === 'pm' && hour < 12) hour += 12;
      if (clock[3]?.toLowerCase() === 'am' && hour === 12) hour = 0;
      if (hour <= 23) time = `${String(hour).padStart(2, '0')}:${clock[2] ?? '00'}`;
    }
    result.recurrence = recurrence;
    rule = parseRecurrence(recurrence) ?? recurring.recurrence;
    text = recurring.rest;
  }
  const found = findOneShot(text, now, timeZone);
  if (found) {
    result.due = dayOf(found.at, timeZone);
    if (CLOCK.test(found.matched) || /\bin\s+\d+\s*(min|minute|hour|hr)/i.test(found.matched)) time = timeOf(found.at, timeZone);
    const before = text.slice(0, found.index).replace(/\s*\b(by|on|at|due|before|until|for)\s*$/i, '');
    text = `${before} ${text.slice(found.index + found.matched.length)}`;
  } else if (rule) {
    const first = firstOccurrence(rule, dayOf(now, timeZone));
    if (first) result.due = first;
  }
  if (rule && result.due !== undefined) result.due = dueWithReminder(rule, result.due, time, now, timeZone);
  if (time !== undefined && result.due !== undefined) result.reminder = `${result.due} ${time}`;
  else if (remind && result.due !== undefined) result.reminder = `${result.due} 09:00`;
  result.description = text.replace(/\s+/g, ' ').replace(/^[\s,:;-]+|[\s,:;-]+$/g, '').replace(/^(?:to|that|about)\s+/i, '').trim();
  return result;
}
