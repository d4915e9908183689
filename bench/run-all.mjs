// Runs the benchmark scripts one after another (each `--json`, in its own process) and prints one table, with the
// machine and its load average before and after each script (the figures move with the load).
// Scripts that cannot run here (no Docker engine, no mail servers) are listed as skipped with their reason.
// Usage: npm run build && npm run bench [-- --soak] [-- --only turn-overhead,channel-path] [-- --json] [-- --out report.json]
//   [-- --smoke]   (every script in its tiny configuration: what the test suite runs, to see that each one works)
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import path from 'node:path';
import { ROOT, SMOKE, table } from './lib.mjs';

const argv = process.argv.slice(2);
const only = argv.includes('--only') ? new Set((argv[argv.indexOf('--only') + 1] ?? '').split(',')) : undefined;

const f = (value, digits = 1) => (typeof value === 'number' && Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const p = (stats, digits = 1, unit = 'ms') => (stats ? `p50 ${f(stats.p50, digits)} / p95 ${f(stats.p95, digits)} ${unit}` : 'n/a');

/** Each script and how its JSON becomes rows of [measure, value]. */
const SCRIPTS = [
  {
    name: 'turn-overhead', timeoutS: 600,
    rows: (r) => [
      ['turn overhead, text', p({ p50: r.text_turn_p50_ms, p95: r.text_turn_p95_ms }, 3)],
      ['turn overhead, one memory_read', p({ p50: r.tool_turn_p50_ms, p95: r.tool_turn_p95_ms }, 3)],
      ['throughput, 64 conversations', `${f(r.turns_per_second_64_conversations, 0)} turns/s`],
      ['RSS after 10 000 turns (growth)', `${f(r.rss_after_mib)} MiB (${r.rss_growth_10k_turns_mib >= 0 ? '+' : ''}${f(r.rss_growth_10k_turns_mib)} MiB)`],
      ['cold start to ready (median of 7)', `${f(r.cold_start_to_ready_ms_median, 0)} ms`],
      ['idle RSS', `${f(r.idle_rss_mib)} MiB`],
    ],
  },
  {
    name: 'commands', timeoutS: 900,
    rows: (r) => [
      ...Object.entries(r.results).map(([key, stats]) => [`whole process, ${key.replace(/\/this$/, '')}`, `p50 ${f(stats.p50, 0)} / p90 ${f(stats.p90, 0)} ms`]),
      ['whole process, node -e 0', `${f(r.node_floor_ms, 0)} ms`],
    ],
  },
  {
    name: 'channel-path', timeoutS: 600,
    rows: (r) => [
      [`channel path, Telegram (${r.messages} msgs, minus LLM)`, p(r.telegram, 2)],
      [`channel path, Discord DM (${r.messages} msgs, minus LLM)`, p(r.discord, 2)],
    ],
  },
  {
    name: 'matrix-path', timeoutS: 600,
    rows: (r) => [
      [`channel path, Matrix direct room (${r.messages} msgs, minus LLM)`, p({ p50: r.p50, p95: r.p95 }, 2)],
      ['matrix-js-sdk import', `${f(r.importMs, 0)} ms`],
    ],
  },
  {
    name: 'sandbox', timeoutS: 900,
    rows: (r) => [
      ['sandbox_exec `true`, warm container', p(r.warmTrue)],
      ['sandbox `true`, cold (create+start+exec+remove)', p(r.coldTrue)],
      ['sandbox python, warm / cold (p50)', `${f(r.warmPython?.p50)} / ${f(r.coldPython?.p50)} ms`],
      ['sandbox, new conversation (warm hand-over)', p(r.freshHandOver)],
      ['sandbox, first call after start', p(r.firstCallAfterStart)],
    ],
  },
  {
    name: 'scheduler-load', timeoutS: 900,
    rows: (r) => [
      [`scheduler, ready with ${r.load.jobs} jobs vs none`, `${f(r.load.full.readyMs, 0)} vs ${f(r.load.empty.readyMs, 0)} ms (+${f(r.load.extraRssMiB)} MiB)`],
      ...r.firing.map((row) => [`scheduler firing delay, ${row.jobs} ${row.kind} jobs in one second`, `p50 ${f(row.p50Ms, 0)} / p95 ${f(row.p95Ms, 0)} ms`]),
    ],
  },
  {
    name: 'heartbeat', timeoutS: 120,
    rows: (r) => [
      [`heartbeat, idle day (${r.beats_per_idle_day} beats)`, `${r.idle_day_model_calls} model calls, ${r.idle_day_tokens} tokens (OpenClaw: 48 calls, ~2 M tokens)`],
      ['heartbeat, one beat with a change', `${r.change_beat_model_calls} call, ~${r.change_beat_tokens_estimated} tokens`],
    ],
  },
  {
    name: 'console', timeoutS: 300,
    rows: (r) => [
      ['console, first page after login (transferred)', `${f(r.first_page_kb)} KB (≤ 150)`],
      ['idle RSS, console off / on / after a page view', `${f(r.idle_rss_console_off_mib)} / ${f(r.idle_rss_console_on_mib)} / ${f(r.idle_rss_after_page_view_mib)} MiB (≤ +10)`],
    ],
  },
  {
    name: 'http-guard', timeoutS: 300,
    rows: (r) => [
      ['http SSRF guard, classify one address', `${f(r.classifyMicroseconds, 2)} µs`],
      ['http guarded GET vs plain GET (new socket)', `${f(r['guarded GET (lookup checked, new socket)']?.p50, 2)} vs ${f(r['plain http.get, new socket (agent: false)']?.p50, 2)} ms p50`],
    ],
  },
  {
    name: 'scrape', timeoutS: 300,
    rows: (r) => [
      ['web_scrape, one page / a crawl of 20 pages (depth 2)', `${f(r['one page (depth 0)']?.p50, 1)} / ${f(r['a crawl, depth 2, 20 pages']?.p50)} ms p50`],
      ['web_scrape render: true, one page (chromium launched)', `${f(r['render: true, one page (chromium launched per call)']?.p50)} ms p50`],
    ],
  },
  {
    name: 'redaction', timeoutS: 300,
    rows: (r) => [
      ['log line, CPU time (no secrets / 5 secrets)', `${f(r.log_line_us_no_secrets, 2)} / ${f(r.log_line_us_5_secrets, 2)} µs`],
      ['child logger, CPU time (no secrets / 5 secrets)', `${f(r.child_logger_us_no_secrets, 2)} / ${f(r.child_logger_us_5_secrets, 2)} µs`],
      ['redacting a 16 KB tool output (5 secrets)', `${f(r.tool_output_16kb_us_5_secrets, 1)} µs`],
    ],
  },
  {
    name: 'memory-history', timeoutS: 300,
    rows: (r) => [
      [`memory history after ${r.appends} appends to one file (${f(r.file_kib, 0)} KiB)`, `${r.history_rows} rows, ${f(r.database_mib)} MiB, ${f(r.last_appends_ms, 2)} ms per append`],
    ],
  },
  {
    name: 'email', timeoutS: 300,
    rows: (r) => [
      ['email, first list (STARTTLS + login + fetch 20)', `${f(r.firstListMs)} ms`],
      ['email, list 20 on the open connection', p(r['list 20 (reused connection)'], 2)],
      ['email, send over SMTP', p(r['send to self (SMTP: TLS, auth, submit)'], 1)],
    ],
  },
  {
    name: 'trust', timeoutS: 300,
    rows: (r) => [
      ['approval gate, high-risk call auto-approved vs low', `${f(r['registry call, high risk auto-approved']?.p50, 3)} vs ${f(r['registry call, low risk (no gate)']?.p50, 3)} ms p50`],
      ['usage budget check over 10 000 turns', `${f(r['usageToday (budget gate) over 10 000 turns']?.p50, 3)} ms p50`],
      ['memory overwrite 20 kB (guard + history)', `${f(r['memory overwrite 20 kB (guard + history row)']?.p50, 3)} ms p50`],
      ['MCP stdio connect + list / tool call', `${f(r['MCP stdio connect + list (5 servers spawned)']?.p50, 0)} ms / ${f(r['MCP tool call through the registry (250)']?.p50, 2)} ms p50`],
    ],
  },
  {
    name: 'utility', timeoutS: 300,
    rows: (r) => [
      [`provenance policy, ${r.tasks.length} benign tasks: questions asked vs wanted`, `${r.totals.asked} vs ${r.totals.wanted} (${r.totals.extra} extra, ${r.totals.missing} missing)`],
      ['provenance policy, questions added to untainted tasks', String(r.untaintedProvenanceQuestions)],
    ],
  },
  {
    name: 'skills', timeoutS: 300,
    rows: (r) => Object.entries(r).filter(([label]) => /list (100|500) skills|200 files/.test(label)).map(([label, stats]) => [`skills, ${label}`, p(stats, 2)]),
  },
  {
    name: 'voice', timeoutS: 900,
    rows: (r) => [
      ...r.stt.map((row) => [`voice, hear a ${row.seconds} s note: endpoint (instant fake) / pocketsphinx added`, `${f(row.endpointMs / row.seconds, 1)} / ${f(row.commandAddedMs / row.seconds, 1)} ms per s of audio`]),
      ...r.tts.map((row) => [`voice, speak ${row.chars} chars (${f(row.spokenSeconds, 1)} s) to OGG/Opus: endpoint / espeak-ng added`, `${f(row.endpointMs / row.spokenSeconds, 1)} / ${f(row.commandAddedMs / row.spokenSeconds, 1)} ms per s of audio`]),
    ],
  },
  {
    name: 'memory-recall', timeoutS: 300,
    rows: (r) => [
      ['memory recall@5 / MRR, FTS5 alone', `${f(r.fts.recall_at_5 * 100)} % / ${f(r.fts.mrr, 3)}`],
      ...(r.fts_local ? [['memory recall@5 / MRR, FTS5 + local embedder', `${f(r.fts_local.recall_at_5 * 100)} % / ${f(r.fts_local.mrr, 3)}`]] : []),
    ],
  },
  {
    name: 'custom-tools', timeoutS: 300,
    rows: (r) => [
      ['make the daemon, no module / 20 tool modules', `${f(r['make the daemon, no module / 20 modules']?.none, 0)} / ${f(r['make the daemon, no module / 20 modules']?.twenty, 0)} ms`],
      ['custom tools, reload after one edit (20 modules)', p(r['reload after one edit, 20 modules'])],
      ['registry call, module tool vs in-code tool', `${f(r['registry call, module tool vs in-code tool']?.module?.p50, 3)} vs ${f(r['registry call, module tool vs in-code tool']?.native?.p50, 3)} ms p50`],
      ['registry call with a before and an after hook', p(r['registry call with a before and an after hook'], 3)],
    ],
  },
  {
    name: 'soak', timeoutS: 1200, flag: '--soak',
    rows: (r) => [
      [`soak ${r.chats}x${r.messages} with faults + kill -9`, `${r.pass ? 'PASS' : 'FAIL'}: ${r.total - r.missing - r.duplicates}/${r.total} answered once (${r.notices} failure notices), ${f(r.seconds, 0)} s`],
      ['soak RSS warm -> end (restarted daemon)', `${f(r.rssMiB.warm)} -> ${f(r.rssMiB.end)} MiB (x${f(r.rssMiB.endOverWarm, 3)})`],
    ],
  },
];

function runScript(script) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', path.join(ROOT, 'bench', `${script.name}.mjs`), '--json', ...(SMOKE ? ['--smoke'] : [])], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), script.timeoutS * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.trim().split('\n').reverse().find((entry) => entry.startsWith('{'));
      let result;
      try {
        result = line ? JSON.parse(line) : undefined;
      } catch {
        result = undefined;
      }
      // scheduler-load prints its JSON over several lines.
      if (!result && stdout.trim().startsWith('{')) {
        try {
          result = JSON.parse(stdout);
        } catch {
          result = undefined;
        }
      }
      const reason = signal ? `killed after ${script.timeoutS} s` : (stderr.trim().split('\n').filter((entry) => !entry.startsWith('{')).at(-1) ?? `exit ${code}`);
      resolve({ code, result, reason: reason.slice(0, 160) });
    });
  });
}

const machine = { nproc: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memoryGiB: totalmem() / 2 ** 30, freeGiB: freemem() / 2 ** 30, node: process.version };
const rows = [['measure', 'value', 'script (load avg 1 min before -> after)']];
const report = { machine, startedAt: new Date().toISOString(), scripts: {} };
/** One script: run it and keep its rows (in the table's order whatever order the scripts finish in). */
async function measure(script) {
  if (!existsSync(path.join(ROOT, 'bench', `${script.name}.mjs`))) return [[script.name, 'not run: script missing', '']];
  if (!argv.includes('--json')) process.stderr.write(`running bench/${script.name}.mjs …\n`);
  const before = loadavg()[0];
  const started = performance.now();
  const { code, result, reason } = await runScript(script);
  const after = loadavg()[0];
  const where = `${script.name} (${f(before)} -> ${f(after)})`;
  report.scripts[script.name] = { code, seconds: (performance.now() - started) / 1000, loadBefore: before, loadAfter: after, result, ...(result ? {} : { reason }) };
  if (!result) return [[script.name, `skipped: ${reason}`, where]];
  try {
    return script.rows(result);
  } catch (error) {
    return [[script.name, `unexpected JSON (${error.message})`, where]];
  }
}

const chosen = SCRIPTS.filter((script) => (only ? only.has(script.name) : !script.flag || argv.includes(script.flag) || SMOKE));
// Measurements run one at a time (they would disturb each other); a smoke run, whose figures mean nothing, two at a
// time: most of its time is spent waiting for daemons and servers to start.
const concurrency = SMOKE ? 2 : 1;
const results = new Array(chosen.length);
let next = 0;
await Promise.all(Array.from({ length: concurrency }, async () => {
  while (next < chosen.length) {
    const index = next;
    next += 1;
    results[index] = await measure(chosen[index]);
  }
}));
for (const [index, script] of chosen.entries()) {
  for (const [measureName, value, where] of results[index]) rows.push([measureName, value, where ?? `${script.name} (${f(report.scripts[script.name]?.loadBefore)} -> ${f(report.scripts[script.name]?.loadAfter)})`]);
}
report.finishedAt = new Date().toISOString();
if (argv.includes('--out')) writeFileSync(argv[argv.indexOf('--out') + 1] ?? 'bench-report.json', `${JSON.stringify(report, null, 2)}\n`);
if (argv.includes('--json')) console.log(JSON.stringify(report));
else {
  console.log(`machine: ${machine.nproc} cores (${machine.cpu}), ${f(machine.memoryGiB)} GiB RAM, Node ${machine.node}; load average now ${loadavg().map((value) => f(value, 2)).join(' ')}`);
  console.log(table(rows));
}
