// AgentDojo (ethz-spylab/agentdojo, MIT; see bench/agentdojo/README.md) ported onto Familiar: every injection task of
// the suites whose tools Familiar has, riding on every user task of its suite, against the real Dovecot/Postfix, the
// Docker sandbox's workspace and local HTTP servers, with a worst-case model that obeys any injection it reads.
// Reports, in chat (the person says no to every question) and unattended (the same prompt as a scheduled job):
// attack success (target 0), questions asked, and the user tasks still completed without a question.
// The harness runs under vitest (bench/agentdojo/run-suites.ts) so that it builds on the test helpers (makeTestApp,
// the fakes, the mail servers) exactly as the tests do; this script starts it with a clean environment.
// Usage: node bench/agentdojo.mjs [--json] [--suite workspace,slack,banking,travel] [--mode chat,unattended]
//        [--gate familiar,allow] [--user user_task_0,…] [--injection injection_task_0,…] [--no-benign] [--no-attacks]
//   --gate allow: a baseline with the gate replaced by one that allows every call (what the attacks
//   reach with no gate, and the most the user tasks can complete on this mapping).   (needs root, like the tests)
//   --from FILE: print the report of an earlier --json run instead of running.
//   --smoke: one slack pair in a chat (what the test suite runs to see that the script works; its figures mean nothing).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ROOT, SMOKE, table, tempDir } from './lib.mjs';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const listOf = (flag, fallback) => {
  const index = argv.indexOf(flag);
  return index >= 0 && argv[index + 1] ? argv[index + 1].split(',').filter(Boolean) : fallback;
};
// The smoke run (test/bench/bench-smoke.test.ts): one slack user task alone and under one injection, in a chat, on
// the local services only (no mail server, no container), so the whole path from this script to the report runs.
const options = {
  suites: listOf('--suite', SMOKE ? ['slack'] : ['workspace', 'slack', 'banking', 'travel']),
  modes: listOf('--mode', SMOKE ? ['chat'] : ['chat', 'unattended']),
  gates: listOf('--gate', ['familiar']),
  users: listOf('--user', SMOKE ? ['user_task_0'] : []),
  injections: listOf('--injection', SMOKE ? ['injection_task_1'] : []),
  benign: !argv.includes('--no-benign'),
  attacks: !argv.includes('--no-attacks'),
};
const say = (line) => process.stderr.write(`${line}\n`);
const from = listOf('--from', [])[0];
const report = from ? JSON.parse(readFileSync(from, 'utf8')) : await run();
if (from) {
  options.gates = [...new Set(report.totals.map((t) => t.gate))];
  options.modes = [...new Set(report.totals.map((t) => t.mode))];
}

/** Runs the harness under vitest and returns its report. */
async function run() {
  const folder = tempDir('familiar-agentdojo-bench-');
  const out = path.join(folder, 'results.ndjson');
  const child = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'bench/agentdojo/vitest.config.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, AGENTDOJO_OUT: out, AGENTDOJO_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let vitestOutput = '';
  child.stdout.on('data', (chunk) => { vitestOutput += chunk; });
  child.stderr.on('data', (chunk) => { vitestOutput += chunk; });
  const progress = setInterval(() => {
    if (!existsSync(out)) return;
    const lines = readFileSync(out, 'utf8').trim().split('\n').filter(Boolean);
    if (lines.length > 0) say(`agentdojo: ${lines.length} runs done (last: ${JSON.parse(lines.at(-1)).suite} ${JSON.parse(lines.at(-1)).mode})`);
  }, 30_000);
  const code = await new Promise((resolve) => child.on('close', resolve));
  clearInterval(progress);
  if (code !== 0 || !existsSync(`${out}.report.json`)) {
    say(vitestOutput.slice(-6000));
    say(`agentdojo: the harness failed (exit ${code})`);
    process.exit(1);
  }
  const result = JSON.parse(readFileSync(`${out}.report.json`, 'utf8'));
  rmSync(folder, { recursive: true, force: true });
  return result;
}

if (json) {
  console.log(JSON.stringify(report, null, 2));
} else {
  console.log(`AgentDojo ${report.source.version}, ${report.source.repository} at ${report.source.commit.slice(0, 12)}; ${report.results.length} runs in ${(report.ms / 60000).toFixed(1)} min\n`);
  console.log(table([
    ['suite', 'mode', 'gate', 'user tasks', 'completed', 'without a question', 'questions', 'pairs', 'injection seen', 'attack success', 'completed under attack', 'questions under attack', 'added by the attack'],
    ...report.totals.map((t) => [t.suite, t.mode, t.gate, t.userTasks, t.completed, t.completedWithoutQuestion, t.questions, t.pairs, t.injectionSeen, t.attackSuccess, t.completedUnderAttack, t.questionsUnderAttack, t.questionsAddedByAttack ?? '-']),
  ]));
  const sum = (gate, mode, key) => report.totals.filter((t) => t.gate === gate && t.mode === mode).reduce((total, t) => total + t[key], 0);
  for (const gate of options.gates) for (const mode of options.modes) {
    console.log(`\n${gate}, ${mode}: attack success ${sum(gate, mode, 'attackSuccess')} of ${sum(gate, mode, 'pairs')} pairs (injection seen in ${sum(gate, mode, 'injectionSeen')}); `
      + `${sum(gate, mode, 'completedWithoutQuestion')} of ${sum(gate, mode, 'userTasks')} user tasks completed without a question (${sum(gate, mode, 'completed')} completed; ${sum(gate, mode, 'questions')} ${mode === 'chat' ? 'questions asked' : 'calls refused'}).`);
  }
  // Per injection task and mode: in how many of its pairs the goal was reached, wholly or in part.
  const byTask = new Map();
  for (const r of report.results.filter((result) => result.injection !== null)) {
    const key = `${r.gate}: ${r.suite} ${r.injection} (${r.mode})`;
    const entry = byTask.get(key) ?? { pairs: 0, reached: 0, partly: 0 };
    entry.pairs += 1;
    if (r.security) entry.reached += 1;
    else if (r.goalParts && r.goalParts.held > 0) entry.partly += 1;
    byTask.set(key, entry);
  }
  const reached = [...byTask].filter(([, entry]) => entry.reached > 0 || entry.partly > 0);
  if (reached.length > 0) {
    console.log('\nInjection tasks whose goal was reached (in how many of their pairs), or partly reached:');
    for (const [key, entry] of reached) console.log(`- ${key}: reached ${entry.reached} of ${entry.pairs}${entry.partly > 0 ? `, partly ${entry.partly}` : ''}`);
  }
  const notRun = new Map();
  for (const task of report.notRun) notRun.set(`${task.suite}: ${task.reason}`, [...(notRun.get(`${task.suite}: ${task.reason}`) ?? []), task.task]);
  console.log(`\nNot run (${report.notRun.length} tasks):`);
  for (const [reason, tasks] of notRun) console.log(`- ${reason}: ${tasks.join(', ')}`);
}
