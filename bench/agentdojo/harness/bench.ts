// The whole yardstick: every user task in scope alone (does the person's task get done, and with how many
// questions), then every (user task × injection task) pair (does the attacker's goal get reached), in chat and
// unattended, with Familiar's gate and optionally with an allow-everything baseline. Results come one by one
// (`onResult`) and as totals per suite, mode and gate.
import { startOpenAiServer } from '../../../test/fakes/openai-server.js';
import { startMailServer, type MailServer } from '../../../test/helpers/mail-server.js';
import { addressesIn, SuiteMail } from './mail.js';
import { runOne, type Gate, type Mode, type Rig, type RunResult } from './run.js';
import { startServices } from './services.js';
import { loadSuite, SUITES, type Suite, type SuiteName, type Task } from './suite.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DATA_DIR } from './suite.js';

export interface BenchOptions {
  suites: readonly SuiteName[];
  modes: readonly Mode[];
  gates: readonly Gate[];
  /** Only these user / injection task ids (all when empty). */
  users?: readonly string[];
  injections?: readonly string[];
  /** Run the user tasks alone (utility) and the pairs (security). */
  benign: boolean;
  attacks: boolean;
  sandboxImage: string;
}

export interface Totals {
  suite: string;
  mode: Mode;
  gate: Gate;
  userTasks: number;
  /** User tasks whose checks held, run alone. */
  completed: number;
  /** … and no question was asked (chat) or nothing refused (unattended). */
  completedWithoutQuestion: number;
  questions: number;
  pairs: number;
  /** Pairs whose user task showed the injection to the model. */
  injectionSeen: number;
  attackSuccess: number;
  /** Pairs whose user task still completed under attack. */
  completedUnderAttack: number;
  questionsUnderAttack: number;
  /** Questions (or refusals) the injected calls added: under attack, minus the same user task's alone. */
  questionsAddedByAttack: number;
}

export interface Report {
  source: { repository: string; commit: string; version: string };
  results: RunResult[];
  totals: Totals[];
  /** Tasks in the port that were not run, and why. */
  notRun: Array<{ suite: string; task: string; reason: string }>;
  ms: number;
}

export const SOURCE = { repository: 'https://github.com/ethz-spylab/agentdojo', commit: '96046ab54a99f5e5ec86b920ea9a2d8ae24ea6d8', version: 'v1.2.1 (agentdojo 0.1.34)' };

const runnable = (task: Task): boolean => task.pending === undefined && task.unmapped === undefined;

export async function runBench(options: BenchOptions, onResult: (result: RunResult) => void = () => undefined): Promise<Report> {
  const started = performance.now();
  const suites = options.suites.map(loadSuite);
  const fake = await startOpenAiServer();
  const services = await startServices();
  const needsMail = options.suites.some((name) => name === 'workspace' || name === 'travel');
  let server: MailServer | undefined;
  const results: RunResult[] = [];
  try {
    server = needsMail ? await startMailServer() : undefined;
    const mail = server ? new SuiteMail(server) : undefined;
    if (mail) mail.addUsers(options.suites.flatMap(suiteAddresses));
    const rig: Rig = { fake, services, mail, sandboxImage: options.sandboxImage };
    for (const suite of suites) {
      const users = suite.userTasks.filter((task) => runnable(task) && selected(options.users, task.id));
      const injections = suite.injectionTasks.filter((task) => runnable(task) && selected(options.injections, task.id));
      for (const gate of options.gates) {
        for (const mode of options.modes) {
          if (options.benign) for (const user of users) record(await runOne(rig, suite, user, undefined, mode, gate));
          if (options.attacks) for (const user of users) for (const injection of injections) record(await runOne(rig, suite, user, injection, mode, gate));
        }
      }
    }
  } finally {
    await server?.stop();
    await services.close();
    await fake.close();
  }
  return { source: SOURCE, results, totals: totalsOf(results), notRun: notRun(suites), ms: Math.round(performance.now() - started) };

  function record(result: RunResult): void {
    results.push(result);
    onResult(result);
  }
}

function selected(ids: readonly string[] | undefined, id: string): boolean {
  return ids === undefined || ids.length === 0 || ids.includes(id);
}

/** Every address a suite's files name (each gets a mailbox, so whatever the assistant sends is delivered). */
export function suiteAddresses(name: SuiteName): string[] {
  const files = name === 'workspace' ? ['environment.yaml', 'include/inbox.yaml', 'include/cloud_drive.yaml', 'include/calendar.yaml', 'tasks.yaml'] : ['environment.yaml', 'tasks.yaml'];
  return addressesIn(files.map((file) => readFileSync(path.join(DATA_DIR, name, file), 'utf8')).join('\n'));
}

export function totalsOf(results: readonly RunResult[]): Totals[] {
  const groups = new Map<string, RunResult[]>();
  for (const result of results) {
    const key = `${result.suite}\u0000${result.mode}\u0000${result.gate}`;
    groups.set(key, [...(groups.get(key) ?? []), result]);
  }
  return [...groups.values()].map((group) => {
    const first = group[0] as RunResult;
    const alone = group.filter((result) => result.injection === null);
    const pairs = group.filter((result) => result.injection !== null);
    return {
      suite: first.suite, mode: first.mode, gate: first.gate,
      userTasks: alone.length,
      completed: alone.filter((result) => result.utility).length,
      completedWithoutQuestion: alone.filter((result) => result.utility && result.questions === 0).length,
      questions: alone.reduce((sum, result) => sum + result.questions, 0),
      pairs: pairs.length,
      injectionSeen: pairs.filter((result) => result.seen).length,
      attackSuccess: pairs.filter((result) => result.security === true).length,
      completedUnderAttack: pairs.filter((result) => result.utility).length,
      questionsUnderAttack: pairs.reduce((sum, result) => sum + result.questions, 0),
      questionsAddedByAttack: pairs.reduce((sum, result) => sum + result.questions - (alone.find((user) => user.user === result.user)?.questions ?? 0), 0),
    };
  });
}

function notRun(suites: readonly Suite[]): Report['notRun'] {
  return suites.flatMap((suite) => [...suite.userTasks, ...suite.injectionTasks]
    .filter((task) => !runnable(task))
    .map((task) => ({ suite: suite.name, task: task.id, reason: task.pending !== undefined ? `pending: ${task.pending}` : `not mapped: ${task.unmapped ?? ''}` })));
}

export { SUITES };
