import type { ZonedClock } from '../lib/clock.js';
import { fail, ok, type NativeTool, type ToolCallContext, type ToolResult } from '../tools/types.js';
import type { Delivery } from '../delivery/types.js';
import { describeNextRun, describeSchedule } from '../time/describe.js';
import { formatJob, formatJobs } from './format.js';
import { canSee, jobToChange, listFilter, scopeOf } from './ownership.js';
import { deliveryTarget } from './runner.js';
import type { Scheduler } from './scheduler.js';
import type { Job } from './types.js';
import { WHEN_FORMS } from '../time/when.js';

export interface ScheduleParams {
  action: 'create' | 'list' | 'delete' | 'pause' | 'resume' | 'update';
  id?: string;
  cron?: string;
  run_at?: string;
  when?: string;
  prompt?: string;
  catch_up?: 'once' | 'skip';
}

interface ScheduleDeps {
  scheduler: Scheduler;
  clock: ZonedClock;
  delivery: Delivery;
}

const DESCRIPTION =
  'Create and manage scheduled jobs. A job runs its prompt later, unattended, and its answer is sent to this chat. ' +
  `create needs prompt (what to do, written as an instruction to yourself) and one of: when (natural language: ${WHEN_FORMS}), ` +
  'cron (5 fields, or 6 with seconds first), or run_at (ISO time; without an offset it is read in the user\'s time zone). ' +
  'catch_up: "once" (default: run once if runs were missed while offline) or "skip". list shows this chat\'s jobs with their next run; ' +
  'delete, pause, resume need id; update needs id and the fields to change (only jobs made in this chat).';

const PARAMETERS = {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['create', 'list', 'delete', 'pause', 'resume', 'update'] },
    id: { type: 'string', description: 'The job id (from create or list).' },
    cron: { type: 'string', description: 'e.g. "0 8 * * 1-5" (weekdays 08:00) or "*/30 * * * * *" (every 30 s).' },
    run_at: { type: 'string', description: 'e.g. "2026-12-24T18:00".' },
    when: { type: 'string', description: 'e.g. "tomorrow at 9am", "in 2 hours", "every weekday at 8".' },
    prompt: { type: 'string', description: 'What to do when the job runs.' },
    catch_up: { type: 'string', enum: ['once', 'skip'] },
  },
  required: ['action'],
  additionalProperties: false,
};

/**
 * The `schedule` tool: the model creates and manages jobs; a job remembers the chat (and person) it was made in,
 * and a chat lists and changes only its own jobs (`ownership.ts`); the terminal sees all.
 */
export function createScheduleTool(deps: ScheduleDeps): NativeTool<ScheduleParams> {
  return {
    name: 'schedule',
    description: DESCRIPTION,
    parameters: PARAMETERS,
    // Every change to what runs later is one the person should see when outside content is in play; listing is not.
    effects: (params: ScheduleParams) => (params.action === 'list' ? [] : [{ kind: 'persist', target: 'job', runs: true, what: `${params.action} of a scheduled job${params.prompt ? ` that will run "${params.prompt.slice(0, 200)}"` : params.id ? ` (${params.id})` : ''}` }]),
    async execute(params, ctx) {
      const now = Date.now();
      switch (params.action) {
        case 'create':
          return createJob(deps, params, ctx, now);
        case 'list':
          const scope = scopeOf(ctx.origin);
          return ok(formatJobs(deps.scheduler.list(listFilter(scope)).filter((job) => canSee(scope, job)), deps.clock, now));
        case 'delete':
        case 'pause':
        case 'resume':
        case 'update':
          return changeJob(deps, params, ctx, now);
      }
      return fail('Unknown action; use create, list, delete, pause, resume or update.');
    },
  };
}

/** What the person is told of a job made or changed: its schedule, its next run and where its results go. */
function described(deps: ScheduleDeps, job: Job, verb: string, now: number): string {
  const target = deliveryTarget(deps.delivery, job);
  return [
    `${verb} job ${job.id}: ${describeSchedule(job, deps.clock)}.`,
    `Next run: ${describeNextRun(job, deps.clock, now)}.`,
    target !== undefined ? `Results go to ${target}.` : 'Results have no chat to go to (scheduler.default_chat is not set); they are kept in the run log.',
  ].join('\n');
}

function createJob(deps: ScheduleDeps, params: ScheduleParams, ctx: ToolCallContext, now: number): ToolResult {
  if (params.prompt === undefined || params.prompt.trim() === '') return fail('create needs prompt: what to do when the job runs.');
  const created = deps.scheduler.create({
    id: params.id, prompt: params.prompt, cron: params.cron, run_at: params.run_at, when: params.when, catchUp: params.catch_up,
    origin: ctx.origin, source: ctx.origin.channel === 'cli' ? 'cli' : 'chat',
    // Made while outside content is in play (and approved by the person): its runs start tainted.
    sources: ctx.taint,
  });
  return created.success ? ok(described(deps, created.value, 'Created', now)) : fail(created.error);
}

/** delete, pause, resume and update: only a job this chat may change; another chat's job is reported as missing. */
function changeJob(deps: ScheduleDeps, params: ScheduleParams, ctx: ToolCallContext, now: number): ToolResult {
  const { scheduler, clock } = deps;
  if (params.id === undefined || params.id.trim() === '') return fail(`action "${params.action}" needs id; call schedule with action "list" to see the ids.`);
  const id = params.id;
  const job = jobToChange(scopeOf(ctx.origin), id, scheduler.get(id));
  if (!job.success) return fail(job.error);
  if (params.action === 'delete') {
    return scheduler.remove(id) ? ok(`Deleted job ${id}.`) : fail(`No job with id "${id}"; call schedule with action "list" to see the ids.`);
  }
  if (params.action === 'pause' || params.action === 'resume') {
    const changed = params.action === 'pause' ? scheduler.pause(job.value.id) : scheduler.resume(job.value.id);
    return changed.success ? ok(formatJob(changed.value, clock, now)) : fail(changed.error);
  }
  const updated = scheduler.update(job.value.id, { prompt: params.prompt, cron: params.cron, run_at: params.run_at, when: params.when, catchUp: params.catch_up, sources: ctx.taint });
  return updated.success ? ok(described(deps, updated.value, 'Updated', now)) : fail(updated.error);
}
