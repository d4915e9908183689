import path from 'node:path';
import type { App, DoctorLine } from '../app.js';
import type { Installer } from '../modules.js';
import { seedFolder } from '../ops/seed-folders.js';
import { createSkillJobExecutor, isSkillJob, SkillScheduling } from './schedule.js';
import { SkillService } from './service.js';
import { SkillStore } from './store.js';
import { createSkillTools } from './tools.js';

/** How often the daemon re-reads the skills folder, so hand edits of status or trigger reach the scheduler. */
export const RESYNC_MS = 30_000;
const CHANNEL_WAIT_MS = 30_000;

/**
 * Skills: the five tools, `app.context.skills` for the CLI, and a module whose start puts active cron
 * skills on the scheduler (and keeps them in step with the folder). Always installed: skills need no
 * credentials. A malformed skill is logged and listed with its reason; it never stops the daemon.
 */
export const installSkills: Installer = async (app: App) => {
  const log = app.log.child({ component: 'skills' });
  seedFolder('skills', app.config.skills_dir, log);
  const store = new SkillStore({ dir: app.config.skills_dir, db: app.db, timeZone: app.config.timezone });
  const scheduler = app.context.scheduler;
  let daemon = false;
  const scheduling = new SkillScheduling({ scheduler, store, log });
  const service = new SkillService(app, store, scheduling);
  // The scheduler keeps timing, ledger and exactly-once claims for `skill-*` jobs; their runs are the skill's.
  scheduler?.addExecutor(isSkillJob, createSkillJobExecutor(app, { store, runner: service.runner, scheduling, channelWaitMs: () => (daemon ? CHANNEL_WAIT_MS : 0) }));
  app.context.skills = service;
  const baseDir = app.loaded.source === 'file' ? path.dirname(app.loaded.path) : process.cwd();
  for (const tool of createSkillTools(service, { baseDir })) app.tools.register(tool);
  // Also here, not only at start: `familiar jobs list` and `familiar skills …` in another process see the same jobs.
  scheduling.syncAll();

  let timer: NodeJS.Timeout | undefined;
  app.modules.push({
    name: 'skills',
    async start() {
      daemon = true;
      const interrupted = store.markInterrupted();
      if (interrupted > 0) log.warn({ interrupted }, 'skills: runs cut by a crash or kill were marked failed');
      const summaries = service.list();
      for (const summary of summaries.filter((entry) => !entry.ok)) log.warn({ skill: summary.id }, `skills: ${summary.id} is not valid and is skipped: ${summary.problem ?? ''}`);
      scheduling.syncAll();
      const active = summaries.filter((summary) => summary.ok && summary.status === 'active').length;
      log.info({ skills: summaries.length, active, invalid: summaries.filter((summary) => !summary.ok).length, dir: store.dir }, `skills: ${summaries.length} skill(s), ${active} active`);
      timer = setInterval(() => scheduling.syncAll(), RESYNC_MS);
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
  });
};
