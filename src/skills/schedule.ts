import { errorMessage } from '../errors.js';
import { parseTarget } from '../lib/target.js';
import type { Logger } from '../log.js';
import type { Delivery } from '../delivery/types.js';
import type { JobExecutor, Scheduler } from '../scheduler/scheduler.js';
import type { Job, RunOutcome } from '../scheduler/types.js';
import type { CallOrigin } from '../tools/types.js';
import { checkPinned } from './lock.js';
import type { SkillMakers } from './maker.js';
import type { SkillRunner } from './runner.js';
import type { SkillEntry, SkillStore } from './store.js';

/** Scheduler jobs owned by skills are `skill-<id>` and carry this marker in `configHash`. */
export const JOB_PREFIX = 'skill-';
export const OWNER_MARK = 'skill';

export function jobIdOf(skillId: string): string {
  return `${JOB_PREFIX}${skillId}`;
}

/** Whether (and why not) a skill should have a live cron job right now. */
export type Schedulability = { schedule: true; cron: string } | { schedule: false; pause: boolean; reason: string };

/**
 * Keeps the scheduler's jobs in step with the skills on disk: an active cron skill has an enabled job
 * `skill-<id>`; a paused one keeps its job paused (its run history stays); a draft, manual, deleted,
 * malformed or tampered skill has none. The scheduler gives cron skills the same ledger and
 * exactly-once claims as any job; the run itself is the skill's (see `createSkillJobExecutor`).
 */
export class SkillScheduling {
  private readonly scheduler: Scheduler | undefined;
  private readonly store: SkillStore;
  private readonly log: Logger;

  constructor(options: { scheduler: Scheduler | undefined; store: SkillStore; log: Logger }) {
    this.scheduler = options.scheduler;
    this.store = options.store;
    this.log = options.log;
  }

  get available(): boolean {
    return this.scheduler !== undefined;
  }

  /** What the scheduler should hold for this skill. */
  desired(entry: SkillEntry | undefined): Schedulability {
    if (!entry) return { schedule: false, pause: false, reason: 'the skill was deleted' };
    if (!entry.success) return { schedule: false, pause: false, reason: `the skill is not valid: ${entry.error}` };
    const skill = entry.value;
    if (skill.trigger.type !== 'cron' || skill.trigger.cron === undefined) return { schedule: false, pause: false, reason: 'its trigger is manual' };
    if (skill.status === 'paused') return { schedule: false, pause: true, reason: 'it is paused' };
    if (skill.status !== 'active') return { schedule: false, pause: false, reason: `it is a ${skill.status}` };
    const zone = this.scheduler?.timeZone;
    if (skill.trigger.timezone !== undefined && zone !== undefined && skill.trigger.timezone !== zone) {
      return { schedule: false, pause: false, reason: `trigger.timezone ${skill.trigger.timezone} differs from the daemon's timezone ${zone}, and the scheduler runs every job in one zone; remove trigger.timezone or change timezone in config.yaml` };
    }
    const pinned = checkPinned(this.store.dir, skill.id);
    if (!pinned.success) return { schedule: false, pause: false, reason: pinned.error.reason };
    if (pinned.value?.quarantined) return { schedule: false, pause: false, reason: 'it was installed from a hub and has not been activated' };
    return { schedule: true, cron: skill.trigger.cron };
  }

  /**
   * Brings the job of one skill in line with its SKILL.md (read now). Returns a line for the person,
   * or undefined when nothing changed. Contract: never throws.
   */
  sync(skillId: string): string | undefined {
    const scheduler = this.scheduler;
    if (!scheduler) return undefined;
    try {
      // Only an active skill's schedule is armed, so only its cron is evaluated in full here (ScheduleCheck).
      return this.apply(scheduler, skillId, this.desired(this.store.get(skillId, 'active')));
    } catch (error) {
      this.log.error({ err: error, skill: skillId }, 'could not update the scheduler for a skill');
      return `the scheduler could not be updated: ${errorMessage(error)}`;
    }
  }

  /** Every skill, plus jobs of skills that no longer exist. Contract: never throws. */
  syncAll(): void {
    const scheduler = this.scheduler;
    if (!scheduler) return;
    const ids = new Set(this.store.ids());
    for (const id of ids) this.sync(id);
    for (const job of scheduler.list({ includeDone: true, idPrefix: JOB_PREFIX })) {
      if (isSkillJob(job) && !ids.has(job.id.slice(JOB_PREFIX.length))) this.sync(job.id.slice(JOB_PREFIX.length));
    }
  }

  /** The next time a cron skill fires, if it is scheduled. */
  nextRun(skillId: string): number | undefined {
    const job = this.scheduler?.get(jobIdOf(skillId));
    return job && isSkillJob(job) && job.enabled ? job.nextRunAt : undefined;
  }

  private apply(scheduler: Scheduler, skillId: string, want: Schedulability): string | undefined {
    const jobId = jobIdOf(skillId);
    const job = scheduler.get(jobId);
    if (job && !isSkillJob(job)) {
      this.log.warn({ skill: skillId, jobId }, 'a job with this skill\'s id exists and is not a skill\'s; left alone');
      return `a scheduler job named ${jobId} exists that is not this skill's; remove it (familiar jobs remove ${jobId}) so the skill can be scheduled`;
    }
    if (!want.schedule) {
      if (!job) return undefined;
      if (want.pause) {
        if (!job.enabled) return undefined;
        const paused = scheduler.pause(jobId);
        this.log.info({ skill: skillId }, 'skill paused: its cron job is paused');
        return paused.success ? 'its schedule is paused' : paused.error;
      }
      scheduler.remove(jobId);
      this.log.info({ skill: skillId, reason: want.reason }, 'skill unscheduled');
      return `removed from the scheduler (${want.reason})`;
    }
    const entry = this.store.get(skillId, 'active');
    const deliverTo = entry?.success ? entry.value.deliverTo : undefined;
    if (!job) {
      const created = scheduler.create({
        id: jobId, kind: 'agent', cron: want.cron, prompt: `Run the skill "${skillId}" (managed by skills: familiar skills show ${skillId})`,
        source: 'cli', deliverTo, catchUp: 'once', configHash: OWNER_MARK, daemons: true,
      });
      if (!created.success) return `it could not be scheduled: ${created.error}`;
      this.log.info({ skill: skillId, cron: want.cron }, 'skill scheduled');
      return 'scheduled';
    }
    let changed: string | undefined;
    if (job.cron !== want.cron) {
      const updated = scheduler.update(jobId, { cron: want.cron });
      if (!updated.success) return `its new schedule could not be applied: ${updated.error}`;
      changed = 'its schedule was updated';
    }
    if (!job.enabled) {
      const resumed = scheduler.resume(jobId);
      if (!resumed.success) return resumed.error;
      changed = 'its schedule was resumed';
    }
    const current = scheduler.get(jobId);
    if (current && current.deliverTo !== deliverTo) {
      scheduler.store.save({ ...current, deliverTo, updatedAt: Date.now() });
      changed ??= 'its delivery target was updated';
    }
    return changed;
  }
}

export function isSkillJob(job: Job): boolean {
  return job.id.startsWith(JOB_PREFIX) && job.configHash === OWNER_MARK;
}

/**
 * Runs the scheduler's `skill-*` jobs as skill runs: the skill is read now (a hand edit applies; one
 * edited to manual, paused or made invalid does not run and is unscheduled), run unattended and
 * restricted to its tools, and its result is delivered like a job's. Contract: never throws.
 */
export function createSkillJobExecutor(deps: { log: Logger; delivery: Delivery; store: SkillStore; runner: SkillRunner; scheduling: SkillScheduling; makers: SkillMakers }): JobExecutor {
  const log = deps.log.child({ component: 'skills' });
  return async (job, _run, signal): Promise<RunOutcome> => {
    const skillId = job.id.slice(JOB_PREFIX.length);
    const entry = deps.store.get(skillId);
    const want = deps.scheduling.desired(entry);
    if (!want.schedule || !entry?.success) {
      deps.scheduling.sync(skillId);
      const reason = want.schedule ? 'the skill is not valid' : want.reason;
      log.warn({ skill: skillId, reason }, 'scheduled skill not run');
      return { status: 'failed', output: '', error: `skill not run: ${reason}` };
    }
    const skill = entry.value;
    // In a household the run is its maker's, as a job is its person's: their tools, budget, memory and workspace, and
    // their chat for the result.
    const person = deps.makers.actingPerson(skillId);
    const target = deps.makers.target(skillId, skill.deliverTo ?? job.deliverTo, deps.delivery);
    // The run's chat is the one its result goes to (its agent, its approvals), else the scheduler itself.
    let origin: CallOrigin = { channel: 'scheduler', chatId: skillId };
    if (target !== undefined) {
      try {
        const parsed = parseTarget(target);
        if (deps.delivery.chatOf(parsed) !== undefined) origin = parsed;
      } catch {
        // A bad deliver_to is reported when delivering below.
      }
    }
    const result = await deps.runner.run({ skill, origin, unattended: true, trigger: 'cron', signal, person });
    if (signal.aborted && !(signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError')) {
      return { status: 'interrupted', output: result.text, error: 'the daemon shut down during the run' };
    }
    const outcome: RunOutcome = { status: result.status === 'ok' ? 'ok' : 'failed', output: result.text, ...(result.error ? { error: result.error } : {}) };
    const text = result.status === 'ok' ? result.text : `⚠ Skill "${skill.name}" failed: ${(result.error ?? result.text).slice(0, 300)}`;
    const delivered = await deps.delivery.deliver(target, { text, ...(result.artifacts.length > 0 ? { artifacts: result.artifacts } : {}) }, { kind: 'skill', id: skillId, ...(result.taint ? { outside: result.taint } : {}) });
    if (delivered.deliveredTo !== undefined) return { ...outcome, deliveredTo: delivered.deliveredTo };
    const reason = target === undefined
      ? (person && person.role !== 'owner' ? `not delivered: no chat of ${person.name}'s (set deliver_to in SKILL.md)` : 'not delivered: no chat (set deliver_to in SKILL.md or scheduler.default_chat)')
      : delivered.error;
    return { ...outcome, error: outcome.error ? `${outcome.error}; ${reason}` : reason };
  };
}
