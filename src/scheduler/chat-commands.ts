import type { ZonedClock } from '../agent/clock.js';
import type { ChatCommand } from '../app.js';
import { describeNextRun, describeSchedule, formatJob, formatJobs } from './format.js';
import { jobToChange, listFilter, scopeOf } from './ownership.js';
import type { Scheduler } from './scheduler.js';
import { findOneShot, parseRecurrence } from './when.js';

const REMIND_USAGE =
  'Usage: /remind <when> <text>, e.g. "/remind in 20 minutes check the oven", "/remind tomorrow at 9am call Mum", ' +
  '"/remind every weekday at 8 stand-up". The reminder is sent to this chat as written, without asking the assistant.';

/** Splits "/remind" arguments into a time and the text; the time may stand first or last. */
export function splitReminder(args: string, now: number, timeZone: string): { when: { cron: string } | { at: number }; spec: string; text: string } | undefined {
  const clean = (text: string) => text.trim().replace(/^(?:to|that|about)\s+/i, '').replace(/^[:,\-–—]\s*/, '').trim();
  const recurrence = parseRecurrence(args);
  if (recurrence) return { when: { cron: recurrence.cron }, spec: recurrence.matched.trim(), text: clean(args.trim().slice(recurrence.matched.length)) };
  const oneShot = findOneShot(args, now, timeZone);
  if (!oneShot) return undefined;
  const text = clean(`${args.slice(0, oneShot.index)} ${args.slice(oneShot.index + oneShot.matched.length)}`.replace(/\s+/g, ' '));
  return { when: { at: oneShot.at }, spec: oneShot.matched.trim(), text };
}

/**
 * `/jobs` (list; `/jobs pause|resume|remove ID`) and `/remind <when> <text>`, answered without an LLM call.
 * `/jobs` sees and changes only the calling chat's jobs (`ownership.ts`).
 */
export function createSchedulerCommands(scheduler: Scheduler, clock: ZonedClock): Map<string, ChatCommand> {
  const jobs: ChatCommand = {
    description: 'this chat\'s scheduled jobs and reminders (/jobs pause|resume|remove ID)',
    async run({ channel, chatId, userId, args }) {
      const [action, id] = args.split(/\s+/).filter(Boolean);
      const now = Date.now();
      const scope = scopeOf({ channel, chatId, userId });
      if (action === undefined) return formatJobs(scheduler.list(listFilter(scope)), clock, now);
      if (id === undefined || !['pause', 'resume', 'remove'].includes(action)) return 'Usage: /jobs, or /jobs pause|resume|remove ID';
      const job = jobToChange(scope, id, scheduler.get(id));
      if (!job.success) return job.error;
      if (action === 'remove') return scheduler.remove(id) ? `Removed job ${id}.` : `No job with id "${id}".`;
      const changed = action === 'pause' ? scheduler.pause(id) : scheduler.resume(id);
      return changed.ok ? formatJob(changed.value, clock, now) : changed.error;
    },
  };
  const remind: ChatCommand = {
    description: 'set a reminder: /remind in 20 minutes check the oven',
    async run({ channel, chatId, userId, args }) {
      if (args.trim() === '') return REMIND_USAGE;
      const now = Date.now();
      const split = splitReminder(args, now, scheduler.timeZone);
      if (!split) return `I could not find a time in "${args}". ${REMIND_USAGE}`;
      if (split.text === '') return `What should I remind you of? ${REMIND_USAGE}`;
      const created = scheduler.create({
        kind: 'reminder', prompt: split.text, spec: split.spec,
        ...('cron' in split.when ? { cron: split.when.cron } : { run_at: new Date(split.when.at).toISOString() }),
        origin: { channel, chatId, userId }, source: channel === 'cli' ? 'cli' : 'chat',
      });
      if (!created.ok) return created.error;
      const job = created.value;
      return job.cron !== undefined
        ? `⏰ Reminder ${job.id}: ${describeSchedule(job, clock)}; first ${describeNextRun(job, clock, now)} — "${job.prompt}"`
        : `⏰ Reminder ${job.id} set for ${describeNextRun(job, clock, now)} — "${job.prompt}"`;
    },
  };
  return new Map([['jobs', jobs], ['remind', remind]]);
}
