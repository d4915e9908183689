import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { App } from '../app.js';
import { errorMessage } from '../errors.js';
import { KeyedMutex } from '../memory/atomic-write.js';
import type { ContainerPool, RunResult } from '../sandbox/pool.js';
import { stageFolder } from '../sandbox/stage.js';
import { createPolicy } from '../tools/policy.js';
import type { ApprovalHandler } from '../tools/registry.js';
import type { Artifact, CallOrigin } from '../tools/types.js';
import type { Skill } from './format.js';
import type { SkillRunTrigger, SkillStore } from './store.js';

export interface SkillRunRequest {
  skill: Skill;
  input?: string | undefined;
  origin: CallOrigin;
  unattended: boolean;
  trigger: Exclude<SkillRunTrigger, 'test'>;
  signal?: AbortSignal | undefined;
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
}

/** The conversation (and sandbox workspace) of a skill's runs. */
export function skillConversation(id: string): string {
  return `skill-${id}`;
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
export async function stageScripts(pool: ContainerPool, conversationId: string, skillDir: string): Promise<void> {
  await stageFolder(pool.workspaces, conversationId, path.join(skillDir, 'scripts'), 'scripts');
}

/** Runs a skill's `test` command in its sandbox workspace. Contract: never throws. */
export async function runSkillTest(pool: ContainerPool, skill: Skill, skillDir: string, conversationId: string, signal?: AbortSignal): Promise<{ passed: boolean; report: string }> {
  if (skill.test === undefined) return { passed: true, report: 'no test' };
  let result: RunResult;
  try {
    await stageScripts(pool, conversationId, skillDir);
    result = await pool.run(conversationId, { command: skill.test, timeoutMs: pool.config.timeout_s * 1000, ...(signal ? { signal } : {}) });
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
  private readonly app: App;
  private readonly store: SkillStore;
  private readonly mutex = new KeyedMutex();

  constructor(app: App, store: SkillStore) {
    this.app = app;
    this.store = store;
  }

  run(request: SkillRunRequest): Promise<SkillRunResult> {
    return this.mutex.run(request.skill.id, () => this.runNow(request));
  }

  private async runNow(request: SkillRunRequest): Promise<SkillRunResult> {
    const { app, store } = this;
    const { skill } = request;
    const startedAt = Date.now();
    const runId = store.startRun(skill.id, request.trigger, startedAt);
    const log = app.log.child({ component: 'skills', skill: skill.id, runId });
    const finish = (result: Omit<SkillRunResult, 'runId'>): SkillRunResult => {
      store.finishRun(runId, { status: result.status, output: result.text, error: result.error }, startedAt);
      log.info({ status: result.status, ms: Date.now() - startedAt, ...(result.error ? { error: result.error } : {}) }, 'skill run finished');
      return { ...result, runId };
    };

    const conversationId = skillConversation(skill.id);
    const dir = store.folder(skill.id);
    const scripts = hasScripts(dir);
    if (scripts) {
      const pool = app.context.pool;
      if (!pool) {
        const error = `skill "${skill.id}" was not run: ${SANDBOX_REQUIRED}`;
        return finish({ status: 'refused', text: error, artifacts: [], error, denied: [] });
      }
      try {
        await stageScripts(pool, conversationId, dir);
      } catch (error) {
        const reason = `skill "${skill.id}" was not run: its scripts could not be copied to the sandbox (${errorMessage(error)})`;
        return finish({ status: 'failed', text: reason, artifacts: [], error: reason, denied: [] });
      }
    }

    const denied = new Set<string>();
    // Unattended runs cannot ask anyone: only the skill's own approve list lets a high-risk tool through.
    const approve: ApprovalHandler | undefined = request.unattended
      ? async (call) => {
        if (skill.approve.includes(call.tool)) return { approved: true, by: `skill ${skill.id} approve list` };
        denied.add(call.tool);
        return { approved: false, reason: `the unattended skill "${skill.id}" may not call high-risk ${call.tool}; add it to the skill's approve list to allow it` };
      }
      : undefined;
    app.conversations.ensure(conversationId, request.origin.channel, request.origin.chatId);
    const text = `Run the skill "${skill.name}" now.${request.input ? `\n\nInput for this run:\n${request.input}` : ''}`;
    try {
      const result = await app.agent.runTurn({
        conversationId, text, origin: request.origin, source: 'skill', unattended: request.unattended,
        policy: createPolicy(skill.tools),
        systemExtra: systemExtra(skill, request, scripts),
        ...(approve ? { approve } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
      });
      const names = [...denied];
      const note = names.length > 0 ? `\n\n(Not done: ${names.join(', ')} needs approval, and nobody can approve in a scheduled run; add it to the skill's approve list to allow it.)` : '';
      if (result.status !== 'ok') {
        return finish({ status: 'failed', text: result.text + note, artifacts: result.artifacts, error: result.error ?? result.text, denied: names });
      }
      return finish({ status: 'ok', text: result.text + note, artifacts: result.artifacts, denied: names, ...(names.length > 0 ? { error: `denied: ${names.join(', ')}` } : {}) });
    } catch (error) {
      log.error({ err: error }, 'skill turn threw');
      return finish({ status: 'failed', text: `skill "${skill.id}" failed: ${errorMessage(error)}`, artifacts: [], error: errorMessage(error), denied: [] });
    }
  }
}

function systemExtra(skill: Skill, request: SkillRunRequest, scripts: boolean): string {
  const how = request.unattended
    ? 'It runs unattended (on its schedule): nobody can answer questions. Do the task and reply with the result for the person.'
    : 'The person asked for this run.';
  const tools = skill.tools.length > 0 ? `You may use only these tools: ${skill.tools.join(', ')}.` : 'This skill uses no tools.';
  const files = scripts ? ' Its scripts are in /workspace/scripts inside the sandbox; run them only with sandbox_exec.' : '';
  return [
    `You are running the skill "${skill.name}" (id ${skill.id}, version ${skill.version}). ${how} ${tools}${files}`,
    'The skill\'s instructions:',
    skill.instructions,
  ].join('\n\n');
}
