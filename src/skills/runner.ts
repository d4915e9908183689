import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../errors.js';
import { KeyedMutex } from '../lib/atomic-write.js';
import type { Logger } from '../log.js';
import type { SandboxRun } from '../tools/context.js';
import { OWNER_CHANNELS } from '../lib/owner.js';
import { withPerson, type ActingPerson } from '../lib/person-scope.js';
import { stageFolder } from '../workspace/stage.js';
import { workspaceFor } from '../workspace/workspace-key.js';
import type { Workspaces } from '../workspace/workspace.js';
import { createToolFilter } from '../tools/tool-filter.js';
import type { Artifact, CallOrigin } from '../tools/types.js';
import type { StartTurn } from '../turns/types.js';
import { wrapExternal } from '../tools/external.js';
import type { Skill } from './format.js';
import type { SkillRunTrigger, SkillStore } from './store.js';

/** What a skill run uses of the rest of the daemon. */
export interface SkillRunnerDeps {
  log: Logger;
  sandbox: SkillSandbox | undefined;
  startTurn: StartTurn;
  labels: { get(kind: 'skill', key: string): readonly string[] | undefined };
}

/** The sandbox as skills use it: the conversation's workspace folder and commands in its container. */
export interface SkillSandbox {
  readonly workspaces: Workspaces;
  readonly config: { timeout_s: number };
  run(workspaceId: string, request: { command: string; timeoutMs: number; signal?: AbortSignal }): Promise<SandboxRun>;
}

export interface SkillRunRequest {
  skill: Skill;
  input?: string | undefined;
  origin: CallOrigin;
  unattended: boolean;
  trigger: Exclude<SkillRunTrigger, 'test'>;
  signal?: AbortSignal | undefined;
  /** Outside sources in play where the run was asked for (run_skill from a tainted turn): the run holds them too. */
  taint?: readonly string[] | undefined;
  /**
   * In a household, whom a run of the skill's own (its schedule) acts as: its maker. Absent: whoever asked for it
   * (run_skill: the turn's person, in scope).
   */
  person?: ActingPerson | undefined;
}

export interface SkillRunResult {
  status: 'ok' | 'failed' | 'refused';
  /** What to show or deliver. */
  text: string;
  artifacts: Artifact[];
  runId: number;
  error?: string;
  /** High-risk tools an unattended run was refused. */
  denied: string[];
  /** Outside sources the run read or started with: its text is made from them (said when it is delivered). */
  taint?: readonly string[];
}

/**
 * The conversation (and sandbox workspace) of a skill's runs: the owner's (terminal, tests, unattended runs
 * without a chat) is `skill-<id>`; a chat's runs have their own, so one chat never reads another's run history
 * or files (`skill-<id>--<channel>-<hash of the chat>`).
 */
export function skillConversation(id: string, origin?: CallOrigin): string {
  if (!origin || OWNER_CHANNELS.has(origin.channel) || origin.channel === 'scheduler') return `skill-${id}`;
  const chat = createHash('sha256').update(`${origin.channel}:${origin.chatId}`).digest('hex').slice(0, 16);
  return `skill-${id}--${origin.channel.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 20)}-${chat}`;
}

export const SANDBOX_REQUIRED = 'its scripts run only in the sandbox, and the sandbox is not available here (configure tools.sandbox with a running Docker engine; see familiar doctor)';

/** True when the skill folder has a `scripts/` folder or a test command: both run only in the sandbox. */
export function needsSandbox(skill: Skill, dir: string): boolean {
  return skill.test !== undefined || hasScripts(dir);
}

export function hasScripts(dir: string): boolean {
  const scripts = path.join(dir, 'scripts');
  return existsSync(scripts) && statSync(scripts).isDirectory();
}

/**
 * Copies the skill's `scripts/` into its sandbox workspace (`/workspace/scripts`), replacing an older
 * copy, so a run always sees the files as they are now. The host only copies, through pinned folders
 * (the container may be hostile; see src/sandbox/stage.ts); nothing runs here.
 */
export async function stageScripts(pool: SkillSandbox, workspaceId: string, skillDir: string): Promise<void> {
  await stageFolder(pool.workspaces, workspaceId, path.join(skillDir, 'scripts'), 'scripts');
}

/** Runs a skill's `test` command in its sandbox workspace. Contract: never throws. */
export async function runSkillTest(pool: SkillSandbox, skill: Skill, skillDir: string, workspaceId: string, signal?: AbortSignal): Promise<{ passed: boolean; report: string }> {
  if (skill.test === undefined) return { passed: true, report: 'no test' };
  let result: SandboxRun;
  try {
    await stageScripts(pool, workspaceId, skillDir);
    result = await pool.run(workspaceId, { command: skill.test, timeoutMs: pool.config.timeout_s * 1000, ...(signal ? { signal } : {}) });
  } catch (error) {
    return { passed: false, report: `the test could not run in the sandbox: ${errorMessage(error)}` };
  }
  const output = `${result.stdout.text()}${result.stderr.text()}`.trim().slice(-1500);
  if (result.timedOut) return { passed: false, report: `the test did not finish within ${pool.config.timeout_s} s` };
  const passed = result.exitCode === 0;
  return { passed, report: `the test ${passed ? 'passed' : `failed (exit code ${result.exitCode ?? 'unknown'})`}${output ? `; its output:\n${output}` : ''}` };
}

/**
 * Runs skills: one agent turn in the skill's own conversation with its instructions as the task,
 * restricted to the skill's `tools`. Runs of one skill never overlap. Every run is recorded.
 */
export class SkillRunner {
  private readonly deps: SkillRunnerDeps;
  private readonly store: SkillStore;
  private readonly mutex = new KeyedMutex();

  constructor(deps: SkillRunnerDeps, store: SkillStore) {
    this.deps = deps;
    this.store = store;
  }

  run(request: SkillRunRequest): Promise<SkillRunResult> {
    return this.mutex.run(request.skill.id, () => this.runNow(request));
  }

  private async runNow(request: SkillRunRequest): Promise<SkillRunResult> {
    const { deps, store } = this;
    const { skill } = request;
    const startedAt = Date.now();
    const runId = store.startRun(skill.id, request.trigger, startedAt);
    const log = deps.log.child({ component: 'skills', skill: skill.id, runId });
    const finish = (result: Omit<SkillRunResult, 'runId'>): SkillRunResult => {
      store.finishRun(runId, { status: result.status, output: result.text, error: result.error }, startedAt);
      log.info({ status: result.status, ms: Date.now() - startedAt, ...(result.error ? { error: result.error } : {}) }, 'skill run finished');
      return { ...result, runId };
    };

    const conversationId = skillConversation(skill.id, request.origin);
    const dir = store.folder(skill.id);
    const scripts = hasScripts(dir);
    if (scripts) {
      const pool = deps.sandbox;
      if (!pool) {
        const error = `skill "${skill.id}" was not run: ${SANDBOX_REQUIRED}`;
        return finish({ status: 'refused', text: error, artifacts: [], error, denied: [] });
      }
      try {
        // The run's person (the maker of a scheduled skill, else the caller's scope: run_skill from their turn), as in the run's own turn.
        const person = request.person;
        await stageScripts(pool, person ? withPerson(person, () => workspaceFor(conversationId)) : workspaceFor(conversationId), dir);
      } catch (error) {
        const reason = `skill "${skill.id}" was not run: its scripts could not be copied to the sandbox (${errorMessage(error)})`;
        return finish({ status: 'failed', text: reason, artifacts: [], error: reason, denied: [] });
      }
    }

    const text = `Run the skill "${skill.name}" now.${request.input ? `\n\nInput for this run:\n${request.input}` : ''}`;
    // A skill drafted while outside content was in play, or installed from a hub and not yet activated by the person,
    // carries its sources: its instructions are data, and the run is gated as a tainted turn.
    const label = deps.labels.get('skill', skill.id) ?? [];
    const taint = [...new Set([...label, ...(request.taint ?? [])])];
    try {
      // Unattended runs cannot ask anyone: only the skill's own approve list lets a high-risk tool through.
      const result = await deps.startTurn({
        conversationId, text, origin: request.origin, source: 'skill',
        ...(request.person ? { person: request.person.name } : {}),
        filter: createToolFilter(skill.tools),
        systemExtra: systemExtra(skill, request, scripts, label),
        ...(taint.length > 0 ? { taint } : {}),
        ...(request.unattended ? { unattended: { owner: 'skill' as const, id: skill.id, approve: skill.approve } } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
      });
      const names = result.denied;
      const outside = result.taint.length > 0 ? { taint: result.taint } : {};
      if (result.status !== 'ok') {
        return finish({ status: 'failed', text: result.text, artifacts: result.artifacts, error: result.error ?? result.text, denied: names, ...outside });
      }
      return finish({ status: 'ok', text: result.text, artifacts: result.artifacts, denied: names, ...outside, ...(names.length > 0 ? { error: `denied: ${names.join(', ')}` } : {}) });
    } catch (error) {
      log.error({ err: error }, 'skill turn threw');
      return finish({ status: 'failed', text: `skill "${skill.id}" failed: ${errorMessage(error)}`, artifacts: [], error: errorMessage(error), denied: [] });
    }
  }
}

function systemExtra(skill: Skill, request: SkillRunRequest, scripts: boolean, label: readonly string[]): string {
  const how = request.unattended
    ? 'It runs unattended (on its schedule): nobody can answer questions. Do the task and reply with the result for the person.'
    : 'The person asked for this run.';
  const tools = skill.tools.length > 0 ? `You may use only these tools: ${skill.tools.join(', ')}.` : 'This skill uses no tools.';
  const files = scripts ? ' Its scripts are in /workspace/scripts inside the sandbox; run them only with sandbox_exec.' : '';
  return [
    `You are running the skill "${skill.name}" (id ${skill.id}, version ${skill.version}). ${how} ${tools}${files}`,
    'The skill\'s instructions:',
    label.length > 0 ? wrapExternal(`skill ${skill.id} (from ${label.join(', ')})`, skill.instructions) : skill.instructions,
  ].join('\n\n');
}
