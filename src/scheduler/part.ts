import { createHash } from 'node:crypto';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/database.js';
import { ConfigError, errorMessage } from '../errors.js';
import type { ZonedClock } from '../lib/clock.js';
import { parseTarget } from '../lib/target.js';
import type { Logger } from '../log.js';
import type { DoctorLine, Part } from '../part.js';
import type { SchedulerAccess } from '../tools/context.js';
import type { Delivery } from '../delivery/types.js';
import type { StartTurn } from '../turns/types.js';
import { schedulerAccess } from './access.js';
import { createSchedulerCommands } from './chat-commands.js';
import { createJobExecutor } from './runner.js';
import { Scheduler, type CreateJobInput } from './scheduler.js';
import { JobStore } from './store.js';
import { parseRunAt, validateCron } from '../time/timing.js';
import { createScheduleTool } from './tool.js';
import { parseWhen } from '../time/when.js';
import { parsePhrases } from '../lib/phrases.js';

type DeclaredJob = Config['scheduler']['jobs'][number];

export interface SchedulerPartDeps {
  config: Config;
  db: Database;
  clock: ZonedClock;
  log: Logger;
  startTurn: StartTurn;
  delivery: Delivery;
  /** In a household, who is who (read live): a person's jobs are timed in their own `timezone`. */
  people?: { get(name: string): { timezone?: string | undefined } | undefined };
}

export interface SchedulerPart {
  scheduler: Scheduler;
  /** Stores `scheduler.jobs` again (after a config reload changed it): new ones added, changed ones updated, gone ones removed. */
  syncDeclared(): void;
  /** What tools get as `ctx.scheduler`. */
  access: SchedulerAccess;
  part: Part;
}

/**
 * The scheduler: the `schedule` tool, `/jobs` and `/remind`, and a part whose start stores the jobs declared in
 * config, marks runs cut by a crash and arms the timer. Needs no credentials. Making it has no side effects:
 * a one-shot command can build it to add or list jobs without running any.
 * Contract: throws ConfigError for a malformed `scheduler` section.
 */
export function createSchedulerPart(deps: SchedulerPartDeps): SchedulerPart {
  const { config, clock } = deps;
  const settings = config.scheduler;
  checkSchedulerConfig(config);

  const log = deps.log.child({ component: 'scheduler' });
  const scheduler = new Scheduler({
    store: new JobStore(deps.db),
    timeZone: config.timezone,
    log,
    execute: createJobExecutor({ config, startTurn: deps.startTurn, delivery: deps.delivery, log }),
    runTimeoutMs: settings.run_timeout_s * 1000,
    catchUpWindowMs: settings.catch_up_window * 1000,
    ...(deps.people ? { personZone: (person: string) => deps.people?.get(person)?.timezone } : {}),
  });

  const part: Part = {
    name: 'scheduler',
    tools: [createScheduleTool({ scheduler, clock, delivery: deps.delivery })],
    commands: createSchedulerCommands(scheduler, clock),
    async start() {
      scheduler.upsertDeclared(settings.jobs.map(declaredToInput));
      scheduler.start();
      const jobs = scheduler.store.count();
      log.info({ jobs, nextWake: new Date(scheduler.nextWake() ?? Date.now()).toISOString() }, `scheduler: ${jobs} job(s)`);
    },
    async stop() {
      scheduler.stop();
    },
    async close() {
      await scheduler.close();
    },
    async doctor() {
      const jobs = scheduler.list();
      const lines: DoctorLine[] = [{ status: 'ok', label: 'scheduler', detail: `${jobs.length} job(s), time zone ${config.timezone}` }];
      const homeless = jobs.filter((job) => deps.delivery.targetFor(job.origin, job.deliverTo) === undefined);
      if (homeless.length > 0) {
        lines.push({
          status: 'warn', label: 'scheduler.default_chat',
          detail: `${homeless.length} job(s) made in the terminal or config have no chat to report to`,
          fix: 'set scheduler.default_chat (e.g. telegram:123456789); until then results are only logged and kept in `familiar jobs runs ID`',
        });
      }
      return lines;
    },
  };
  return { scheduler, access: schedulerAccess(scheduler), part, syncDeclared: () => scheduler.upsertDeclared(settings.jobs.map(declaredToInput)) };
}

/** The `scheduler` section's checks (a start's, and a reload's before anything is applied). Throws ConfigError. */
export function checkSchedulerConfig(config: Config): void {
  const settings = config.scheduler;
  if (settings.default_chat !== undefined) {
    try {
      parseTarget(settings.default_chat);
    } catch (error) {
      throw new ConfigError('scheduler.default_chat', errorMessage(error), { cause: error });
    }
  }
  settings.jobs.forEach((job, index) => {
    checkDeclaredJob(job, index, config.timezone);
    const source = job.trigger?.source;
    if (source?.startsWith('webhook:') === true && !Object.hasOwn(config.triggers.webhooks, source.slice('webhook:'.length))) {
      throw new ConfigError(`scheduler.jobs.${index}.trigger.source`, `names no route of triggers.webhooks (${Object.keys(config.triggers.webhooks).join(', ') || 'none configured'})`);
    }
  });
}

/** A declared job with a malformed schedule stops the daemon at start, naming the key. */
function checkDeclaredJob(job: DeclaredJob, index: number, timeZone: string): void {
  const key = `scheduler.jobs.${index}`;
  const given = (['cron', 'run_at', 'when', 'trigger'] as const).filter((name) => job[name] !== undefined);
  if (given.length !== 1) throw new ConfigError(key, `give exactly one of cron, run_at, when or trigger (got ${given.length === 0 ? 'none' : given.join(' and ')})`);
  if (job.trigger?.match !== undefined && parsePhrases(job.trigger.match) === undefined) throw new ConfigError(`${key}.trigger.match`, 'has no word or phrase (e.g. "deploy, build failed")');
  if (job.cron !== undefined) {
    const cron = validateCron(job.cron, timeZone);
    if (!cron.success) throw new ConfigError(`${key}.cron`, cron.error);
  }
  if (job.run_at !== undefined) {
    const at = parseRunAt(job.run_at, timeZone);
    if (!at.success) throw new ConfigError(`${key}.run_at`, at.error);
  }
  if (job.when !== undefined && parseWhen(job.when, Date.now(), timeZone) === undefined) {
    throw new ConfigError(`${key}.when`, `"${job.when}" is not a time I understand (e.g. "every weekday at 8", "every Monday at 9")`);
  }
  if (job.deliver_to !== undefined) {
    try {
      parseTarget(job.deliver_to);
    } catch (error) {
      throw new ConfigError(`${key}.deliver_to`, errorMessage(error), { cause: error });
    }
  }
}

function declaredToInput(job: DeclaredJob): CreateJobInput {
  return {
    id: job.id, prompt: job.prompt, cron: job.cron, run_at: job.run_at, when: job.when, catchUp: job.catch_up,
    deliverTo: job.deliver_to, approve: job.approve, enabled: job.enabled, source: 'config',
    ...(job.trigger ? { trigger: { source: job.trigger.source, ...(job.trigger.match !== undefined ? { match: job.trigger.match } : {}) } } : {}),
    // The declaration's fingerprint: an unchanged entry leaves the stored job (and its next run) alone.
    configHash: createHash('sha256').update(JSON.stringify(job)).digest('hex').slice(0, 16),
  };
}
