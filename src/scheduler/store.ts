import type { Database } from '../db/database.js';
import type { Statement } from 'better-sqlite3';
import type { Job, JobRun, JobTrigger, RunOutcome, RunStatus, RunTrigger } from './types.js';

interface JobRow {
  id: string;
  kind: string;
  cron: string | null;
  run_at: number | null;
  spec: string;
  prompt: string;
  catch_up: string;
  origin_channel: string | null;
  origin_chat: string | null;
  origin_user: string | null;
  deliver_to: string | null;
  approve: string;
  sources: string | null;
  trigger: string | null;
  enabled: number;
  source: string;
  tz: string;
  next_run_at: number | null;
  last_scheduled_at: number | null;
  done_at: number | null;
  config_hash: string | null;
  created_at: number;
  updated_at: number;
  person: string | null;
}

interface RunRow {
  id: number;
  job_id: string;
  scheduled_for: number;
  trigger: string;
  status: string;
  started_at: number;
  ended_at: number | null;
  duration_ms: number | null;
  error: string | null;
  output: string | null;
  delivered_to: string | null;
}

/** How a claim moves the job: its next time (undefined when finished) and whether a one-shot is now done. */
export interface Advance {
  nextRunAt: number | undefined;
  done: boolean;
}

export const OUTPUT_EXCERPT_CHARS = 2000;

export interface ListJobsOptions {
  includeDone?: boolean;
  idPrefix?: string;
  origin?: { channel: string; chatId: string };
}

/**
 * Jobs and the run ledger in SQLite. The ledger's UNIQUE (job_id, scheduled_for) plus a compare-and-set
 * on `next_run_at` make a scheduled time claimable once, by one process, even when timers race.
 */
export class JobStore {
  private readonly db: Database;
  private readonly statements: {
    get: Statement<[string], JobRow>;
    due: Statement<[number], JobRow>;
    earliest: Statement<[], { at: number | null }>;
    insertRun: Statement<[string, number, string, string, number, string | null]>;
    advance: Statement<[number | null, number, number | null, number, string, number | null]>;
    finishRun: Statement<[string, number, number, string | null, string | null, string | null, number]>;
  };

  constructor(db: Database) {
    this.db = db;
    this.statements = {
      get: db.prepare('SELECT * FROM jobs WHERE id = ?'),
      due: db.prepare('SELECT * FROM jobs WHERE enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at'),
      earliest: db.prepare('SELECT MIN(next_run_at) AS at FROM jobs WHERE enabled = 1 AND next_run_at IS NOT NULL'),
      insertRun: db.prepare('INSERT OR IGNORE INTO job_runs (job_id, scheduled_for, trigger, status, started_at, error) VALUES (?, ?, ?, ?, ?, ?)'),
      // Compare-and-set: only the process that still sees the old next_run_at moves the job on.
      advance: db.prepare(
        'UPDATE jobs SET next_run_at = ?, last_scheduled_at = MAX(COALESCE(last_scheduled_at, 0), ?), done_at = ?, updated_at = ? WHERE id = ? AND next_run_at IS ?',
      ),
      finishRun: db.prepare('UPDATE job_runs SET status = ?, ended_at = ?, duration_ms = ?, error = ?, output = ?, delivered_to = ? WHERE id = ?'),
    };
  }

  get(id: string): Job | undefined {
    const row = this.statements.get.get(id);
    return row ? toJob(row) : undefined;
  }

  /**
   * `idPrefix` limits the list to one owner's jobs (skills: `skill-`) without reading every row; `origin` to the
   * jobs made in one chat (what that chat may see).
   */
  list(options: ListJobsOptions = {}): Job[] {
    const where: string[] = [];
    const parameters: string[] = [];
    if (!options.includeDone) where.push('done_at IS NULL');
    if (options.idPrefix !== undefined) {
      where.push('id >= ? AND id < ? || char(1114111)');
      parameters.push(options.idPrefix, options.idPrefix);
    }
    if (options.origin !== undefined) {
      where.push("source = 'chat' AND origin_channel = ? AND origin_chat = ?");
      parameters.push(options.origin.channel, options.origin.chatId);
    }
    const sql = `SELECT * FROM jobs ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY COALESCE(next_run_at, 9e15), id`;
    return (this.db.prepare(sql).all(...parameters) as JobRow[]).map(toJob);
  }

  idsFromConfig(): string[] {
    return (this.db.prepare("SELECT id FROM jobs WHERE source = 'config'").all() as Array<{ id: string }>).map((row) => row.id);
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number }).n;
  }

  due(now: number): Job[] {
    return this.statements.due.all(now).map(toJob);
  }

  earliestNextRun(): number | undefined {
    return this.statements.earliest.get()?.at ?? undefined;
  }

  insert(job: Job): void {
    this.db
      .prepare(
        `INSERT INTO jobs (id, kind, cron, run_at, spec, prompt, catch_up, origin_channel, origin_chat, origin_user, deliver_to, approve, sources, trigger,
           enabled, source, tz, next_run_at, last_scheduled_at, done_at, config_hash, created_at, updated_at, person)
         VALUES (@id, @kind, @cron, @run_at, @spec, @prompt, @catch_up, @origin_channel, @origin_chat, @origin_user, @deliver_to, @approve, @sources, @trigger,
           @enabled, @source, @tz, @next_run_at, @last_scheduled_at, @done_at, @config_hash, @created_at, @updated_at, @person)`,
      )
      .run(toRow(job));
  }

  /** Replaces every column of an existing job (update, pause, resume, config upsert). */
  save(job: Job): void {
    this.db
      .prepare(
        `UPDATE jobs SET kind = @kind, cron = @cron, run_at = @run_at, spec = @spec, prompt = @prompt, catch_up = @catch_up,
           origin_channel = @origin_channel, origin_chat = @origin_chat, origin_user = @origin_user, deliver_to = @deliver_to,
           approve = @approve, sources = @sources, trigger = @trigger, enabled = @enabled, source = @source, tz = @tz, next_run_at = @next_run_at,
           last_scheduled_at = @last_scheduled_at, done_at = @done_at, config_hash = @config_hash, updated_at = @updated_at
         WHERE id = @id`,
      )
      .run(toRow(job));
  }

  remove(id: string): boolean {
    return this.db.prepare('DELETE FROM jobs WHERE id = ?').run(id).changes > 0;
  }

  /**
   * Claims the scheduled time `scheduledFor` of `job` and moves the job on, in one transaction.
   * Returns the ledger row id, or undefined when another timer or process got there first.
   * A `skipped` or `missed` claim is written as final at once.
   */
  claim(job: Job, scheduledFor: number, trigger: RunTrigger, status: 'running' | 'skipped' | 'missed', advance: Advance, now: number, note?: string): number | undefined {
    return this.db.transaction(() => {
      const moved = this.statements.advance.run(advance.nextRunAt ?? null, scheduledFor, advance.done ? now : null, now, job.id, job.nextRunAt ?? null);
      if (moved.changes === 0) return undefined;
      const inserted = this.statements.insertRun.run(job.id, scheduledFor, trigger, status, now, note ?? null);
      if (inserted.changes === 0) {
        // The ledger already has this time (a run before a crash): keep the job moved on, run nothing.
        return undefined;
      }
      if (status !== 'running') this.db.prepare('UPDATE job_runs SET ended_at = ? WHERE id = ?').run(now, inserted.lastInsertRowid);
      return Number(inserted.lastInsertRowid);
    }).immediate();
  }

  /** Enabled jobs run by triggers of this source. */
  triggerJobs(source: string): Job[] {
    return (this.db.prepare("SELECT * FROM jobs WHERE enabled = 1 AND trigger IS NOT NULL AND json_extract(trigger, '$.source') = ? ORDER BY id").all(source) as JobRow[]).map(toJob);
  }

  /**
   * Claims a trigger's run of a job: its ledger row at the trigger's `receivedAt` (unique in the inbox). Returns the
   * row id, or undefined when the row was already there (claimed before a crash or by another dispatch).
   */
  claimTrigger(jobId: string, receivedAt: number, now: number): number | undefined {
    const inserted = this.statements.insertRun.run(jobId, receivedAt, 'trigger', 'running', now, null);
    return inserted.changes === 0 ? undefined : Number(inserted.lastInsertRowid);
  }

  /** A manual run (`familiar jobs run ID`): its own ledger row at `now`, the schedule untouched. */
  claimManual(jobId: string, now: number): number | undefined {
    const inserted = this.statements.insertRun.run(jobId, now, 'manual', 'running', now, null);
    return inserted.changes === 0 ? undefined : Number(inserted.lastInsertRowid);
  }

  finishRun(runId: number, outcome: RunOutcome, startedAt: number, now: number): void {
    this.statements.finishRun.run(
      outcome.status, now, Math.max(0, now - startedAt), outcome.error ?? null, outcome.output.slice(0, OUTPUT_EXCERPT_CHARS), outcome.deliveredTo ?? null, runId,
    );
  }

  /** Runs left `running` by a crash or kill: marked interrupted (never re-run). Returns them. */
  markInterrupted(now: number): JobRun[] {
    const rows = this.db.prepare("SELECT * FROM job_runs WHERE status = 'running'").all() as RunRow[];
    if (rows.length === 0) return [];
    this.db
      .prepare("UPDATE job_runs SET status = 'interrupted', ended_at = ?, error = COALESCE(error, 'the daemon stopped during the run (crash or kill); not re-run') WHERE status = 'running'")
      .run(now);
    return rows.map(toRun);
  }

  isRunning(jobId: string): boolean {
    return this.db.prepare("SELECT 1 FROM job_runs WHERE job_id = ? AND status = 'running' LIMIT 1").get(jobId) !== undefined;
  }

  runs(jobId: string, limit = 20): JobRun[] {
    const rows = this.db.prepare('SELECT * FROM job_runs WHERE job_id = ? ORDER BY started_at DESC, id DESC LIMIT ?').all(jobId, limit) as RunRow[];
    return rows.map(toRun);
  }

  run(runId: number): JobRun | undefined {
    const row = this.db.prepare('SELECT * FROM job_runs WHERE id = ?').get(runId) as RunRow | undefined;
    return row ? toRun(row) : undefined;
  }

  /** Runs that failed since `since` (any job), newest first: the heartbeat's failed-jobs probe. */
  failedSince(since: number, limit = 50): JobRun[] {
    return (this.db.prepare("SELECT * FROM job_runs WHERE status = 'failed' AND started_at >= ? ORDER BY started_at DESC LIMIT ?").all(since, limit) as RunRow[]).map(toRun);
  }

  /** Rows of this status for a job (tests and the CLI). */
  runsWithStatus(jobId: string, status: RunStatus): JobRun[] {
    return (this.db.prepare('SELECT * FROM job_runs WHERE job_id = ? AND status = ? ORDER BY scheduled_for').all(jobId, status) as RunRow[]).map(toRun);
  }
}

function toJob(row: JobRow): Job {
  return {
    id: row.id,
    kind: row.kind === 'reminder' ? 'reminder' : 'agent',
    cron: row.cron ?? undefined,
    runAt: row.run_at ?? undefined,
    spec: row.spec,
    prompt: row.prompt,
    catchUp: row.catch_up === 'skip' ? 'skip' : 'once',
    origin:
      row.origin_channel !== null && row.origin_chat !== null
        ? { channel: row.origin_channel, chatId: row.origin_chat, ...(row.origin_user !== null ? { userId: row.origin_user } : {}) }
        : undefined,
    deliverTo: row.deliver_to ?? undefined,
    approve: parseList(row.approve),
    sources: row.sources === null ? [] : parseList(row.sources),
    trigger: row.trigger === null ? undefined : parseTrigger(row.trigger),
    enabled: row.enabled === 1,
    source: row.source === 'config' ? 'config' : row.source === 'cli' ? 'cli' : 'chat',
    tz: row.tz,
    nextRunAt: row.next_run_at ?? undefined,
    lastScheduledAt: row.last_scheduled_at ?? undefined,
    doneAt: row.done_at ?? undefined,
    configHash: row.config_hash ?? undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.person !== null ? { person: row.person } : {}),
  };
}

function toRow(job: Job): JobRow {
  return {
    id: job.id,
    kind: job.kind,
    cron: job.cron ?? null,
    run_at: job.runAt ?? null,
    spec: job.spec,
    prompt: job.prompt,
    catch_up: job.catchUp,
    origin_channel: job.origin?.channel ?? null,
    origin_chat: job.origin?.chatId ?? null,
    origin_user: job.origin?.userId ?? null,
    deliver_to: job.deliverTo ?? null,
    approve: JSON.stringify(job.approve),
    sources: job.sources.length > 0 ? JSON.stringify(job.sources) : null,
    trigger: job.trigger ? JSON.stringify(job.trigger) : null,
    enabled: job.enabled ? 1 : 0,
    source: job.source,
    tz: job.tz,
    next_run_at: job.nextRunAt ?? null,
    last_scheduled_at: job.lastScheduledAt ?? null,
    done_at: job.doneAt ?? null,
    config_hash: job.configHash ?? null,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
    person: job.person ?? null,
  };
}

function toRun(row: RunRow): JobRun {
  return {
    id: row.id,
    jobId: row.job_id,
    scheduledFor: row.scheduled_for,
    trigger: row.trigger === 'catch_up' || row.trigger === 'manual' || row.trigger === 'trigger' ? row.trigger : 'schedule',
    status: row.status as RunStatus,
    startedAt: row.started_at,
    endedAt: row.ended_at ?? undefined,
    durationMs: row.duration_ms ?? undefined,
    error: row.error ?? undefined,
    output: row.output ?? undefined,
    deliveredTo: row.delivered_to ?? undefined,
  };
}

function parseTrigger(text: string): JobTrigger | undefined {
  try {
    const value = JSON.parse(text) as Partial<JobTrigger> | null;
    if (typeof value?.source !== 'string') return undefined;
    return { source: value.source, ...(typeof value.match === 'string' ? { match: value.match } : {}) };
  } catch {
    return undefined;
  }
}

function parseList(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}
