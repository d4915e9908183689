// Trust overheads: the approval gate per high-risk call, usageToday with many turns, the memory write guard,
// and MCP over stdio (connect + list, one call through the registry). Run: npm run build && node bench/trust.mjs [--json]
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { createDaemon } from '../dist/daemon.js';
import { loadConfig } from '../dist/config/load.js';
import { createLogger } from '../dist/log.js';
import { McpManager } from '../dist/mcp/manager.js';
import { ToolRegistry } from '../dist/registry/registry.js';
import { usageToday } from '../dist/usage/usage.js';
import { percentile, reporter, ROOT, sized, tempDir, writeConfig } from './lib.mjs';

const { report, finish } = reporter();
const log = createLogger({ level: 'silent', format: 'json', secrets: [] });
const dir = tempDir();
const configPath = writeConfig(dir, {
  data_dir: './data', memory_dir: './memory', log: { level: 'silent', format: 'json' },
  approval: { auto_approve: ['hi'] }, llm: { api_key: 'sk-bench-0000', daily_token_budget: 1_000_000 },
});
const app = await createDaemon({ loaded: loadConfig({ configPath, env: {} }), log, mode: 'daemon' });
app.tools.register({ name: 'hi', description: 'high risk', risk: 'high', parameters: { type: 'object', properties: {} }, execute: async () => ({ success: true, output: 'ok' }) });
app.tools.register({ name: 'lo', description: 'low risk', parameters: { type: 'object', properties: {} }, execute: async () => ({ success: true, output: 'ok' }) });

async function perCall(name, count, extra = {}) {
  const times = [];
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    await app.tools.execute({ name, arguments: {}, conversationId: 'bench', turnId: 't', origin: { channel: 'cli', chatId: 'b' }, ...extra });
    times.push(performance.now() - started);
  }
  return times;
}
await perCall('lo', sized(200, 2));
const low = await perCall('lo', sized(2000, 5));
const high = await perCall('hi', sized(2000, 5));
report('registry call, low risk (no gate)', { p50: percentile(low, 50), p99: percentile(low, 99) }, `registry call, low risk (no gate):         p50 ${percentile(low, 50).toFixed(3)} ms  p99 ${percentile(low, 99).toFixed(3)} ms`);
report('registry call, high risk auto-approved', { p50: percentile(high, 50), p99: percentile(high, 99) }, `registry call, high risk auto-approved:    p50 ${percentile(high, 50).toFixed(3)} ms  p99 ${percentile(high, 99).toFixed(3)} ms`);

const insert = app.db.prepare("INSERT INTO turns (id, conversation_id, source, started_at, status, model, llm_calls, prompt_tokens, completion_tokens) VALUES (?, ?, 'chat', ?, 'ok', 'gpt-test', 1, 1000, 200)");
const now = Date.now();
app.db.transaction(() => { for (let index = 0; index < 10_000; index += 1) insert.run(`t${index}`, `c${index % 50}`, now - index * 8_000); })();
const usageTimes = [];
for (let index = 0; index < sized(500, 2); index += 1) {
  const started = performance.now();
  usageToday(app.db, app.config);
  usageTimes.push(performance.now() - started);
}
report('usageToday (budget gate) over 10 000 turns', { p50: percentile(usageTimes, 50), p99: percentile(usageTimes, 99) }, `usageToday (budget gate) over 10 000 turns: p50 ${percentile(usageTimes, 50).toFixed(3)} ms  p99 ${percentile(usageTimes, 99).toFixed(3)} ms`);

writeFileSync(path.join(app.config.memory_dir, 'notes.md'), 'x'.repeat(20_000));
const writeTimes = [];
for (let index = 0; index < sized(300, 2); index += 1) {
  await app.tools.execute({ name: 'memory_read', arguments: { path: 'notes.md' }, conversationId: 'bench', turnId: 't', origin: { channel: 'cli', chatId: 'b' } });
  const started = performance.now();
  await app.memory.write('notes.md', `${'x'.repeat(20_000)}${index}`, { conversationId: 'bench' });
  writeTimes.push(performance.now() - started);
}
report('memory overwrite 20 kB (guard + history row)', { p50: percentile(writeTimes, 50), p99: percentile(writeTimes, 99) }, `memory overwrite 20 kB (guard + history row): p50 ${percentile(writeTimes, 50).toFixed(3)} ms  p99 ${percentile(writeTimes, 99).toFixed(3)} ms`);
await app.close(0);

const registry = new ToolRegistry();
registry.setContext({ config: app.config, log, db: undefined, memory: undefined, llm: undefined, secrets: [] });
const server = { command: process.execPath, args: [path.join(ROOT, 'test/fakes/mcp-server.mjs')], env: {}, headers: {}, trust: 'low', timeout_s: 30 };
const connects = [];
const calls = [];
for (let round = 0; round < sized(5, 1); round += 1) {
  const manager = new McpManager({ servers: { fake: server }, tools: registry, log });
  const started = performance.now();
  await manager.connectNow();
  connects.push(performance.now() - started);
  for (let index = 0; index < sized(50, 2); index += 1) {
    const callStarted = performance.now();
    await registry.execute({ name: 'mcp:fake:echo', arguments: { text: 'x' }, conversationId: 'c', turnId: 't', origin: { channel: 'cli', chatId: 'b' } });
    calls.push(performance.now() - callStarted);
  }
  await manager.close();
}
report('MCP stdio connect + list (5 servers spawned)', { p50: percentile(connects, 50), max: Math.max(...connects) }, `MCP stdio connect + list (5 servers spawned): p50 ${percentile(connects, 50).toFixed(0)} ms  max ${Math.max(...connects).toFixed(0)} ms`);
report('MCP tool call through the registry (250)', { p50: percentile(calls, 50), p99: percentile(calls, 99) }, `MCP tool call through the registry (250):     p50 ${percentile(calls, 50).toFixed(2)} ms  p99 ${percentile(calls, 99).toFixed(2)} ms`);
finish();
