import { currentZone } from '../lib/person-scope.js';
import type { Result } from '../lib/result.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import { describeCron, nextOccurrence, parseRunAt } from '../time/timing.js';
import { parseWhenText, WHEN_FORMS } from '../time/when.js';
import { fail, type AnyTool, type ToolCallContext } from '../tools/types.js';
import { dayOf, timeOf } from './dates.js';
import type { ReminderStore } from './reminder-store.js';
import { outsideSources } from './reminders.js';
import type { NotesServices } from './services.js';
import { matchTask } from './task-match.js';

export interface ReminderCreateParams {
  title: string;
  description?: string;
  when: string;
  task?: string;
}

type When = { type: 'once'; at: number } | { type: 'cron'; cron: string };

const ISO_START = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * `reminder_create` (seed 003's reminderCreate): a reminder sent as written when due — no LLM call — with Snooze and
 * Done buttons; `when` in words through the one parser `schedule` uses, in the person's time zone; `task` links it
 * to a task, which Done then ticks.
 */
export function createReminderTool(services: NotesServices, deps: { scheduler: Scheduler; store: ReminderStore }): AnyTool {
  return {
    name: 'reminder_create',
    aliases: ['reminderCreate'],
    description:
      'Remind the person of something at a time: the title (and description) is sent to this chat as written when due, without asking you again, with Snooze and Done buttons. ' +
      `when is natural language in the person's time zone (${WHEN_FORMS}) or an ISO time. task links it to a task (its id, or words from it): Done then ticks that task. ` +
      'For work to be done later (look something up, write a summary), use schedule instead.',
    parameters: {
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 200, description: 'what to remind of, as the person should read it ("Call the dentist")' },
        description: { type: 'string', maxLength: 2000, description: 'more detail, sent under the title' },
        when: { type: 'string', minLength: 1, description: 'e.g. "tomorrow at 3pm", "in 20 minutes", "next friday 9:00", "every weekday at 8", "2026-12-24T18:00"' },
        task: { type: 'string', minLength: 1, description: 'the task it is about: its id from task_search, or words that match one open task' },
      },
      required: ['title', 'when'],
      additionalProperties: false,
    },
    // A reminder only sends its own text to the person: it persists, and never runs a prompt.
    effects: (params: ReminderCreateParams) => [{ kind: 'persist', target: 'job', runs: false, what: `a reminder "${params.title.slice(0, 200)}" (${params.when.slice(0, 100)})` }],
    async execute(params: ReminderCreateParams, ctx) {
      const now = services.now();
      // "at 9" is 9 on the person's clock: their own zone in a household.
      const zone = currentZone(services.timeZone);
      const when = readWhen(params.when, now, zone);
      if (!when.success) return fail(when.error);
      let task: string | undefined;
      if (params.task !== undefined) {
        const found = matchTask(services.tasks.files, params.task);
        if (!found.success) return fail(found.error);
        if (!found.value.open) return fail(`The task "${found.value.description}" is already done; link the reminder to an open task, or leave task out.`);
        task = found.value.id ?? found.value.ref;
      }
      const text = [params.title.trim(), params.description?.trim() ?? ''].filter((part) => part !== '').join('\n');
      const chat = ctx.unattended ? undefined : ctx.origin;
      const created = deps.scheduler.create({
        kind: 'reminder', prompt: text, spec: params.when.trim(),
        // A time that was ahead when read stays valid: a turn slowed down past it ("in 1 second") fires at once.
        ...(when.value.type === 'cron' ? { cron: when.value.cron } : { run_at: new Date(Math.max(when.value.at, services.now() + 1000)).toISOString() }),
        ...(chat ? { origin: chat } : {}),
        source: chat && chat.channel !== 'cli' ? 'chat' : 'cli',
        // Written while outside content is in play (and not all the person's own words): delivered saying so.
        sources: outsideSources(text),
      });
      if (!created.success) return fail(created.error);
      if (task !== undefined) deps.store.link(created.value.id, task);
      return { success: true, output: confirmation(created.value.id, when.value, params.title.trim(), task, zone, now, ctx) };
    },
  };
}

/** Words through the one `when` parser; an ISO time as `run_at` reads it. Refusals say what works. */
function readWhen(text: string, now: number, timeZone: string): Result<When> {
  const value = text.trim();
  if (ISO_START.test(value)) {
    const at = parseRunAt(value, timeZone);
    if (!at.success) return at;
    return at.value > now ? { success: true, value: { type: 'once', at: at.value } } : { success: false, error: `${value} is already past; give a future time.` };
  }
  const parsed = parseWhenText(value, now, timeZone);
  if (!parsed.success) return { success: false, error: `Could not read the time "${value}": ${parsed.error} when accepts ${WHEN_FORMS}, or an ISO time.` };
  const { schedule } = parsed.value;
  if (schedule.type === 'once' && schedule.at <= now) return { success: false, error: `"${value}" is already past; give a future time.` };
  return { success: true, value: schedule };
}

function confirmation(id: string, when: When, title: string, task: string | undefined, timeZone: string, now: number, ctx: ToolCallContext): string {
  const at = when.type === 'once' ? when.at : nextOccurrence(when.cron, now, timeZone);
  const next = at === undefined ? 'never' : `${dayOf(at, timeZone)} ${timeOf(at, timeZone)} (${timeZone})`;
  const schedule = when.type === 'once' ? `for ${next}` : `${describeCron(when.cron)}; first ${next}`;
  const where = ctx.unattended || ctx.origin.channel === 'cli' ? 'scheduler.default_chat' : 'this chat';
  return `Reminder ${id} set ${schedule}: "${title}"${task !== undefined ? `, about task ${task} (Done ticks it)` : ''}. It goes to ${where} as written, with Snooze and Done buttons; no model call when it fires.`;
}
