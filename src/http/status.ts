import { readFileSync } from 'node:fs';
import type { App } from '../app.js';
import type { Database } from '../db/database.js';

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
}

export interface JobsSummary {
  total: number;
  enabled?: number;
  /** Runs started in the last 24 hours, by status. */
  runsLast24h?: Record<string, number>;
}

const VERSION = readVersion();

export function collectStatus(app: App, now = new Date()): DaemonStatus {
  const config = app.config;
  const configured = [
    ...(config.channels.telegram?.token ? ['telegram'] : []),
    ...(config.channels.discord?.token ? ['discord'] : []),
  ];
  const memory = process.memoryUsage();
  return {
    version: VERSION,
    pid: process.pid,
    startedAt: new Date(app.startedAt).toISOString(),
    uptimeSeconds: Math.round((now.getTime() - app.startedAt) / 1000),
    ready: app.started,
    failedModules: [...app.failedModules],
    modules: app.modules.map((module) => module.name),
    channels: { configured, running: app.channels.names() },
    queue: { active: app.queue.active(), pending: app.queue.pending() },
    llm: {
      model: config.llm.model,
      today: usageSince(app.db, startOfDay(now, app.clock.format(now))),
      dailyTokenBudget: config.llm.daily_token_budget,
    },
    jobs: jobsSummary(app.db, now.getTime()),
    memory: { rssMb: megabytes(memory.rss), heapUsedMb: megabytes(memory.heapUsed) },
  };
}

/**
 * Midnight of `now`'s day in the configured zone, from the zone's wall-clock "YYYY-MM-DD HH:MM".
 * Off by the shift on the one day a year whose night had a DST change; fine for a usage figure.
 */
export function startOfDay(now: Date, zonedWallClock: string): number {
  const match = /(\d{2}):(\d{2})$/.exec(zonedWallClock);
  const minutes = match ? Number(match[1]) * 60 + Number(match[2]) : 0;
  return now.getTime() - minutes * 60_000 - now.getUTCSeconds() * 1000 - now.getUTCMilliseconds();
}

function usageSince(db: Database, since: number): DaemonStatus['llm']['today'] {
  const row = db
    .prepare('SELECT COUNT(*) AS turns, COALESCE(SUM(prompt_tokens), 0) AS prompt, COALESCE(SUM(completion_tokens), 0) AS completion FROM turns WHERE started_at >= ?')
    .get(since) as { turns: number; prompt: number; completion: number };
  return { turns: row.turns, promptTokens: row.prompt, completionTokens: row.completion, totalTokens: row.prompt + row.completion };
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
