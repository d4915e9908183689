import { People } from '../config/people.js';
import type { Config } from '../config/schema.js';
import { ZonedClock } from '../lib/clock.js';
import { formatJob, formatJobs, formatRun } from '../scheduler/format.js';
import { Scheduler } from '../scheduler/scheduler.js';
import { JobStore } from '../scheduler/store.js';
import type { Job } from '../scheduler/types.js';
import type { Command, CommandContext } from './context.js';
import { parseCommandArgs } from './args.js';
import { optionsOf } from './spec.js';

const USAGE = `usage: familiar jobs <action>
  list [--all] [--json]            jobs with their schedule and next run (--all: finished one-shots too)
  add (--cron EXPR | --at ISO | --when TEXT) [--id ID] [--catch-up once|skip] [--deliver-to telegram:123] [--remind] "prompt"
  remove ID | pause ID | resume ID
  run ID                           run it now, here; the result is printed (and delivered if its chat's channel runs here)
  runs ID [--limit N] [--json]     the run log: status, start, duration, error, output excerpt
`;


/** `familiar jobs list|add|remove|pause|resume|run ID|runs ID`: the same jobs the daemon runs (one SQLite file). */
export const jobsCommand: Command = async (context) => {
  let parsed;
  try {
    parsed = parseCommandArgs(context.args, optionsOf('jobs'));
  } catch (error) {
    context.io.stderr.write(`familiar jobs: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  const [action, ...rest] = parsed.positionals;
  if (action === undefined || !['list', 'add', 'remove', 'pause', 'resume', 'run', 'runs'].includes(action)) {
    context.io.stderr.write(USAGE);
    return 2;
  }
  if (action === 'run') return runJob(rest[0], context);
  // Every other action reads or edits the jobs table only: no turn, no timer, nothing the daemon is doing.
  const { config } = context.loadConfig();
  const db = context.openDatabase();
  try {
    const people = new People(config);
    const scheduler = new Scheduler({
      store: new JobStore(db), timeZone: config.timezone, log: context.logger('quiet'),
      execute: () => Promise.reject(new Error('jobs do not run in this command')),
      runTimeoutMs: config.scheduler.run_timeout_s * 1000, catchUpWindowMs: config.scheduler.catch_up_window * 1000,
      personZone: (person) => people.get(person)?.timezone,
    });
    // The terminal is the owner's: in a household a job made here is theirs, timed in their zone.
    return await people.asOwner(() => dispatch(action, rest, parsed.values, { config, clock: new ZonedClock(config.timezone), scheduler, context }));
  } finally {
    db.close();
  }
};

/** `jobs run ID`: one run now, in this process (the agent and the tools are made for it). */
async function runJob(id: string | undefined, context: CommandContext): Promise<number> {
  if (id === undefined) {
    context.io.stderr.write('familiar jobs: run needs a job id (see familiar jobs list)\n');
    return 2;
  }
  const app = await context.daemon('command');
  try {
    const result = await app.scheduler.runNow(id);
    if (!result.success) {
      context.io.stderr.write(`familiar jobs: ${result.error}\n`);
      return 1;
    }
    const { status, output, error, shown } = result.value;
    // As a chat would be shown it: a result made from outside content says so, its links inert.
    (status === 'ok' ? context.io.stdout : context.io.stderr).write(`${(output ? shown ?? output : '') || error || ''}\n`);
    if (error && output) context.io.stderr.write(`note: ${error}\n`);
    return status === 'ok' ? 0 : 1;
  } finally {
    await app.close(1000);
  }
}

type Values = ReturnType<typeof parseCommandArgs>['values'];

async function dispatch(action: string, rest: string[], values: Values, env: { config: Config; clock: ZonedClock; scheduler: Scheduler; context: CommandContext }): Promise<number> {
  const { config, clock, scheduler, context } = env;
  const out = (text: string) => context.io.stdout.write(`${text}\n`);
  const err = (text: string) => context.io.stderr.write(`familiar jobs: ${text}\n`);
  const now = Date.now();
  const id = rest[0];
  if (action === 'list') {
    const jobs = scheduler.list({ includeDone: values.all === true });
    if (context.options.json) out(JSON.stringify(jobs.map(toJson), null, 2));
    else out(formatJobs(jobs, clock, now));
    return 0;
  }
  if (action === 'add') {
    const prompt = rest.join(' ').trim();
    const catchUp = values['catch-up'];
    if (catchUp !== undefined && catchUp !== 'once' && catchUp !== 'skip') {
      err('--catch-up must be once or skip');
      return 2;
    }
    const created = scheduler.create({
      prompt, kind: values.remind === true ? 'reminder' : 'agent', source: 'cli',
      cron: str(values.cron), run_at: str(values.at), when: str(values.when), id: str(values.id),
      catchUp, deliverTo: str(values['deliver-to']),
    });
    if (!created.success) {
      err(prompt === '' ? `give the prompt as the last argument. ${created.error}` : created.error);
      return 2;
    }
    out(formatJob(created.value, clock, now));
    if (created.value.deliverTo === undefined && config.scheduler.default_chat === undefined) {
      context.io.stderr.write('note: scheduler.default_chat is not set, so results of this job are only logged and kept in `familiar jobs runs`\n');
    }
    return 0;
  }
  if (id === undefined) {
    err(`${action} needs a job id (see familiar jobs list)`);
    return 2;
  }
  switch (action) {
    case 'remove':
      if (!scheduler.remove(id)) return notFound(err, id);
      out(`removed ${id}`);
      return 0;
    case 'pause':
    case 'resume': {
      const changed = action === 'pause' ? scheduler.pause(id) : scheduler.resume(id);
      if (!changed.success) {
        err(changed.error);
        return 1;
      }
      out(formatJob(changed.value, clock, now));
      return 0;
    }
    case 'runs': {
      if (!scheduler.get(id)) return notFound(err, id);
      const limit = Number(values.limit ?? 20);
      const runs = scheduler.runs(id, Number.isInteger(limit) && limit > 0 ? limit : 20);
      if (context.options.json) out(JSON.stringify(runs, null, 2));
      else out(runs.length === 0 ? `${id} has not run yet` : runs.map((run) => formatRun(run, clock)).join('\n'));
      return 0;
    }
  }
  return 2;
}

function notFound(err: (text: string) => void, id: string): number {
  err(`no job with id "${id}" (see familiar jobs list)`);
  return 1;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function toJson(job: Job) {
  return {
    id: job.id, kind: job.kind, cron: job.cron ?? null, run_at: job.runAt !== undefined ? new Date(job.runAt).toISOString() : null,
    spec: job.spec, tz: job.tz, prompt: job.prompt, catch_up: job.catchUp, enabled: job.enabled, source: job.source,
    origin: job.origin ?? null, deliver_to: job.deliverTo ?? null,
    next_run_at: job.nextRunAt !== undefined ? new Date(job.nextRunAt).toISOString() : null,
    done: job.doneAt !== undefined,
  };
}
