import type { ZonedClock } from '../lib/clock.js';
import type { Result } from '../lib/result.js';
import type { ChatCommand } from '../part.js';
import { describeNextRun, describeSchedule } from '../time/describe.js';
import { formatJob, formatJobs } from './format.js';
import { canSee, jobToChange, listFilter, scopeOf } from './ownership.js';
import type { Scheduler } from './scheduler.js';
import { findWhenInText, loadWhenParser } from '../time/when.js';

const REMIND_USAGE =
  'Usage: /remind <when> <text>, e.g. "/remind in 20 minutes check the oven", "/remind tomorrow at 9am call Mum", ' +
  '"/remind at noon water the plants", "/remind daily at 9 water the plants", "/remind every weekday at 8 stand-up", ' +
  '"/remind every 2 hours between 9 and 17 stretch", "/remind every first Monday at 10 pay the rent". ' +
  'The reminder is sent to this chat as written, without asking the assistant.';

/** A reminder's time (a cron expression or an instant), the words that said it, and its text. */
export type ReminderSplit = Result<{ when: { cron: string } | { at: number }; spec: string; text: string }>;

/**
 * Splits "/remind" arguments into a time and the text, with the same parser as the schedule tool's `when`; the
 * time may stand first or last. Contract: never throws; anything it cannot place exactly is a refusal.
 */
export function splitReminder(args: string, now: number, timeZone: string): ReminderSplit {
  const found = findWhenInText(args, now, timeZone);
  if (!found.success) return found;
  const { schedule, spec, rest } = found.value;
  const text = rest.trim().replace(/^(?:to|that|about)\s+/i, '').replace(/^[:,\-–—]\s*/, '').replace(/[\s,:;–—-]+$/, '').trim();
  return { success: true, value: { when: schedule.type === 'cron' ? { cron: schedule.cron } : { at: schedule.at }, spec, text } };
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
      if (action === undefined) return formatJobs(scheduler.list(listFilter(scope)).filter((job) => canSee(scope, job)), clock, now);
      if (id === undefined || !['pause', 'resume', 'remove'].includes(action)) return 'Usage: /jobs, or /jobs pause|resume|remove ID';
      const job = jobToChange(scope, id, scheduler.get(id));
      if (!job.success) return job.error;
      if (action === 'remove') return scheduler.remove(id) ? `Removed job ${id}.` : `No job with id "${id}".`;
      const changed = action === 'pause' ? scheduler.pause(id) : scheduler.resume(id);
      return changed.success ? formatJob(changed.value, clock, now) : changed.error;
    },
  };
  const remind: ChatCommand = {
    description: 'set a reminder: /remind in 20 minutes check the oven',
    async run({ channel, chatId, userId, args }) {
      if (args.trim() === '') return REMIND_USAGE;
      // The parser's first load can take a second on a busy machine; "in 2 seconds" counts from after it.
      loadWhenParser();
      const now = Date.now();
      // "at 9" is 9 on the sender's clock: their own zone in a household, else the daemon's.
      const result = splitReminder(args, now, scheduler.currentZone());
      if (!result.success) return `${result.error} ${REMIND_USAGE}`;
      const split = result.value;
      if (split.text === '') return `What should I remind you of? ${REMIND_USAGE}`;
      const created = scheduler.create({
        kind: 'reminder', prompt: split.text, spec: split.spec,
        ...('cron' in split.when ? { cron: split.when.cron } : { run_at: new Date(split.when.at).toISOString() }),
        origin: { channel, chatId, userId }, source: channel === 'cli' ? 'cli' : 'chat',
      });
      if (!created.success) return created.error;
      const job = created.value;
      return job.cron !== undefined
        ? `⏰ Reminder ${job.id}: ${describeSchedule(job, clock)}; first ${describeNextRun(job, clock, now)} — "${job.prompt}"`
        : `⏰ Reminder ${job.id} set for ${describeNextRun(job, clock, now)} — "${job.prompt}"`;
    },
  };
  return new Map([['jobs', jobs], ['remind', remind]]);
}
