// The heartbeat's cost: model calls and tokens over a simulated idle day (48 beats at every: 30m), and for one beat
// with a change (a task falling due), against a local OpenAI-compatible server that counts requests and reports
// the usage a provider would (prompt tokens estimated as characters / 4, since the server has no tokenizer).
// Beside it, OpenClaw's figures from issue 26: a full agent turn every 30 minutes, about 2 M tokens an idle day.
// Usage: npm run build && env -i PATH=$PATH HOME=$HOME node bench/heartbeat.mjs [--json]
import { createServer } from 'node:http';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SMOKE, tempDir } from './lib.mjs';

const dist = (file) => import(new URL(`../dist/${file}`, import.meta.url).href);
const JSON_OUT = process.argv.includes('--json');
const HALF_HOUR = 30 * 60_000;

/** A Chat Completions server answering `{"nothing_to_report": true}`, counting calls and estimated tokens. */
async function countingServer() {
  const seen = { calls: 0, promptTokens: 0, completionTokens: 0 };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      const content = '{"nothing_to_report": true}';
      const prompt = Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
      const completion = Math.ceil(content.length / 4);
      seen.calls += 1;
      seen.promptTokens += prompt;
      seen.completionTokens += completion;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({
        id: `c${seen.calls}`, object: 'chat.completion', created: 0, model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
      }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { seen, url: `http://127.0.0.1:${server.address().port}/v1`, close: () => new Promise((resolve) => server.close(resolve)) };
}

const fake = await countingServer();
const dir = tempDir('familiar-bench-heartbeat-');
mkdirSync(path.join(dir, 'memory'), { recursive: true });
mkdirSync(path.join(dir, 'skills'), { recursive: true });
const configPath = path.join(dir, 'config.yaml');
writeFileSync(configPath, JSON.stringify({
  timezone: 'Europe/Paris', data_dir: './data', memory_dir: './memory', skills_dir: './skills', log: { level: 'silent' },
  llm: { base_url: fake.url, api_key: 'bench-key', model: 'bench-model', max_retries: 0 },
  heartbeat: { every: '30m' },
}));
const [{ loadConfig }, { createLogger }, { createDaemon }] = await Promise.all([dist('config/load.js'), dist('log.js'), dist('daemon.js')]);
let clock = Date.UTC(2026, 10, 26, 7, 0);
const loaded = loadConfig({ configPath, env: {} });
const app = await createDaemon({ loaded, log: createLogger({ level: 'silent', format: 'json', secrets: [] }), mode: 'command', now: () => new Date(clock) });

const beatsPerDay = SMOKE ? 4 : 48;
for (let index = 0; index < beatsPerDay; index += 1) {
  clock += HALF_HOUR;
  await app.heartbeat.beat();
}
const idle = { ...fake.seen };
appendFileSync(path.join(dir, 'memory', 'tasks.md'), '- [ ] Pay the rent 📅 2026-11-26\n');
clock += HALF_HOUR;
const outcome = await app.heartbeat.beat();
const change = { calls: fake.seen.calls - idle.calls, tokens: fake.seen.promptTokens + fake.seen.completionTokens - idle.promptTokens - idle.completionTokens };
await app.close(0);
await fake.close();

const report = {
  beats_per_idle_day: beatsPerDay,
  idle_day_model_calls: idle.calls,
  idle_day_tokens: idle.promptTokens + idle.completionTokens,
  change_beat_outcome: outcome.kind,
  change_beat_model_calls: change.calls,
  change_beat_tokens_estimated: change.tokens,
  openclaw_idle_day_tokens: 2_000_000,
  openclaw_idle_day_model_calls: 48,
};
if (JSON_OUT) console.log(JSON.stringify(report));
else {
  console.log(`heartbeat, idle day (${beatsPerDay} beats): ${report.idle_day_model_calls} model calls, ${report.idle_day_tokens} tokens  (OpenClaw: 48 calls, about 2,000,000 tokens; openclaw #64293)`);
  console.log(`heartbeat, one beat with a change: ${report.change_beat_model_calls} model call, about ${report.change_beat_tokens_estimated} tokens (${report.change_beat_outcome})`);
}
