// Scheduler load: (1) time to ready and RSS with 10 000 persisted jobs vs none, each in a fresh process
// (createDaemon + start, as `familiar start` does); (2) firing delay, scheduled time -> agent turn started,
// for 100 jobs due in the same second (one-shots, then a seconds-field cron). The agent's turn is replaced by
// a recorder, so the figure is the scheduler's own delay, not the LLM's.
// Usage: npm run build && node bench/scheduler-load.mjs [--jobs N] [--json]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
// --smoke: the suite's tiny run (bench/lib.mjs says more); this script has no import of lib.mjs in its child.
const SMOKE = argv.includes('--smoke');
const SELF = fileURLToPath(import.meta.url);
const DIST = new URL('../dist/', import.meta.url);
const dist = (file) => import(new URL(file, DIST).href);
const silent = async () => (await dist('log.js')).createLogger({ level: 'silent', format: 'json', secrets: [] });

function tempDir() {
  return mkdtempSync(path.join(tmpdir(), 'familiar-bench-scheduler-'));
}

function writeConfig(dir) {
  mkdirSync(path.join(dir, 'memory'), { recursive: true });
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, JSON.stringify({ timezone: 'Europe/Paris', data_dir: './data', memory_dir: './memory', log: { level: 'silent' } }));
  return file;
}

async function buildApp(configPath) {
  const { createDaemon } = await dist('daemon.js');
  const { loadConfig } = await dist('config/load.js');
  return createDaemon({ loaded: loadConfig({ configPath, env: {} }), log: await silent(), mode: 'daemon' });
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Persists `count` future jobs: half recurring (50 different crons), half one-shots spread over a year. */
async function seed(dir, count) {
  const { openDatabase } = await dist('db/database.js');
  const { JobStore } = await dist('scheduler/store.js');
  const { nextOccurrence } = await dist('time/timing.js');
  const db = openDatabase(path.join(dir, 'data'));
  const store = new JobStore(db);
  const now = Date.now();
  const crons = Array.from({ length: 50 }, (_, index) => `${index} ${index % 24} * * ${index % 7}`);
  const nextOf = new Map(crons.map((cron) => [cron, nextOccurrence(cron, now, 'Europe/Paris')]));
  db.transaction(() => {
    for (let index = 0; index < count; index += 1) {
      const cron = index % 2 === 0 ? crons[index % crons.length] : undefined;
      const runAt = cron === undefined ? now + 3_600_000 + Math.floor((index / count) * 365 * 86_400_000) : undefined;
      store.insert({
        id: `bench-${index}`, kind: 'agent', cron, runAt, spec: cron ?? new Date(runAt).toISOString(), prompt: `job ${index}`, catchUp: 'once',
        origin: { channel: 'telegram', chatId: String(1000 + (index % 10)) }, deliverTo: undefined, approve: [], sources: [], enabled: true, source: 'chat',
        tz: 'Europe/Paris', nextRunAt: cron ? nextOf.get(cron) : runAt, lastScheduledAt: undefined, doneAt: undefined, configHash: undefined,
        createdAt: now, updatedAt: now,
      });
    }
  })();
  db.close();
}

/** Child process: build + start the app on `dir`, report time and RSS growth. */
async function childLoad(dir) {
  const configPath = path.join(dir, 'config.yaml');
  // Load the code first, so the figures are about the data, not module loading.
  await dist('daemon.js');
  await dist('config/load.js');
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const app = await buildApp(configPath);
  const built = performance.now();
  // Time each module's start, to tell the scheduler's own cost from other parts that read its jobs.
  const moduleMs = {};
  for (const module of app.parts) {
    const start = module.start?.bind(module);
    if (!start) continue;
    module.start = async () => {
      const begun = performance.now();
      await start();
      moduleMs[module.name] = performance.now() - begun;
    };
  }
  await app.start();
  const ready = performance.now();
  const rssAfter = process.memoryUsage().rss;
  const jobs = app.scheduler.store.count();
  await app.close(0);
  process.stdout.write(JSON.stringify({ jobs, createMs: built - started, startMs: ready - built, readyMs: ready - started, schedulerStartMs: moduleMs.scheduler ?? 0, moduleMs, rssDeltaMiB: (rssAfter - rssBefore) / 1048576 }));
}

function runChild(dir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', SELF, '--child-load', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}`))));
  });
}

/** 100 jobs due in the same second; the delay from their scheduled time to the agent turn starting. */
async function firingDelay(kind, count) {
  const dir = tempDir();
  const app = await buildApp(writeConfig(dir));
  const started = [];
  app.agent.runTurn = async (input) => {
    started.push({ job: input.conversationId, at: Date.now() });
    return { turnId: 'bench', status: 'ok', text: 'ok', artifacts: [], usage: { promptTokens: 0, completionTokens: 0, llmCalls: 0 }, model: undefined, toolCalls: 0, externalSources: [] };
  };
  const due = Math.ceil(Date.now() / 1000) * 1000 + (SMOKE ? 1000 : 3000);
  const scheduler = app.scheduler;
  for (let index = 0; index < count; index += 1) {
    const schedule = kind === 'cron' ? { cron: `${new Date(due).getSeconds()} * * * * *` } : { run_at: new Date(due).toISOString() };
    const created = scheduler.create({ prompt: `job ${index}`, source: 'chat', origin: { channel: 'bench', chatId: String(index) }, ...schedule });
    if (!created.success) throw new Error(created.error);
  }
  await app.start();
  while (started.length < count) await new Promise((resolve) => setTimeout(resolve, 50));
  await app.close(0);
  const delays = started.map((entry) => entry.at - due);
  return { kind, jobs: count, p50Ms: percentile(delays, 50), p95Ms: percentile(delays, 95), maxMs: Math.max(...delays) };
}

if (argv[0] === '--child-load') {
  await childLoad(argv[1]);
} else {
  const jobs = Number(option('--jobs', SMOKE ? '20' : '10000'));
  const empty = tempDir();
  writeConfig(empty);
  const full = tempDir();
  writeConfig(full);
  const seeding = performance.now();
  await seed(full, jobs);
  const seedMs = performance.now() - seeding;
  const emptyRun = await runChild(empty);
  const fullRun = await runChild(full);
  const oneShots = await firingDelay('run_at', SMOKE ? 2 : 100);
  const cron = await firingDelay('cron', SMOKE ? 2 : 100);
  const result = {
    load: { jobs, seedMs: Math.round(seedMs), empty: emptyRun, full: fullRun, extraReadyMs: fullRun.readyMs - emptyRun.readyMs, extraRssMiB: fullRun.rssDeltaMiB - emptyRun.rssDeltaMiB },
    firing: [oneShots, cron],
  };
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else {
    const f = (value) => value.toFixed(1);
    console.log(`load at start (createDaemon + start, fresh process):`);
    const others = (run) => Object.entries(run.moduleMs).filter(([name]) => name !== 'scheduler').map(([name, ms]) => `${name} ${f(ms)}`).join(', ');
    console.log(`  no jobs:        ready ${f(emptyRun.readyMs)} ms (scheduler module start ${f(emptyRun.schedulerStartMs)} ms; others: ${others(emptyRun)}), RSS +${f(emptyRun.rssDeltaMiB)} MiB`);
    console.log(`  ${fullRun.jobs} jobs:    ready ${f(fullRun.readyMs)} ms (scheduler module start ${f(fullRun.schedulerStartMs)} ms; others: ${others(fullRun)}), RSS +${f(fullRun.rssDeltaMiB)} MiB`);
    console.log(`  cost of the jobs: +${f(result.load.extraReadyMs)} ms, +${f(result.load.extraRssMiB)} MiB   (target <= 300 ms, <= 30 MiB)`);
    for (const row of result.firing) console.log(`firing delay, ${row.jobs} ${row.kind} jobs due in the same second: p50 ${row.p50Ms} ms, p95 ${row.p95Ms} ms, max ${row.maxMs} ms   (target p95 <= 1000 ms)`);
  }
}
