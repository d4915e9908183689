// Whole-process time of one-shot commands (`familiar ask`, read-only commands), as a person runs them: spawn
// `node dist/main.js …`, wait for exit. The LLM is a local fake that answers at once, so `ask` measures Familiar.
// Two configs: `minimal` (LLM only) and `configured` (channels, sandbox, email, web search and MCP set, none of
// which a one-shot command should pay for). With --compare DIR, the same commands run from another checkout's
// dist/ too, interleaved run by run, so both are measured under the same load.
// Usage: npm run build && node bench/commands.mjs [--runs 15] [--compare /path/to/other/checkout] [--json]
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import path from 'node:path';
import { ROOT, percentile, sized, table, tempDir, writeConfig } from './lib.mjs';

const argv = process.argv.slice(2);
const flag = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const runs = Number(flag('--runs', String(sized(15, 1))));
const compare = flag('--compare', undefined);
const json = argv.includes('--json');

// An OpenAI-compatible fake that answers every chat completion at once.
const llm = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    if (req.url?.endsWith('/models')) {
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'bench', object: 'model' }] }));
      return;
    }
    res.end(JSON.stringify({
      id: 'c', object: 'chat.completion', created: 0, model: 'bench',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hello from the bench' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    }));
  });
});
await new Promise((resolve) => llm.listen(0, '127.0.0.1', resolve));
const llmUrl = `http://127.0.0.1:${llm.address().port}/v1`;

const base = { timezone: 'Europe/Paris', data_dir: './data', memory_dir: './memory', skills_dir: './skills', log: { level: 'warn', format: 'json' }, llm: { base_url: llmUrl, api_key: 'sk-bench', model: 'bench' } };
const allConfigs = {
  minimal: base,
  configured: {
    ...base,
    channels: {
      // Unreachable on purpose: a one-shot command must not contact the platforms.
      telegram: { token: '123456:bench-token-bench-token', api_root: 'http://127.0.0.1:9', allowed_users: [1] },
      discord: { token: 'bench.discord.token', api_url: 'http://127.0.0.1:9/api', allowed_users: ['1'] },
    },
    tools: {
      web_search: { provider: 'searxng', base_url: 'http://127.0.0.1:9' },
      email: { imap: { host: '127.0.0.1', port: 9, secure: true, user: 'me@example.org', password: 'bench-password' } },
      sandbox: { image: 'familiar-sandbox:test', pool_size: 0 },
    },
  },
};

const ALL_COMMANDS = [
  ['ask', ['ask', 'hello']],
  ['jobs list', ['jobs', 'list']],
  ['skills list', ['skills', 'list']],
  ['audit', ['audit', '--limit', '5']],
  ['usage', ['usage']],
  ['memory log', ['memory', 'log']],
  ['pairing list', ['pairing', 'list']],
  ['tools list', ['tools', 'list', '--json']],
];

// --smoke: one read-only command and `ask`, minimal config only.
const configs = sized(allConfigs, { minimal: allConfigs.minimal });
const COMMANDS = sized(ALL_COMMANDS, ALL_COMMANDS.slice(0, 2));

function timeCommand(main, args, cwd) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [main, ...args, '--config', path.join(cwd, 'config.yaml')], { cwd, env: { PATH: process.env.PATH, HOME: cwd }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`${args.join(' ')} exited ${code}: ${stderr.slice(-500)}`))));
  });
}

const builds = [{ name: 'this', main: path.join(ROOT, 'dist', 'main.js') }, ...(compare ? [{ name: path.basename(compare), main: path.join(path.resolve(compare), 'dist', 'main.js') }] : [])];
const results = {};
const loadBefore = loadavg()[0];
for (const [configName, config] of Object.entries(configs)) {
  // Each build gets its own folder: a newer schema in a shared database would stop the older build.
  const dirs = builds.map(() => {
    const dir = tempDir();
    writeConfig(dir, config);
    return dir;
  });
  for (const [label, args] of COMMANDS) {
    const times = builds.map(() => []);
    for (let run = 0; run < runs + 1; run += 1) {
      for (const [index, build] of builds.entries()) {
        const ms = await timeCommand(build.main, args, dirs[index]);
        if (run > 0) times[index].push(ms); // the first run warms the page cache
      }
    }
    for (const [index, build] of builds.entries()) {
      results[`${configName}/${label}/${build.name}`] = { p50: percentile(times[index], 50), p90: percentile(times[index], 90) };
    }
  }
}
// The floor: Node itself.
const floor = [];
for (let run = 0; run < runs; run += 1) {
  const started = performance.now();
  await new Promise((resolve) => spawn(process.execPath, ['-e', '0']).on('close', resolve));
  floor.push(performance.now() - started);
}
llm.close();

const report = { runs, load: [loadBefore, loadavg()[0]], node_floor_ms: percentile(floor, 50), results };
if (json) {
  console.log(JSON.stringify(report));
} else {
  const header = ['config', 'command', ...builds.map((build) => `${build.name} p50 / p90 ms`)];
  const rows = [header];
  for (const configName of Object.keys(configs)) {
    for (const [label] of COMMANDS) {
      rows.push([configName, label, ...builds.map((build) => {
        const result = results[`${configName}/${label}/${build.name}`];
        return `${result.p50.toFixed(0)} / ${result.p90.toFixed(0)}`;
      })]);
    }
  }
  console.log(table(rows));
  console.log(`node -e 0: ${report.node_floor_ms.toFixed(0)} ms; load average ${report.load.map((value) => value.toFixed(1)).join(' → ')} on 2 cores; ${runs} runs each`);
}
