import { createHash } from 'node:crypto';
import type { App, DoctorLine } from '../app.js';
import { parseTarget } from '../channels/hub.js';
import type { Config } from '../config/schema.js';
import { ConfigError, errorMessage } from '../errors.js';
import type { Installer } from '../modules.js';
import { createSchedulerCommands } from './chat-commands.js';
import { createJobExecutor } from './runner.js';
import { Scheduler, type CreateJobInput } from './scheduler.js';
import { JobStore } from './store.js';
import { parseRunAt, validateCron } from './timing.js';
import { createScheduleTool } from './tool.js';
import { parseWhen } from './when.js';

type DeclaredJob = Config['scheduler']['jobs'][number];

const CHANNEL_WAIT_MS = 30_000;

/**
 * The scheduler: the `schedule` tool, `/jobs` and `/remind`, and a module whose start arms the timer.
 * Always installed (it needs no credentials); declared jobs are upserted here so `familiar jobs list` shows them.
 */
export const installScheduler: Installer = async (app: App) => {
  const settings = app.config.scheduler;
  if (settings.default_chat !== undefined) {
    try {
      parseTarget(settings.default_chat);
    } catch (error) {
      throw new ConfigError('scheduler.default_chat', errorMessage(error), { cause: error });
    }
  }
  settings.jobs.forEach((job, index) => checkDeclaredJob(job, index, app.config.timezone));

  const log = app.log.child({ component: 'scheduler' });
  // In the daemon, a run due at start may finish before a channel is up: delivery waits for it a little.
  // In one-off commands (`familiar jobs run`) no channel will come, so it does not wait.
  let daemon = false;
  const scheduler = new Scheduler({
    store: new JobStore(app.db),
    timeZone: app.config.timezone,
    log,
    execute: createJobExecutor(app, { channelWaitMs: () => (daemon ? CHANNEL_WAIT_MS : 0) }),
    runTimeoutMs: settings.run_timeout_s * 1000,
    catchUpWindowMs: settings.catch_up_window * 1000,
  });
  app.context.scheduler = scheduler;
  app.tools.register(createScheduleTool(app.clock, () => settings.default_chat));
  for (const [name, command] of createSchedulerCommands(scheduler, app.clock)) app.chatCommands.set(name, command);
  scheduler.upsertDeclared(settings.jobs.map(declaredToInput));

  app.modules.push({
    name: 'scheduler',
    async start() {
      daemon = true;
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
      const lines: DoctorLine[] = [{ status: 'ok', label: 'scheduler', detail: `${jobs.length} job(s), time zone ${app.config.timezone}` }];
      const homeless = jobs.filter((job) => job.deliverTo === undefined && (job.origin === undefined || job.origin.channel === 'cli'));
      if (homeless.length > 0 && settings.default_chat === undefined) {
        lines.push({
          status: 'warn', label: 'scheduler.default_chat',
          detail: `${homeless.length} job(s) made in the terminal or config have no chat to report to`,
          fix: 'set scheduler.default_chat (e.g. telegram:123456789); until then results are only logged and kept in `familiar jobs runs ID`',
        });
      }
      return lines;
    },
  });
};

/** A declared job with a malformed schedule stops the daemon at start, naming the key. */
function checkDeclaredJob(job: DeclaredJob, index: number, timeZone: string): void {
  const key = `scheduler.jobs.${index}`;
  const given = (['cron', 'run_at', 'when'] as const).filter((name) => job[name] !== undefined);
  if (given.length !== 1) throw new ConfigError(key, `give exactly one of cron, run_at or when (got ${given.length === 0 ? 'none' : given.join(' and ')})`);
  if (job.cron !== undefined) {
    const cron = validateCron(job.cron, timeZone);
    if (!cron.ok) throw new ConfigError(`${key}.cron`, cron.error);
  }
  if (job.run_at !== undefined) {
    const at = parseRunAt(job.run_at, timeZone);
    if (!at.ok) throw new ConfigError(`${key}.run_at`, at.error);
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
    // The declaration's fingerprint: an unchanged entry leaves the stored job (and its next run) alone.
    configHash: createHash('sha256').update(JSON.stringify(job)).digest('hex').slice(0, 16),
  };
}
