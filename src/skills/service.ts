import type { Config } from '../config/schema.js';
import type { People } from '../config/people.js';
import { withPerson } from '../lib/person-scope.js';
import { workspaceFor } from '../workspace/workspace-key.js';
import type { Job } from '../scheduler/types.js';
import type { ZonedClock } from '../lib/clock.js';
import type { LlmClient } from '../llm/types.js';
import type { Logger } from '../log.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { CallOrigin } from '../tools/types.js';
import type { ProvenanceLabels } from '../gate/labels.js';
import type { Delivery } from '../delivery/types.js';
import type { StartTurn } from '../turns/types.js';
import { describeTrigger, type Skill, type SkillStatus } from './format.js';
import { checkPinned, hashSkillFolder, lockEntry, readLock, writeLock } from './lock.js';
import { buildReport, formatReport, type SkillReport } from './report.js';
import { needsSandbox, runSkillTest, SANDBOX_REQUIRED, skillConversation, SkillRunner, type SkillRunResult, type SkillSandbox } from './runner.js';
import { isSkillJob, type SkillScheduling } from './schedule.js';
import { SkillMakers } from './maker.js';
import type { SkillRun, SkillStore } from './store.js';
import type { Result } from '../lib/result.js';

export interface SkillSummary {
  id: string;
  ok: boolean;
  name?: string;
  status?: SkillStatus;
  trigger?: string;
  nextRunAt?: number;
  lastRun?: SkillRun;
  /** Why it is not valid, or why it cannot run (tampered, quarantined, wrong zone). */
  problem?: string;
  quarantined?: boolean;
  /** In a household, who made it (its own runs act as them); absent outside one. */
  maker?: string;
}

export type ManageAction = 'pause' | 'resume' | 'delete' | 'activate';

/** What the skills part uses of the rest of the daemon. */
export interface SkillsDeps {
  config: Config;
  clock: ZonedClock;
  log: Logger;
  /** The registered tools: which a skill may name, and their risk (reports, drafting). */
  tools: Pick<ToolRegistry, 'get' | 'list'>;
  /** Drafts skills (`create_skill`). */
  llm: LlmClient;
  /** Where scripts and tests run; undefined when the sandbox is off. */
  sandbox: SkillSandbox | undefined;
  startTurn: StartTurn;
  delivery: Delivery;
  /** Provenance labels: a skill drafted while outside content was in play, or installed from a hub. */
  labels: ProvenanceLabels;
  /** Who is who in a household: a skill's own runs act as its maker. Absent or no people: one person, as before. */
  people?: People;
}

/** What listing and showing skills read: no agent, no sandbox (a read-only command builds only this). */
export interface SkillCatalogDeps {
  config: Config;
  clock: ZonedClock;
  /** The registered tools, to flag unavailable and high-risk ones; without it tools are listed as named. */
  tools?: Pick<ToolRegistry, 'get'>;
  /** In a household, each skill is listed with its maker. */
  people?: People;
}

/** The skills as they are on disk and on the scheduler: list and show. */
export class SkillCatalog {
  readonly catalog: SkillCatalogDeps;
  readonly store: SkillStore;
  readonly scheduling: SkillScheduling;
  readonly makers: SkillMakers;

  constructor(catalog: SkillCatalogDeps, store: SkillStore, scheduling: SkillScheduling) {
    this.catalog = catalog;
    this.store = store;
    this.scheduling = scheduling;
    this.makers = new SkillMakers(catalog.people, store);
  }

  list(): SkillSummary[] {
    let lock: ReturnType<typeof readLock> | undefined;
    try {
      lock = readLock(this.store.dir);
    } catch {
      lock = undefined;
    }
    return this.store.list().map((entry): SkillSummary => {
      const lastRun = this.store.lastRun(entry.id);
      const maker = this.makers.nameOf(entry.id);
      const base = { id: entry.id, ...(lastRun ? { lastRun } : {}), ...(maker !== undefined ? { maker } : {}) };
      if (!entry.success) return { ...base, ok: false, problem: entry.error };
      const skill = entry.value;
      const summary: SkillSummary = { ...base, ok: true, name: skill.name, status: skill.status, trigger: describeTrigger(skill.trigger, this.catalog.config.timezone) };
      const next = this.scheduling.nextRun(skill.id);
      if (next !== undefined) summary.nextRunAt = next;
      const pinned = checkPinned(this.store.dir, skill.id);
      if (!pinned.success) summary.problem = pinned.error.reason;
      else if (lock && lockEntry(lock, skill.id)?.quarantined) summary.quarantined = true;
      const want = this.scheduling.desired(entry);
      if (summary.problem === undefined && skill.status === 'active' && skill.trigger.type === 'cron' && !want.schedule) summary.problem = `not scheduled: ${want.reason}`;
      if (summary.problem === undefined && skill.status === 'active' && skill.trigger.type === 'cron' && !this.scheduling.available) summary.problem = 'not scheduled: the scheduler is not running here';
      return summary;
    });
  }

  formatList(summaries: readonly SkillSummary[]): string {
    if (summaries.length === 0) return `No skills in ${this.store.dir}.`;
    const clock = this.catalog.clock;
    return summaries
      .map((summary) => {
        if (!summary.ok) return `${summary.id} — INVALID: ${summary.problem ?? 'unknown problem'}`;
        const by = summary.maker !== undefined ? ` by ${summary.maker}` : '';
        const parts = [`${summary.id} — ${summary.name ?? ''} [${summary.status ?? '?'}${summary.quarantined ? ', quarantined' : ''}]${by}`, `trigger: ${summary.trigger ?? '?'}`];
        if (summary.nextRunAt !== undefined) parts.push(`next run: ${clock.format(new Date(summary.nextRunAt))}`);
        const last = summary.lastRun;
        parts.push(last ? `last run: ${clock.format(new Date(last.startedAt))} ${last.status}${last.error ? ` (${last.error.slice(0, 120)})` : ''}` : 'last run: never');
        const head = parts.join('; ');
        return summary.problem ? `${head}\n  problem: ${summary.problem}` : head;
      })
      .join('\n');
  }

  /** Everything about one skill: frontmatter, report of its files, lock entry, recent runs. */
  show(id: string): Result<string> {
    const entry = this.store.get(id);
    if (!entry) return this.unknown(id);
    if (!entry.success) return { success: true, value: `${id} — INVALID: ${entry.error}\n  folder: ${entry.dir}` };
    const skill = entry.value;
    const hashed = hashSkillFolder(entry.dir);
    const report = hashed.success ? formatReport(buildReport(skill, entry.dir, hashed.value.files, this.catalog.tools)) : `  files: ${hashed.error}`;
    let pin = 'made locally (not from a hub)';
    const pinned = checkPinned(this.store.dir, id);
    if (!pinned.success) pin = pinned.error.reason;
    else if (pinned.value) pin = `installed from ${pinned.value.source}, version ${pinned.value.version}, sha256 ${pinned.value.sha256}${pinned.value.quarantined ? ' (quarantined until activated)' : ''}`;
    const runs = this.store.runs(id, 5).map((run) => `  #${run.id} ${this.catalog.clock.format(new Date(run.startedAt))} ${run.trigger} ${run.status}${run.durationMs !== undefined ? ` ${(run.durationMs / 1000).toFixed(1)} s` : ''}${run.error ? ` — ${run.error.slice(0, 160)}` : ''}`);
    const next = this.scheduling.nextRun(id);
    const maker = this.makers.nameOf(id);
    return {
      success: true,
      value: [
        `${skill.id} — ${skill.name} (version ${skill.version}) [${skill.status}]`,
        `  ${skill.description}`,
        `  folder: ${entry.dir}`,
        `  origin: ${pin}`,
        ...(maker !== undefined ? [`  made by: ${maker} (its own runs act as them)`] : []),
        ...(skill.deliverTo ? [`  deliver_to: ${skill.deliverTo}`] : []),
        ...(next !== undefined ? [`  next run: ${this.catalog.clock.describe(new Date(next))}`] : []),
        report,
        `  recent runs:${runs.length === 0 ? ' none' : `\n${runs.join('\n')}`}`,
      ].join('\n'),
    };
  }

  /**
   * What activating a skill lets run, for the person to review first (the console's confirmation): the skill, the
   * report of its files and their hash, which the confirmation must still match (`filesHash`). Undefined: no
   * valid skill of that id.
   */
  review(id: string): Result<{ skill: Skill; report: SkillReport; sha256: string }> | undefined {
    const entry = this.store.get(id);
    if (!entry || !entry.success) return undefined;
    const hashed = hashSkillFolder(entry.dir);
    if (!hashed.success) return hashed;
    return { success: true, value: { skill: entry.value, report: buildReport(entry.value, entry.dir, hashed.value.files, this.catalog.tools), sha256: hashed.value.sha256 } };
  }

  /** The hash of a skill folder's files now. */
  filesHash(id: string): Result<string> {
    const hashed = hashSkillFolder(this.store.folder(id));
    return hashed.success ? { success: true, value: hashed.value.sha256 } : hashed;
  }

  /** Whether a scheduler job is a skill's schedule (changed through the skill, not as a job). */
  ownsJob(job: Job): boolean {
    return isSkillJob(job);
  }

  /** Why a skill may not run at all (tampered or quarantined hub skill, or sandbox needed but absent). */
  refusal(skill: Skill): string | undefined {
    const pinned = checkPinned(this.store.dir, skill.id);
    if (!pinned.success) return `Refused: ${pinned.error.reason}.`;
    if (pinned.value?.quarantined) {
      return `Skill "${skill.id}" was installed from ${pinned.value.source} and is quarantined: it runs only after the person reviews it (familiar skills show ${skill.id}) and activates it.`;
    }
    return undefined;
  }

  unknown(id: string): { success: false; error: string } {
    const ids = this.store.ids();
    return { success: false, error: `No skill with id "${id}". ${ids.length > 0 ? `Skills: ${ids.slice(0, 30).join(', ')}.` : 'There are no skills yet.'}` };
  }
}

/** The skills subsystem as the tools and the CLI use it: list, show, run, manage. */
export class SkillService extends SkillCatalog {
  readonly deps: SkillsDeps;
  readonly runner: SkillRunner;

  constructor(deps: SkillsDeps, store: SkillStore, scheduling: SkillScheduling) {
    super(deps, store, scheduling);
    this.deps = deps;
    this.runner = new SkillRunner(deps, store);
  }

  /**
   * Runs a skill now. A paused or draft skill runs because it was named, and the reply says so; an
   * unattended caller cannot run one. A quarantined or tampered hub skill never runs.
   */
  async run(id: string, options: { input?: string | undefined; origin: CallOrigin; unattended: boolean; signal?: AbortSignal | undefined; taint?: readonly string[] | undefined }): Promise<Result<SkillRunResult & { note?: string }>> {
    const entry = this.store.get(id);
    if (!entry) return this.unknown(id);
    if (!entry.success) return { success: false, error: `Skill "${id}" is not valid: ${entry.error}. Fix ${entry.dir}/SKILL.md and try again.` };
    const refused = this.refusal(entry.value);
    if (refused) return { success: false, error: refused };
    const skill = entry.value;
    let note: string | undefined;
    if (skill.status !== 'active') {
      if (options.unattended) return { success: false, error: `Skill "${id}" is ${skill.status === 'paused' ? 'paused' : 'a draft'}; an unattended run cannot start it. Activate it first.` };
      note = `Note: skill "${id}" is ${skill.status === 'paused' ? 'paused' : 'a draft'}; it ran only because it was asked for by id.`;
    }
    const result = await this.runner.run({ skill, input: options.input, origin: options.origin, unattended: options.unattended, trigger: 'manual', signal: options.signal, taint: options.taint });
    return { success: true, value: { ...result, ...(note ? { note } : {}) } };
  }

  async manage(id: string, action: ManageAction, options: { repin?: boolean; signal?: AbortSignal } = {}): Promise<Result<string>> {
    const entry = this.store.get(id);
    if (!entry) return this.unknown(id);
    const allowed = this.makers.mayChange(id);
    if (!allowed.success) return allowed;
    if (action === 'delete') {
      this.store.remove(id);
      await this.dropLock(id);
      const scheduled = this.scheduling.sync(id);
      return { success: true, value: `Deleted skill "${id}" (${entry.dir}).${scheduled ? ` Scheduler: ${scheduled}.` : ''}` };
    }
    if (!entry.success) return { success: false, error: `Skill "${id}" is not valid: ${entry.error}. Fix its SKILL.md first.` };
    const skill = entry.value;
    let status: SkillStatus;
    let extra = '';
    switch (action) {
      case 'pause':
        if (skill.status === 'paused') return { success: true, value: `Skill "${id}" is already paused.` };
        status = 'paused';
        break;
      case 'resume':
        if (skill.status === 'active') return { success: true, value: `Skill "${id}" is already active.` };
        if (skill.status === 'draft') return { success: false, error: `Skill "${id}" is a draft, not paused; use action "activate" to turn it on.` };
        status = 'active';
        break;
      case 'activate': {
        const ready = await this.checkActivation(skill, options);
        if (!ready.success) return ready;
        extra = ready.value;
        status = 'active';
        break;
      }
    }
    const written = await this.store.setStatus(id, status);
    if (!written.success) return written;
    if (action === 'activate') {
      await this.release(id);
      // Activating is the person's review: the instructions they turned on are theirs from now on.
      this.deps.labels.clear('skill', id);
    }
    const scheduled = this.scheduling.sync(id);
    const next = this.scheduling.nextRun(id);
    const when = next !== undefined ? ` Next run: ${this.deps.clock.describe(new Date(next))}.` : '';
    const verb = { pause: 'Paused', resume: 'Resumed', activate: 'Activated' }[action];
    return { success: true, value: `${verb} skill "${id}".${extra}${scheduled ? ` Scheduler: ${scheduled}.` : ''}${when}` };
  }

  /** Activation needs a valid, untampered skill whose test (if any) passes in the sandbox. */
  private async checkActivation(skill: Skill, options: { repin?: boolean; signal?: AbortSignal }): Promise<Result<string>> {
    const dir = this.store.folder(skill.id);
    const pinned = checkPinned(this.store.dir, skill.id);
    if (!pinned.success) {
      if (!(options.repin && pinned.error.tampered)) return { success: false, error: `Not activated: ${pinned.error.reason}.` };
      const repinned = await this.repin(skill.id);
      if (!repinned.success) return repinned;
    }
    const sandbox = this.deps.sandbox;
    if (needsSandbox(skill, dir) && !sandbox) return { success: false, error: `Not activated: skill "${skill.id}" has scripts or a test, and ${SANDBOX_REQUIRED}.` };
    if (skill.test === undefined || !sandbox) return { success: true, value: '' };
    // In the maker's own workspace, where the skill's runs will be (the owner activating a member's skill included).
    const maker = this.makers.actingPerson(skill.id);
    const workspace = maker ? withPerson(maker, () => workspaceFor(skillConversation(skill.id))) : skillConversation(skill.id);
    const test = await runSkillTest(sandbox, skill, dir, workspace, options.signal);
    const runId = this.store.startRun(skill.id, 'test');
    this.store.finishRun(runId, { status: test.passed ? 'ok' : 'failed', output: test.report }, Date.now());
    if (!test.passed) return { success: false, error: `Not activated: ${test.report}` };
    return { success: true, value: ' Its test passed in the sandbox.' };
  }

  /** The person accepted the current files of a hub skill: pin their hash (CLI only: `--repin`). */
  private async repin(id: string): Promise<Result<string>> {
    const lock = readLock(this.store.dir);
    const entry = lockEntry(lock, id);
    const hashed = hashSkillFolder(this.store.folder(id));
    if (!entry || !hashed.success) return { success: false, error: hashed.success ? `skill "${id}" is not from a hub` : hashed.error };
    lock.skills[id] = { ...entry, sha256: hashed.value.sha256, source: `${entry.source} (changed locally, re-pinned)` };
    await writeLock(this.store.dir, lock);
    return { success: true, value: '' };
  }

  private async release(id: string): Promise<void> {
    const lock = readLock(this.store.dir);
    const entry = lockEntry(lock, id);
    if (!entry || !entry.quarantined) return;
    lock.skills[id] = { ...entry, quarantined: false };
    await writeLock(this.store.dir, lock);
  }

  private async dropLock(id: string): Promise<void> {
    let lock;
    try {
      lock = readLock(this.store.dir);
    } catch {
      return;
    }
    if (!lockEntry(lock, id)) return;
    const skills = Object.fromEntries(Object.entries(lock.skills).filter(([key]) => key !== id));
    await writeLock(this.store.dir, { version: 1, skills });
  }
}
