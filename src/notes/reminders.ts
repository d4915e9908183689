import { statSync } from 'node:fs';
import { personWrote } from '../net/addresses.js';
import { currentScope } from '../lib/call-scope.js';
import { currentZone } from '../lib/person-scope.js';
import type { Logger } from '../log.js';
import type { JobExecutor, Scheduler } from '../scheduler/scheduler.js';
import type { Job, RunOutcome } from '../scheduler/types.js';
import { instantOf, isDay, isTime } from './dates.js';
import type { ReminderActions } from './reminder-actions.js';
import type { Task } from './task-files.js';
import type { TaskService } from './tasks.js';
import type { ChatOrigin } from './types.js';

/** Reminder jobs of tasks are `task-<id>` and carry this mark in `configHash`, as skills mark theirs. */
export const REMINDER_PREFIX = 'task-';
export const OWNER_MARK = 'notes-task';
/** Hand edits are looked for this often (a stat per task file); tools and fire time check at once. */
export const WATCH_MS = 30_000;
/** A reminder whose time moved later by more than this since its job fired is not sent now. */
const MOVED_MS = 60_000;

export interface ReminderDeps {
  scheduler: Scheduler;
  tasks: TaskService;
  /** Where a task file is on disk (for its mtime: hand edits), as the memory folder resolves it. */
  locate: (file: string) => string;
  timeZone: string;
  log: Logger;
  /** Delivery with Snooze and Done buttons, through the one way to a chat. */
  actions: ReminderActions;
  now?: () => number;
}

export function isReminderJob(job: Job): boolean {
  return job.id.startsWith(REMINDER_PREFIX) && job.configHash === OWNER_MARK;
}

export function reminderJobId(task: Task): string {
  return `${REMINDER_PREFIX}${task.id ?? `h${task.ref.slice(1)}`}`.slice(0, 64);
}

/** The instant of a task's ⏰ (a day alone: 09:00), in the configured zone; undefined when unreadable. */
export function reminderInstant(task: Task, timeZone: string): number | undefined {
  if (task.reminder === undefined) return undefined;
  const [day = '', time = '09:00'] = task.reminder.split(/\s+/);
  if (!isDay(day) || !isTime(time)) return undefined;
  return instantOf(day, time.padStart(5, '0'), timeZone);
}

/**
 * Task reminders go through the scheduler (its ledger, exactly-once claims, catch-up) as one-shot jobs this
 * part owns. The files decide: `reconcile` makes the jobs match the ⏰ of open tasks (a task ticked, edited
 * or deleted by hand loses or moves its job), and at fire time the task is read again — a reminder for a
 * task that is done, gone or moved is not sent, and its job is removed or re-timed.
 */
export class TaskReminders {
  private readonly deps: ReminderDeps;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private signature = '';
  private running: Promise<void> | undefined;
  /** Open recurring tasks at the last check: only these, ticked by hand since, get their next occurrence. */
  private openRecurring = new Set<string>();

  constructor(deps: ReminderDeps) {
    this.deps = deps;
    this.now = deps.now ?? Date.now;
  }

  /** Creates or re-times the job of one task just written by a tool (from this chat). */
  follow(tasks: readonly Task[], chat: ChatOrigin | undefined): void {
    for (const task of tasks) {
      try {
        this.apply(task, chat);
      } catch (error) {
        this.deps.log.warn({ err: error, task: task.ref }, 'task reminder could not be scheduled');
      }
    }
  }

  /** Makes every reminder job match the files. Contract: never throws. */
  reconcile(): { created: number; updated: number; removed: number } {
    const counts = { created: 0, updated: 0, removed: 0 };
    try {
      const tasks = this.deps.tasks.files.all();
      const wanted = new Map<string, Task>();
      for (const task of tasks) if (task.open && task.reminder !== undefined) wanted.set(reminderJobId(task), task);
      for (const job of this.deps.scheduler.list({ includeDone: true, idPrefix: REMINDER_PREFIX })) {
        if (!isReminderJob(job)) continue;
        const task = wanted.get(job.id);
        if (task) continue;
        this.deps.scheduler.remove(job.id);
        counts.removed += 1;
        this.deps.log.info({ jobId: job.id }, 'task reminder removed: the task is done, gone or has no ⏰ any more');
      }
      for (const task of wanted.values()) {
        const outcome = this.apply(task, undefined);
        if (outcome === 'created') counts.created += 1;
        if (outcome === 'updated') counts.updated += 1;
      }
    } catch (error) {
      this.deps.log.error({ err: error }, 'task reminders could not be brought in line with the files');
    }
    return counts;
  }

  /** Runs `reconcile` (and the next occurrence of recurring tasks ticked by hand) when a task file changed. One at a time. */
  check(): Promise<void> {
    this.running ??= this.checkNow().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async checkNow(): Promise<void> {
    const signature = this.filesSignature();
    if (signature === this.signature) return;
    this.signature = signature;
    try {
      await this.deps.tasks.followHandTicks(this.openRecurring);
    } catch (error) {
      this.deps.log.warn({ err: error }, 'next occurrences of recurring tasks ticked by hand could not be written');
    }
    this.reconcile();
    this.openRecurring = this.deps.tasks.openRecurring();
    this.signature = this.filesSignature();
  }

  start(): void {
    void this.tick();
    this.timer = setInterval(() => void this.tick(), WATCH_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async tick(): Promise<void> {
    try {
      await this.check();
    } catch (error) {
      this.deps.log.error({ err: error }, 'checking task files for hand edits failed');
    }
  }

  private filesSignature(): string {
    return this.deps.tasks.files
      .paths()
      .map((file) => {
        try {
          const stats = statSync(this.deps.locate(file));
          return `${file}:${stats.mtimeMs}:${stats.size}`;
        } catch {
          return `${file}:gone`;
        }
      })
      .join('|');
  }

  /** `zone`: the ⏰'s clock, the acting person's (a job being fired passes its own). */
  private apply(task: Task, chat: ChatOrigin | undefined, zone = currentZone(this.deps.timeZone)): 'created' | 'updated' | 'removed' | 'unchanged' {
    const { scheduler } = this.deps;
    const id = reminderJobId(task);
    const job = scheduler.get(id);
    if (job && !isReminderJob(job)) {
      this.deps.log.warn({ jobId: id }, 'a job with a task reminder\'s id exists and is not a task reminder; left alone');
      return 'unchanged';
    }
    const at = task.open ? reminderInstant(task, zone) : undefined;
    if (at === undefined) {
      if (!job) return 'unchanged';
      scheduler.remove(id);
      return 'removed';
    }
    const prompt = task.description;
    // A task written while outside content was in play keeps those sources on its reminder — delivered, it says where
    // it came from, with its links inert (src/delivery/outside.ts) — unless its words are all the person's own.
    const sources = outsideSources(task.description);
    if (!job) {
      // A ⏰ already past when first seen (written by hand long ago) is not sent late.
      if (at <= this.now()) return 'unchanged';
      const created = scheduler.create({
        id, kind: 'reminder', prompt, run_at: new Date(at).toISOString(), spec: `⏰ ${task.reminder ?? ''}`,
        source: chat && chat.channel !== 'cli' ? 'chat' : 'cli', configHash: OWNER_MARK, catchUp: 'once',
        ...(chat ? { origin: chat } : {}),
        ...(sources.length > 0 ? { sources } : {}),
      });
      if (!created.success) this.deps.log.warn({ jobId: id, error: created.error }, 'task reminder not scheduled');
      return created.success ? 'created' : 'unchanged';
    }
    const samePrompt = job.prompt === prompt;
    if (job.runAt === at && samePrompt) return 'unchanged';
    if (job.runAt !== at && at > this.now()) {
      const updated = scheduler.update(id, { run_at: new Date(at).toISOString(), ...(samePrompt ? {} : { prompt }), ...(sources.length > 0 ? { sources } : {}) });
      if (!updated.success) this.deps.log.warn({ jobId: id, error: updated.error }, 'task reminder not re-timed');
      return updated.success ? 'updated' : 'unchanged';
    }
    // The ⏰ moved into the past (or the job already fired): nothing to send late; only the text follows.
    if (samePrompt) return 'unchanged';
    scheduler.update(id, { prompt, ...(sources.length > 0 ? { sources } : {}) });
    return 'updated';
  }

  /** Runs the scheduler's reminder jobs of tasks. Contract: never throws. */
  executor(): JobExecutor {
    return async (job, run): Promise<RunOutcome> => {
      const task = this.deps.tasks.files.all().find((entry) => reminderJobId(entry) === job.id);
      if (!task || !task.open) {
        this.deps.scheduler.remove(job.id);
        const why = !task ? 'the task is gone' : 'the task is done';
        this.deps.log.info({ jobId: job.id }, `task reminder not sent: ${why}`);
        return { status: 'ok', output: `not sent: ${why}` };
      }
      // The ⏰ is read on the clock the job was made on: its person's.
      const at = reminderInstant(task, job.tz);
      if (at === undefined) {
        this.deps.scheduler.remove(job.id);
        return { status: 'ok', output: 'not sent: the task has no ⏰ any more' };
      }
      // A scheduled fire well before the task's ⏰: the time was moved by hand and the job not re-timed yet.
      if (run.trigger !== 'manual' && at - this.now() > MOVED_MS) {
        this.apply(task, undefined, job.tz);
        return { status: 'ok', output: `not sent: the reminder was moved to ${new Date(at).toISOString()}` };
      }
      return this.deps.actions.deliver(job, reminderText(task), { body: task.description, task: task.id ?? task.ref });
    };
  }
}

/** The outside sources a text written in the current tool call carries (none when the person wrote every word). */
export function outsideSources(text: string): readonly string[] {
  const scope = currentScope();
  if (!scope || scope.taint.length === 0) return [];
  return scope.personTexts && personWrote(text, scope.personTexts()) ? [] : scope.taint;
}

export function reminderText(task: Task): string {
  const due = task.due !== undefined ? ` (due ${task.due})` : '';
  return `⏰ ${task.description}${due}\nDone? /tasks done ${task.ref}`;
}
