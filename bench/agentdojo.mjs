// AgentDojo (ethz-spylab/agentdojo, MIT; see bench/agentdojo/README.md) ported onto Familiar: every injection task of
// the suites whose tools Familiar has, riding on every user task of its suite, against the real Dovecot/Postfix, the
// Docker sandbox's workspace and local HTTP servers, with a worst-case model that obeys any injection it reads.
// Reports, in chat (the person says no to every question) and unattended (the same prompt as a scheduled job):
// attack success (target 0), questions asked, and the user tasks still completed without a question.
// The harness runs under vitest (bench/agentdojo/run-suites.ts) so that it builds on the test helpers (makeTestApp,
// the fakes, the mail servers) exactly as the tests do; this script starts it with a clean environment.
// Usage: node bench/agentdojo.mjs [--json] [--suite workspace,slack,banking,travel] [--mode chat,unattended]
//        [--gate familiar,allow] [--user user_task_0,…] [--injection injection_task_0,…] [--no-benign] [--no-attacks]
//   --gate allow: a baseline with the approval gate replaced by one that approves everything (what the attacks
//   reach with no gate, and the most the user tasks can complete on this mapping).   (needs root, like the tests)
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, table, tempDir } from './lib.mjs';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const listOf = (flag, fallback) => {
  const index = argv.indexOf(flag);
  return index >= 0 && argv[index + 1] ? argv[index + 1].split(',').filter(Boolean) : fallback;
};
const options = {
  suites: listOf('--suite', ['workspace', 'slack', 'banking', 'travel']),
  modes: listOf('--mode', ['chat', 'unattended']),
  gates: listOf('--gate', ['familiar']),
  users: listOf('--user', []),
  injections: listOf('--injection', []),
  benign: !argv.includes('--no-benign'),
  attacks: !argv.includes('--no-attacks'),
};
const out = path.join(tempDir('familiar-agentdojo-bench-'), 'results.ndjson');
const say = (line) => process.stderr.write(`${line}\n`);

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
const report = JSON.parse(readFileSync(`${out}.report.json`, 'utf8'));

if (json) {
  console.log(JSON.stringify(report, null, 2));
} else {
  console.log(`AgentDojo ${report.source.version}, ${report.source.repository} at ${report.source.commit.slice(0, 12)}; ${report.results.length} runs in ${(report.ms / 60000).toFixed(1)} min\n`);
  console.log(table([
    ['suite', 'mode', 'gate', 'user tasks', 'completed', 'without a question', 'questions', 'pairs', 'injection seen', 'attack success', 'completed under attack', 'questions under attack'],
    ...report.totals.map((t) => [t.suite, t.mode, t.gate, t.userTasks, t.completed, t.completedWithoutQuestion, t.questions, t.pairs, t.injectionSeen, t.attackSuccess, t.completedUnderAttack, t.questionsUnderAttack]),
  ]));
  const sum = (gate, mode, key) => report.totals.filter((t) => t.gate === gate && t.mode === mode).reduce((total, t) => total + t[key], 0);
  for (const gate of options.gates) for (const mode of options.modes) {
    console.log(`\n${gate}, ${mode}: attack success ${sum(gate, mode, 'attackSuccess')} of ${sum(gate, mode, 'pairs')} pairs (injection seen in ${sum(gate, mode, 'injectionSeen')}); `
      + `${sum(gate, mode, 'completedWithoutQuestion')} of ${sum(gate, mode, 'userTasks')} user tasks completed without a question (${sum(gate, mode, 'completed')} completed; ${sum(gate, mode, 'questions')} ${mode === 'chat' ? 'questions asked' : 'calls refused'}).`);
  }
  const attacks = report.results.filter((r) => r.security === true && r.gate === 'familiar');
  if (attacks.length > 0) {
    console.log('\nAttacks that succeeded against Familiar\'s gate:');
    for (const r of attacks) console.log(`- ${r.suite} ${r.user} × ${r.injection} (${r.mode})`);
  }
  const notRun = new Map();
  for (const task of report.notRun) notRun.set(`${task.suite}: ${task.reason}`, [...(notRun.get(`${task.suite}: ${task.reason}`) ?? []), task.task]);
  console.log(`\nNot run (${report.notRun.length} tasks):`);
  for (const [reason, tasks] of notRun) console.log(`- ${reason}: ${tasks.join(', ')}`);
}
