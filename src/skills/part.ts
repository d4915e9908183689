import type { Database } from '../db/database.js';
import type { DoctorLine, Part } from '../part.js';
import type { JobExecutors, Scheduler } from '../scheduler/scheduler.js';
import { seedFolder } from '../config/seed-folders.js';
import { createSkillJobExecutor, isSkillJob, SkillScheduling } from './schedule.js';
import { SkillService, type SkillsDeps } from './service.js';
import { SkillStore } from './store.js';
import { createSkillTools } from './tools.js';

/** How often the daemon re-reads the skills folder, so hand edits of status or trigger reach the scheduler. */
export const RESYNC_MS = 30_000;

export interface SkillsPartDeps extends SkillsDeps {
  db: Database;
  /** Cron skills run through it; undefined where no scheduler is made. */
  scheduler: Scheduler | undefined;
  /** Where relative hub folders and archives are read from (the config file's folder). */
  baseDir: string;
}

/**
 * Skills: the five tools, the service the command line uses, and a part whose start puts active cron skills on
 * the scheduler (and keeps them in step with the folder). Needs no credentials. A malformed skill is logged and
 * listed with its reason; it never stops the daemon. Making it changes nothing: the jobs of skills are brought in
 * line with the folder at start and by the commands that change a skill.
 */
export function createSkillsPart(deps: SkillsPartDeps): { part: Part; service: SkillService; executors: JobExecutors } {
  const log = deps.log.child({ component: 'skills' });
  seedFolder('skills', deps.config.skills_dir, log);
  const store = new SkillStore({ dir: deps.config.skills_dir, db: deps.db, timeZone: deps.config.timezone });
  const scheduling = new SkillScheduling({ scheduler: deps.scheduler, store, log });
  const service = new SkillService(deps, store, scheduling);
  // The scheduler keeps timing, ledger and exactly-once claims for `skill-*` jobs; their runs are the skill's (the
  // root hands the executor to the scheduler).
  const executors: JobExecutors = [{ owns: isSkillJob, execute: createSkillJobExecutor({ log: deps.log, delivery: deps.delivery, store, runner: service.runner, scheduling, makers: service.makers }) }];

  // Skills whose folder was removed by hand lose their maker, so a folder dropped in later under the same id is the owner's.
  const resync = (): void => {
    scheduling.syncAll();
    if (service.makers.household) store.pruneMakers(store.ids());
  };
  let timer: NodeJS.Timeout | undefined;
  const part: Part = {
    name: 'skills',
    tools: createSkillTools(service, { baseDir: deps.baseDir }),
    async start() {
      const interrupted = store.markInterrupted();
      if (interrupted > 0) log.warn({ interrupted }, 'skills: runs cut by a crash or kill were marked failed');
      // A draft's or paused skill's cron is checked when it is shown or activated, not here (ScheduleCheck).
      const entries = store.list('active');
      const invalid = entries.filter((entry) => !entry.success);
      for (const entry of invalid) log.warn({ skill: entry.id }, `skills: ${entry.id} is not valid and is skipped: ${entry.error}`);
      resync();
      const active = entries.filter((entry) => entry.success && entry.value.status === 'active').length;
      log.info({ skills: entries.length, active, invalid: invalid.length, dir: store.dir }, `skills: ${entries.length} skill(s), ${active} active`);
      timer = setInterval(resync, RESYNC_MS);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
    async doctor() {
      const summaries = service.list();
      const lines: DoctorLine[] = [{ status: 'ok', label: 'skills', detail: `${summaries.length} skill(s) in ${store.dir}` }];
      for (const summary of summaries.filter((entry) => entry.problem !== undefined)) {
        lines.push({ status: 'warn', label: `skills: ${summary.id}`, detail: summary.problem ?? '', fix: `see familiar skills show ${summary.id}` });
      }
      return lines;
    },
  };
  return { part, service, executors };
}
