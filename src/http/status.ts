import { readFileSync } from 'node:fs';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/database.js';
import type { ReloadStatus } from '../config/live.js';

/** What `/status` answers and `familiar status` prints. Every field is read defensively: parts may be absent. */
export interface DaemonStatus {
  version: string;
  pid: number;
  startedAt: string;
  uptimeSeconds: number;
  ready: boolean;
  failedModules: string[];
  modules: string[];
  channels: { configured: string[]; running: string[] };
  queue: { active: number; pending: number };
  llm: {
    model: string;
    today: { turns: number; promptTokens: number; completionTokens: number; totalTokens: number };
    dailyTokenBudget: number;
  };
  /** Null when no scheduler has created its tables. */
  jobs: JobsSummary | null;
  memory: { rssMb: number; heapUsedMb: number };
  /** The config file, when it was last read, what waits for a restart, a refused reload. */
  config?: ReloadStatus;
}

export interface JobsSummary {
  total: number;
  enabled?: number;
  /** Runs started in the last 24 hours, by status. */
  runsLast24h?: Record<string, number>;
}

/** What the daemon tells its status endpoint about itself (the composition root fills it in). */
export interface DaemonState {
  config: Config;
  db: Database;
  startedAt: number;
  /** True once every part's start has run. */
  started(): boolean;
  /** Parts whose start threw; the daemon runs without them. */
  failedParts(): string[];
  partNames(): string[];
  runningChannels(): string[];
  /** The chat platforms the config can start (their credentials are set), whether or not they started. */
  configuredChannels(): string[];
  queue: { active(): number; pending(): number };
  /** Today's LLM use, as the usage budget counts it (the usage part's `today`). */
  usageToday(at: Date): DaemonStatus['llm']['today'];
  /** Config reloads (the daemon's, not a one-shot command's). */
  reload?(): ReloadStatus;
}

const VERSION = readVersion();

export function collectStatus(app: DaemonState, now = new Date()): DaemonStatus {
  const config = app.config;
  const configured = app.configuredChannels();
  const memory = process.memoryUsage();
  return {
    version: VERSION,
    pid: process.pid,
    startedAt: new Date(app.startedAt).toISOString(),
    uptimeSeconds: Math.round((now.getTime() - app.startedAt) / 1000),
    ready: app.started(),
    failedModules: app.failedParts(),
    modules: app.partNames(),
    channels: { configured, running: app.runningChannels() },
    queue: { active: app.queue.active(), pending: app.queue.pending() },
    llm: {
      model: config.llm.model,
      today: tokensToday(app, now),
      dailyTokenBudget: config.llm.daily_token_budget,
    },
    jobs: jobsSummary(app.db, now.getTime()),
    memory: { rssMb: megabytes(memory.rss), heapUsedMb: megabytes(memory.heapUsed) },
    ...(app.reload ? { config: app.reload() } : {}),
  };
}

/** Today's LLM use (midnight to midnight in `timezone`), as the usage budget counts it. */
function tokensToday(app: DaemonState, now: Date): DaemonStatus['llm']['today'] {
  const today = app.usageToday(now);
  return { turns: today.turns, promptTokens: today.promptTokens, completionTokens: today.completionTokens, totalTokens: today.totalTokens };
}

/** The scheduler owns its tables; this reads whatever of `jobs` and `job_runs` exists, by column name. */
function jobsSummary(db: Database, now: number): JobsSummary | null {
  const jobColumns = columnsOf(db, 'jobs');
  if (jobColumns.size === 0) return null;
  const summary: JobsSummary = { total: (db.prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number }).n };
  if (jobColumns.has('enabled')) {
    summary.enabled = (db.prepare('SELECT COUNT(*) AS n FROM jobs WHERE enabled = 1').get() as { n: number }).n;
  }
  const runColumns = columnsOf(db, 'job_runs');
  if (runColumns.has('status') && runColumns.has('started_at')) {
    const rows = db
      .prepare('SELECT status, COUNT(*) AS n FROM job_runs WHERE started_at >= ? GROUP BY status')
      .all(now - 86_400_000) as Array<{ status: string; n: number }>;
    summary.runsLast24h = Object.fromEntries(rows.map((row) => [String(row.status), row.n]));
  }
  return summary;
}

function columnsOf(db: Database, table: string): Set<string> {
  const rows = db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as Array<{ name: string }>;
  return new Set(rows.map((row) => row.name));
}

function megabytes(bytes: number): number {
  return Math.round((bytes / 1048576) * 10) / 10;
}

function readVersion(): string {
  try {
    // src/http/status.ts and dist/http/status.js both sit two levels below package.json.
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
