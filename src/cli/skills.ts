import { People } from '../config/people.js';
import { ZonedClock } from '../lib/clock.js';
import { installFromHub } from '../skills/hub-install.js';
import { Scheduler } from '../scheduler/scheduler.js';
import { JobStore } from '../scheduler/store.js';
import { SkillScheduling } from '../skills/schedule.js';
import { SkillCatalog, type ManageAction, type SkillService } from '../skills/service.js';
import { SkillStore } from '../skills/store.js';
import type { Command, CommandContext } from './context.js';
import { parseCommandArgs } from './args.js';
import { optionsOf } from './spec.js';

const USAGE = `usage: familiar skills <action>
  list [--json]                    every skill: status, trigger, next run, last run; invalid ones with the reason
  show ID                          its frontmatter, files, scripts, tools, network needs, origin and recent runs
  run ID [input…]                  run it now, here; the result is printed (a paused or draft skill runs because you named it)
  install SOURCE [--id ID]         from a hub (git URL, folder or .tar.gz with index.json); lands as a quarantined draft
  activate ID [--repin]            turn it on (its test must pass in the sandbox); --repin accepts local changes to a hub skill
  pause ID | resume ID             stop / restart its schedule at once
  remove ID                        delete its folder (and its lock entry and schedule)
`;


const ACTIONS = ['list', 'show', 'run', 'install', 'activate', 'pause', 'resume', 'remove'];

/** `familiar skills list|show|run|install|activate|pause|resume|remove`: the same skills the daemon runs. */
export const skillsCommand: Command = async (context) => {
  let parsed;
  try {
    parsed = parseCommandArgs(context.args, optionsOf('skills'));
  } catch (error) {
    context.io.stderr.write(`familiar skills: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  const [action, ...rest] = parsed.positionals;
  if (action === undefined || !ACTIONS.includes(action)) {
    context.io.stderr.write(USAGE);
    return 2;
  }
  if (action !== 'list' && rest[0] === undefined) {
    context.io.stderr.write(`familiar skills: ${action} needs ${action === 'install' ? 'a source' : 'a skill id (see familiar skills list)'}\n`);
    return 2;
  }
  if (action === 'list') return readOnly(action, '', context);
  // `show` also needs the tools (which a skill names are available here, which are high-risk): the daemon is made,
  // not started — nothing runs and nothing changes.
  const app = await context.daemon('command');
  try {
    if (action === 'show') return show(action, rest[0] ?? '', app.skills, context);
    // A command that changes skills first brings the scheduler in line with the folder, as the daemon does.
    app.skills.scheduling.syncAll();
    return await dispatch(action, rest, { id: typeof parsed.values.id === 'string' ? parsed.values.id : undefined, repin: parsed.values.repin === true }, app.skills, context);
  } finally {
    await app.close(1000);
  }
};

/** `list` and `show` read the skills folder, the lock and the jobs table: nothing is made or changed. */
async function readOnly(action: 'list', id: string, context: CommandContext): Promise<number> {
  const { config } = context.loadConfig();
  const db = context.openDatabase();
  try {
    const log = context.logger('quiet');
    const store = new SkillStore({ dir: config.skills_dir, db, timeZone: config.timezone });
    const scheduler = new Scheduler({
      store: new JobStore(db), timeZone: config.timezone, log, execute: () => Promise.reject(new Error('jobs do not run in this command')),
      runTimeoutMs: config.scheduler.run_timeout_s * 1000, catchUpWindowMs: config.scheduler.catch_up_window * 1000,
    });
    // In a household each skill is listed with its maker.
    const catalog = new SkillCatalog({ config, clock: new ZonedClock(config.timezone), people: new People(config) }, store, new SkillScheduling({ scheduler, store, log }));
    return show(action, id, catalog, context);
  } finally {
    db.close();
  }
}

function show(action: 'list' | 'show', id: string, service: SkillCatalog, context: CommandContext): number {
  const out = (text: string) => context.io.stdout.write(`${text}\n`);
  const err = (text: string) => context.io.stderr.write(`familiar skills: ${text}\n`);
  switch (action) {
    case 'list': {
      const summaries = service.list();
      if (context.options.json) {
        out(JSON.stringify(summaries.map((summary) => ({
          ...summary,
          nextRunAt: summary.nextRunAt !== undefined ? new Date(summary.nextRunAt).toISOString() : null,
        })), null, 2));
      } else {
        out(service.formatList(summaries));
      }
      return 0;
    }
    case 'show': {
      const shown = service.show(id);
      if (!shown.success) return failed(err, shown.error);
      out(shown.value);
      return 0;
    }
  }
}

async function dispatch(action: string, rest: string[], values: { id: string | undefined; repin: boolean }, service: SkillService, context: CommandContext): Promise<number> {
  const out = (text: string) => context.io.stdout.write(`${text}\n`);
  const err = (text: string) => context.io.stderr.write(`familiar skills: ${text}\n`);
  const id = rest[0] ?? '';
  switch (action) {
    case 'run': {
      const input = rest.slice(1).join(' ').trim();
      const outcome = await service.run(id, { input: input || undefined, origin: { channel: 'cli', chatId: 'skills', userId: 'owner' }, unattended: false });
      if (!outcome.success) return failed(err, outcome.error);
      if (outcome.value.note) context.io.stderr.write(`${outcome.value.note}\n`);
      (outcome.value.status === 'ok' ? context.io.stdout : context.io.stderr).write(`${outcome.value.text}\n`);
      return outcome.value.status === 'ok' ? 0 : 1;
    }
    case 'install': {
      const installed = await installFromHub(service, id, values.id, { baseDir: process.cwd() });
      if (!installed.success) return failed(err, installed.error);
      out(installed.value);
      return 0;
    }
    default: {
      const manageAction: ManageAction = action === 'remove' ? 'delete' : (action as ManageAction);
      const changed = await service.manage(id, manageAction, { repin: values.repin });
      if (!changed.success) return failed(err, changed.error);
      out(changed.value);
      return 0;
    }
  }
}

function failed(err: (text: string) => void, message: string): number {
  err(message);
  return 1;
}
