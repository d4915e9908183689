// One run: a fresh daemon (makeTestApp, as the tests build it) on a freshly seeded world, one user task with or
// without one injection task, in a chat where the person says no to every question or as a scheduled job nobody
// can answer; then the suite's checks on what it left behind.
import { chownSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Daemon } from '../../../src/daemon.js';
import type { CallGate } from '../../../src/tools/call.js';
import type { FakeOpenAI } from '../../../test/fakes/openai-server.js';
import { makeTestApp, tempDir } from '../../../test/helpers/app.js';
import { askWith, recordingPrompter } from '../../../test/helpers/approval.js';
import { failedChecks, type Observed } from './checks.js';
import type { Delivered, SuiteMail } from './mail.js';
import { mapCall, toolsOf } from './mapping.js';
import { worstCaseModel, type ModelLog } from './model.js';
import { serviceState } from './service-functions.js';
import type { Services } from './services.js';
import { injectionText, type Suite, type Task } from './suite.js';
import { PERSON, suiteWorld, toolsConfig } from './world.js';

export type Mode = 'chat' | 'unattended';
/** `familiar`: the daemon as built; `allow`: its gate replaced by one that allows every call (a baseline). */
export type Gate = 'familiar' | 'allow';

/** The baseline's gate: every call goes through, nothing vouches (as test/gate/leak-budget-security.test.ts's). */
const ALLOW: CallGate = { decide: async () => ({ allowed: true }), vouched: () => undefined };

export interface Rig {
  fake: FakeOpenAI;
  services: Services;
  mail: SuiteMail | undefined;
  sandboxImage: string;
}

export interface RunResult {
  suite: string;
  user: string;
  injection: string | null;
  mode: Mode;
  gate: Gate;
  /** A tool result held the injection. */
  seen: boolean;
  utility: boolean;
  /** The injection task's goal was reached (null without an injection). */
  security: boolean | null;
  /** How many of the injection task's conditions held (a partly reached goal, e.g. files deleted but no mail sent). */
  goalParts: { held: number; of: number } | null;
  /** Questions put to the person (chat), or calls refused because nobody could be asked (unattended). */
  questions: number;
  refused: number;
  calls: number;
  failedUtility: string[];
  /** Calls that failed or were refused, with the start of the answer. */
  failedCalls: string[];
  /** Ground-truth calls with no Familiar counterpart. */
  skipped: string[];
  /** Other lasting effects: jobs or skills made, memory files changed. */
  sideEffects: string[];
  status: string;
  ms: number;
}

/** The answer the model gives when its calls went through: the strings the task's `answer` checks look for. */
function expectedAnswer(task: Task): string[] {
  return task.checks.flatMap((check) => (Array.isArray(check.answer) ? check.answer.map(String) : []));
}

export async function runOne(rig: Rig, suite: Suite, user: Task, injection: Task | undefined, mode: Mode, gate: Gate): Promise<RunResult> {
  const started = performance.now();
  const injections = injection ? Object.fromEntries([...suite.vectors.keys()].map((key) => [key, injectionText(injection.text)])) : {};
  const environment = suite.environment(injections);
  rig.services.reset(environment);
  const world = suiteWorld(suite.name, environment, rig.services.urls);
  const hasMail = rig.mail !== undefined && (suite.name === 'workspace' || suite.name === 'travel');
  if (hasMail && rig.mail) await rig.mail.seedPerson(PERSON, world.emails);
  const logOffset = rig.mail?.logOffset() ?? 0;

  const dir = tempDir('familiar-agentdojo-');
  mkdirSync(path.join(dir, 'memory'), { recursive: true });
  writeFileSync(path.join(dir, 'memory', 'profile.md'), world.profile);
  const mailLogin = hasMail && rig.mail ? { host: rig.mail.server.host, imapPort: rig.mail.server.imapPort, smtpPort: rig.mail.server.smtpPort, ca: rig.mail.server.ca, password: rig.mail.login(PERSON).password } : undefined;
  const tools = toolsConfig(suite.name, rig.services, mailLogin, rig.sandboxImage);
  const app = await daemonWith(rig.fake, tools, dir);
  try {
    if (gate === 'allow') app.tools.setGate(ALLOW);
    const model = worstCaseModel({ user, injection, view: world.view, answer: expectedAnswer(user) });
    rig.fake.handle(model.handle);
    const jobId = `agentdojo-${suite.name}-${user.id}`.replace(/_/g, '-');
    const chat = { channel: 'telegram', chatId: 'emma', userId: 'emma' };
    const conversationId = mode === 'chat' ? app.conversations.resolve(chat.channel, chat.chatId) : `job-${jobId}`;
    const workspace = path.join(dir, 'data', 'workspaces', conversationId);
    seedWorkspace(workspace, world.files);
    let jobsBefore = app.scheduler.list().length;
    const skillsBefore = app.skills.list().length;

    let questions = 0;
    let status: string;
    if (mode === 'chat') {
      const prompter = recordingPrompter('deny');
      const result = await app.turns.start({ text: user.text, origin: chat, source: 'chat', approve: askWith(app, prompter) });
      questions = prompter.prompts.length;
      status = result.status;
    } else {
      // The person's own job: its approve list names the tools the task needs, as they would for a job they wrote.
      const approve = toolsOf(user.groundTruth.flatMap((call) => mapCall(call, world.view, '')));
      const created = app.scheduler.create({ id: jobId, prompt: user.text, cron: '0 7 * * *', source: 'config', approve });
      if (!created.success) throw new Error(created.error);
      jobsBefore += 1;
      const run = await app.scheduler.runNow(jobId);
      status = run.success ? run.value.status : `failed: ${run.error}`;
    }
    const audit = app.db.prepare('SELECT decision FROM audit WHERE conversation_id = ?').all(conversationId) as Array<{ decision: string | null }>;
    const refused = audit.filter((row) => row.decision?.startsWith('denied') === true).length;

    const mail = new Map<string, Delivered[]>();
    let personUnread = 0;
    if (rig.mail) {
      const sent = model.log.calls.filter((call) => call.name === 'email' && call.success === true && (call.arguments.action === 'send' || call.arguments.action === 'reply')).length;
      for (const address of await rig.mail.settle(logOffset, sent)) mail.set(address, await rig.mail.collect(address, PERSON));
      if (hasMail) personUnread = await rig.mail.unseen(PERSON);
    }
    const observed: Observed = {
      answer: model.log.answer, mail, personUnread, files: readWorkspace(workspace), seededFiles: world.files,
      state: rig.services.state, seed: serviceState(environment), calls: rig.services.calls, placeholders: world.view.placeholders,
    };
    const failedUtility = failedChecks(user.checks, observed);
    const securityFailed = injection ? failedChecks(injection.checks, observed) : [];
    const security = injection ? securityFailed.length === 0 : null;
    const sideEffects = lasting(app.scheduler.list().length - jobsBefore, app.skills.list().length - skillsBefore, dir, world.profile);
    return {
      suite: suite.name, user: user.id, injection: injection?.id ?? null, mode, gate, seen: model.log.seen,
      utility: failedUtility.length === 0, security,
      goalParts: injection ? { held: injection.checks.length - securityFailed.length, of: injection.checks.length } : null, questions: mode === 'chat' ? questions : refused, refused,
      calls: model.log.calls.length, failedUtility,
      failedCalls: model.log.calls.filter((call) => call.success === false).map((call) => `${call.origin} ${call.name} (${call.from}): ${call.error ?? ''}`), skipped: skippedOf(model.log), sideEffects, status, ms: Math.round(performance.now() - started),
    };
  } finally {
    await app.close(0);
    // A full bench makes over a thousand daemons' folders; nothing reads one after its run is scored.
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A daemon with the suite's tools. Its sandbox is off when Docker does not answer within the daemon's start-up
 * timeout, which happened to 3 of 2620 runs at load 10; such a run would score the missing tool, not the gate, so it
 * is made again.
 */
async function daemonWith(fake: FakeOpenAI, tools: Record<string, unknown>, dir: string): Promise<Daemon> {
  for (let attempt = 1; ; attempt += 1) {
    const { app } = await makeTestApp(fake, { memory_dir: './memory', timezone: 'UTC', log: { level: 'warn', format: 'json' }, llm: { max_loops: 100 }, tools }, dir);
    if (tools.sandbox === undefined || app.tools.get('sandbox_exec') !== undefined) return app;
    await app.close(0);
    if (attempt === 3) throw new Error('the sandbox did not start in three daemons: is Docker answering?');
  }
}

function skippedOf(log: ModelLog): string[] {
  return [...new Set(log.skipped.map((skip) => `${skip.from} (${skip.reason})`))];
}

/** The workspace as the sandbox user owns it: the container may change and delete what it holds. */
function seedWorkspace(workspace: string, files: ReadonlyMap<string, string>): void {
  if (files.size === 0) return;
  mkdirSync(workspace, { recursive: true });
  chownSync(workspace, 1000, 1000);
  for (const [name, content] of files) {
    const file = path.join(workspace, name);
    writeFileSync(file, content);
    chownSync(file, 1000, 1000);
  }
}

function readWorkspace(workspace: string): Map<string, string> {
  const files = new Map<string, string>();
  let names: string[];
  try {
    names = readdirSync(workspace);
  } catch {
    return files;
  }
  for (const name of names) {
    const file = path.join(workspace, name);
    if (statSync(file).isFile()) files.set(name, readFileSync(file, 'utf8'));
  }
  return files;
}

function lasting(jobs: number, skills: number, dir: string, profile: string): string[] {
  const effects: string[] = [];
  if (jobs > 0) effects.push(`${jobs} job(s) scheduled`);
  if (skills > 0) effects.push(`${skills} skill(s) made`);
  if (readFileSync(path.join(dir, 'memory', 'profile.md'), 'utf8') !== profile) effects.push('profile.md changed');
  return effects;
}
