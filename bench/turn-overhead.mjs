// Per-turn overhead of the agent loop against an in-process instant LLM (a text turn, one memory_read, one memory_write),
// throughput across 64 concurrent
// conversations, RSS over 10 000 turns, and cold start / idle RSS of `familiar start` with no channels.
// Usage: npm run build && node --expose-gc bench/turn-overhead.mjs [--json] [--log-level debug] [--memory-files N]
//   [--turns N] [--starts N] [--household]
// --memory-files: N Markdown files in memory_dir besides profile.md (half in notes/, a few hundred bytes each, as a
// year of notes, tasks and reflections leaves), so the per-turn cost of a large memory folder shows.
// --turns: timed turns of each kind (default 2000; 10 000 × that / 2000 turns for the RSS measure); --starts: cold
// starts (default 7). Small values make a quick check that the script runs (test/bench/bench-smoke.test.ts).
// --household: people: configured (docs/household.md), every turn run as a person (the memory folder seen through
// their view, the person's budget checked), to compare with the single person's default.
// --log-level: the in-process app logs at that level (JSON, into a null stream, with three configured secrets), so
// the cost of logging and redaction on every turn is measured; the default `silent` logs nothing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import path from 'node:path';
import { createDaemon } from '../dist/daemon.js';
import { loadConfig } from '../dist/config/load.js';
import { createLogger } from '../dist/log.js';
import { tuneHeapForDaemon } from '../dist/ops/heap.js';
import { mib, percentile, sized, startDaemon, stopDaemon, rssOf, table, tempDir, writeConfig } from './lib.mjs';

// The heap as `familiar start` runs it (FAMILIAR_V8_DEFAULTS=1 to measure with V8's defaults).
tuneHeapForDaemon();

const usage = { promptTokens: 10, completionTokens: 5 };

/** An LLM that answers at once: text, or one memory_read call then text. */
function instantLlm() {
  return {
    models: ['instant'],
    async complete(request) {
      const last = request.messages.at(-1);
      const wantsTool = typeof last.content === 'string' && last.content.startsWith('tool:');
      if (typeof last.content === 'string' && last.content.startsWith('write:') && last.role === 'user') {
        return { content: '', toolCalls: [{ id: 'c1', name: 'memory_write', arguments: JSON.stringify({ path: 'notes/log.md', content: `- ${last.content}\n`, mode: 'append' }) }], usage, model: 'instant', finishReason: 'tool_calls' };
      }
      if (wantsTool && last.role === 'user') {
        return { content: '', toolCalls: [{ id: 'c1', name: 'memory_read', arguments: '{"path":"profile.md"}' }], usage, model: 'instant', finishReason: 'tool_calls' };
      }
      return { content: 'ok', toolCalls: [], usage, model: 'instant', finishReason: 'stop' };
    },
  };
}

const flag = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] ?? fallback : fallback);
const logLevel = flag('--log-level', 'silent');
const memoryFiles = Number(flag('--memory-files', '0'));
const turns = Number(flag('--turns', String(sized(2000, 20))));
const coldStarts = Number(flag('--starts', String(sized(7, 1))));
const household = process.argv.includes('--household');
const HOUSEHOLD = { people: { ada: { role: 'owner', ids: { bench: ['ada'] } }, bo: { role: 'member', ids: { bench: ['bo'] }, budget: { daily_tokens: 1e12 } } } };
const BENCH_SECRETS = ['sk-bench-0123456789abcdef', 'tg-123456:bench-token-value', 'p@ss"word\\bench'];

async function buildApp() {
  const dir = tempDir();
  const configPath = writeConfig(dir, { data_dir: './data', memory_dir: './memory', timezone: 'Europe/Paris', log: { level: logLevel }, agent: { max_concurrent_turns: 64 }, ...(household ? HOUSEHOLD : {}) });
  writeFileSync(path.join(dir, 'memory', 'profile.md'), '# Profile\n- Name: Ada\n- Likes: tea, chess\n');
  fillMemory(path.join(dir, 'memory'), memoryFiles);
  const loaded = loadConfig({ configPath, env: {} });
  const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const log = createLogger({ level: logLevel, format: 'json', secrets: logLevel === 'silent' ? [] : BENCH_SECRETS, destination: sink });
  return createDaemon({ loaded, log, llm: instantLlm(), mode: 'daemon' });
}

/** `count` notes of a few hundred bytes, half of them in notes/: most will not fit in the prompt's budget. */
function fillMemory(memoryDir, count) {
  mkdirSync(path.join(memoryDir, 'notes'), { recursive: true });
  for (let index = 0; index < count; index += 1) {
    const name = index % 2 === 0 ? `notes/note-${index}.md` : `reflection-${index}.md`;
    writeFileSync(path.join(memoryDir, name), `# Note ${index}\n${'Something worth remembering. '.repeat(10)}\n`);
  }
}

async function timeTurns(app, count, text, conversation) {
  const times = [];
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    await app.turns.start({ text, origin: { channel: 'bench', chatId: conversation, ...(household ? { userId: 'ada' } : {}) }, source: 'cli' });
    times.push(performance.now() - started);
  }
  return times;
}

const app = await buildApp();
await app.start(); // as `familiar start` does: the parts' watches and timers run
await timeTurns(app, Math.min(500, turns), 'warm up', 'warm'); // JIT warm-up
const text = await timeTurns(app, turns, 'hello', 'text');
const tool = await timeTurns(app, turns, 'tool: read my profile', 'tool');
// A write changes the folder: the prompt's memory section is made again on the next turn.
const write = await timeTurns(app, Math.max(1, Math.round(turns / 4)), 'write: a line for the log', 'write');

// Throughput: 64 conversations, 50 turns each, concurrently.
const started = performance.now();
const perConversation = Math.max(1, Math.round(turns / 40));
await Promise.all(Array.from({ length: 64 }, (_, index) => timeTurns(app, perConversation, 'hi', `c${index}`)));
const turnsPerSecond = (64 * perConversation) / ((performance.now() - started) / 1000);

// RSS over 10 000 turns (after warm-up; 5 × --turns), across 100 conversations, half text and half one tool call.
global.gc?.();
const rssBefore = process.memoryUsage().rss;
const rounds = Math.max(1, Math.round(turns / 20));
for (let round = 0; round < rounds; round += 1) await Promise.all(Array.from({ length: 10 }, (_, index) => timeTurns(app, 10, index % 2 ? 'tool: x' : 'hi', `r${index}`)));
global.gc?.();
const rssAfter = process.memoryUsage().rss;
await app.close(0);

// Cold start to ready and idle RSS of the real daemon, no channels configured. HOME is the same folder for every
// start: the first writes the code cache (~/.cache/familiar/code) as a person's first start does, the others take it.
const coldDir = tempDir();
writeConfig(coldDir, { data_dir: './data', memory_dir: './memory', log: { level: 'info', format: 'json' } });
const starts = [];
let idleRss = 0;
let idleRssAtOneSecond = 0;
for (let index = 0; index < coldStarts; index += 1) {
  const { child, readyMs } = await startDaemon([], { cwd: coldDir });
  starts.push(readyMs);
  if (index === coldStarts - 1) {
    // Read at 1 s and again at 7 s: an idle daemon's RSS must not wait for V8 to settle (src/ops/heap.ts).
    await new Promise((resolve) => setTimeout(resolve, sized(1000, 50)));
    idleRssAtOneSecond = rssOf(child.pid);
    await new Promise((resolve) => setTimeout(resolve, sized(6000, 50)));
    idleRss = rssOf(child.pid);
  }
  await stopDaemon(child);
}

const results = {
  memory_files: memoryFiles, turns, rss_turns: rounds * 100,
  text_turn_p50_ms: percentile(text, 50), text_turn_p95_ms: percentile(text, 95),
  tool_turn_p50_ms: percentile(tool, 50), tool_turn_p95_ms: percentile(tool, 95),
  write_turn_p50_ms: percentile(write, 50), write_turn_p95_ms: percentile(write, 95),
  turns_per_second_64_conversations: turnsPerSecond,
  rss_growth_10k_turns_mib: mib(rssAfter - rssBefore), rss_before_mib: mib(rssBefore), rss_after_mib: mib(rssAfter),
  cold_start_to_ready_ms_median: percentile(starts, 50), first_start_to_ready_ms: starts[0], idle_rss_mib: mib(idleRss), idle_rss_1s_mib: mib(idleRssAtOneSecond),
};
if (process.argv.includes('--json')) console.log(JSON.stringify(results));
else {
  console.log(table([
    ['measure', 'value', 'target'],
    [`turn overhead, text (p50 / p95), ${memoryFiles} more files in memory_dir`, `${results.text_turn_p50_ms.toFixed(3)} / ${results.text_turn_p95_ms.toFixed(3)} ms`, '≤ 0.15 ms p50'],
    ['turn overhead, one memory_read (p50 / p95)', `${results.tool_turn_p50_ms.toFixed(3)} / ${results.tool_turn_p95_ms.toFixed(3)} ms`, '≤ 0.3 ms p50'],
    ['turn overhead, one memory_write (p50 / p95; a quarter as many)', `${results.write_turn_p50_ms.toFixed(3)} / ${results.write_turn_p95_ms.toFixed(3)} ms`, 'flat in the folder\'s size'],
    ['throughput, 64 conversations', `${Math.round(turnsPerSecond)} turns/s`, '≥ 3000'],
    [`RSS growth over ${results.rss_turns} turns`, `${results.rss_growth_10k_turns_mib.toFixed(1)} MiB (${results.rss_before_mib.toFixed(0)} → ${results.rss_after_mib.toFixed(0)})`, '≤ 10 MiB'],
    [`cold start to ready (median of ${coldStarts})`, `${results.cold_start_to_ready_ms_median.toFixed(0)} ms`, '≤ 120 ms'],
    ['the first of them (no code cache yet: it writes one)', `${results.first_start_to_ready_ms.toFixed(0)} ms`, ''],
    ['idle RSS (7 s after ready)', `${results.idle_rss_mib.toFixed(1)} MiB`, '≤ 62.6 MiB'],
    ['idle RSS (1 s after ready)', `${results.idle_rss_1s_mib.toFixed(1)} MiB`, ''],
  ]));
}
