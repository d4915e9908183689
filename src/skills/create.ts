import { errorMessage } from '../errors.js';
import type { ChatMessage } from '../llm/types.js';
import type { ToolCallContext } from '../tools/types.js';
import type { Delivery } from '../delivery/types.js';
import { parseSkill, renderSkill, SKILL_ID, SKILL_TOOL_NAMES, type Skill, type SkillTrigger } from './format.js';
import { hasScripts, runSkillTest, SANDBOX_REQUIRED, skillConversation } from './runner.js';
import { workspaceFor } from '../workspace/workspace-key.js';
import { currentPerson } from '../lib/person-scope.js';
import type { SkillService } from './service.js';
import type { Result } from '../lib/result.js';

export interface CreateSkillParams {
  description: string;
  trigger?: { type: 'manual' | 'cron'; cron?: string; timezone?: string };
  tools?: string[];
}

interface Draft {
  id: string;
  skillMd: string;
  files: Array<{ path: string; content: string }>;
}

const SCRIPT_PATH = /^scripts\/[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*$/;
const MAX_FILES = 20;
const MAX_FILE_CHARS = 100_000;

/**
 * `create_skill`: the LLM drafts SKILL.md (and scripts when needed) from the description; the draft is
 * validated (one repair round), saved as a draft, its test (if any) runs in the sandbox, and it becomes
 * active only when the person asked for that, it is valid, and its test passed.
 */
export async function createSkill(service: SkillService, params: CreateSkillParams, ctx: ToolCallContext): Promise<Result<string>> {
  const available = service.deps.tools.list().map((entry) => entry.name).filter((name) => !SKILL_TOOL_NAMES.includes(name));
  const messages: ChatMessage[] = [
    { role: 'system', content: draftingPrompt(available, service.deps.config.timezone, service.deps.sandbox !== undefined) },
    { role: 'user', content: requestText(params) },
  ];
  let draft: Draft | undefined;
  let skill: Skill | undefined;
  let problem = '';
  for (let attempt = 0; attempt < 2 && skill === undefined; attempt += 1) {
    let content: string;
    try {
      const response = await service.deps.llm.complete({ messages, signal: ctx.signal });
      content = response.content;
    } catch (error) {
      return { success: false, error: `The skill could not be drafted: the LLM failed (${errorMessage(error)}). Try again later.` };
    }
    const checked = checkDraft(content, params, service.deps.config.timezone, ctx, service.deps.delivery);
    if (checked.success) {
      draft = checked.value.draft;
      skill = checked.value.skill;
      break;
    }
    problem = checked.error;
    messages.push({ role: 'assistant', content }, { role: 'user', content: `That draft is not valid: ${problem}. Reply again with the corrected JSON object only.` });
  }
  if (!draft || !skill) return { success: false, error: `The drafted skill was not valid (${problem}); nothing was saved. Rephrase the description or give trigger and tools explicitly.` };

  let id = draft.id;
  for (let n = 2; service.store.get(id) !== undefined; n += 1) id = `${draft.id.slice(0, 44)}-${n}`;
  // Power is granted by the person only: whatever the model wrote, a new skill is a draft with no approve list.
  const saved: Skill = { ...skill, id, status: 'draft', approve: [] };
  await service.store.write(id, renderSkill(saved), draft.files);
  // In a household the skill is its maker's: its own runs act as them and deliver to them.
  service.makers.remember(id, ctx.origin, service.deps.delivery);
  const dir = service.store.folder(id);
  // Drafted while outside content was in play: its instructions are outside content until the person activates it.
  if (ctx.taint.length > 0) service.deps.labels.label('skill', id, ctx.taint);

  const notes: string[] = [];
  const unknown = saved.tools.filter((name) => !name.includes('*') && !name.startsWith('!') && service.deps.tools.get(name) === undefined);
  if (unknown.length > 0) notes.push(`Tools not available here (not configured or unknown): ${unknown.join(', ')}.`);
  let testPassed = true;
  const pool = service.deps.sandbox;
  if (saved.test !== undefined) {
    if (!pool) {
      testPassed = false;
      notes.push(`Its test was not run: ${SANDBOX_REQUIRED}.`);
    } else {
      // In a household the test runs in its maker's own workspace (the owner's: the skill's own, as its scheduled runs).
      const test = await runSkillTest(pool, saved, dir, workspaceFor(skillConversation(id)), ctx.signal);
      const runId = service.store.startRun(id, 'test');
      service.store.finishRun(runId, { status: test.passed ? 'ok' : 'failed', output: test.report }, Date.now());
      testPassed = test.passed;
      notes.push(`Test (${saved.test}): ${test.report}`);
    }
  } else if (hasScripts(dir) && !pool) {
    testPassed = false;
    notes.push(`It has scripts, and ${SANDBOX_REQUIRED}.`);
  }

  if (!testPassed) notes.push('Its test did not pass: fix it before it is activated.');
  notes.push(`It is a draft: run it with run_skill {id: "${id}"} to try it. Only the person can turn it on — with manage_skill activate (they are asked, and see its tools), or familiar skills activate ${id}.`);
  const next = service.scheduling.nextRun(id);
  if (next !== undefined) notes.push(`Next run: ${service.deps.clock.describe(new Date(next))}.`);
  const files = draft.files.length > 0 ? `\nFiles: ${draft.files.map((file) => file.path).join(', ')}` : '';
  const final = service.store.get(id);
  const text = final?.success ? renderSkill(final.value) : renderSkill(saved);
  return { success: true, value: `Created skill "${id}" (draft) in ${dir}.${files}\n${notes.join('\n')}\n\nSKILL.md:\n${text}` };
}

function requestText(params: CreateSkillParams): string {
  const lines = [`Describe this skill as SKILL.md: ${params.description}`];
  if (params.trigger) lines.push(`Trigger (required): ${JSON.stringify(params.trigger)}`);
  if (params.tools) lines.push(`Tools (required, exactly these): ${JSON.stringify(params.tools)}`);
  return lines.join('\n');
}

function draftingPrompt(tools: readonly string[], timeZone: string, sandbox: boolean): string {
  return [
    'You write skills for a personal assistant. A skill is a folder with SKILL.md: YAML frontmatter between two "---" lines, then Markdown instructions that the assistant follows on each run.',
    'Frontmatter keys: name (short title), description (one sentence), version ("0.1.0"), status (always "draft": only the person activates a skill),',
    `trigger ({type: manual} or {type: cron, cron: "<5-field cron>"}; times are in ${timeZone}), tools (a list of tool names the run may use, as few as possible),`,
    `optional test (a shell command that checks the scripts; it runs in a sandbox in /workspace with the scripts in /workspace/scripts; exit 0 = pass), optional network (true if scripts need network).`,
    `Available tools: ${tools.join(', ') || '(none)'}.${sandbox ? ' Scripts, when truly needed, go in scripts/ and run only through sandbox_exec (python3, bash, node).' : ' There is no sandbox here: do not write scripts.'}`,
    'Reply with one JSON object only, no prose: {"id": "<lowercase-id-with-dashes>", "skill_md": "<the whole SKILL.md text>", "files": [{"path": "scripts/<name>", "content": "<text>"}]}.',
  ].join('\n');
}

/** Parses the model's reply into a draft and validates it, applying the person's trigger and tools. */
function checkDraft(content: string, params: CreateSkillParams, timeZone: string, ctx: ToolCallContext, delivery: Delivery): Result<{ draft: Draft; skill: Skill }> {
  const json = content.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    return { success: false, error: `the reply is not one JSON object (${errorMessage(error)})` };
  }
  if (raw === null || typeof raw !== 'object') return { success: false, error: 'the reply is not a JSON object' };
  const object = raw as { id?: unknown; skill_md?: unknown; files?: unknown };
  const id = typeof object.id === 'string' ? object.id.trim().toLowerCase() : '';
  if (!SKILL_ID.test(id)) return { success: false, error: `id must be lowercase letters, digits and dashes (got ${JSON.stringify(object.id)})` };
  if (typeof object.skill_md !== 'string') return { success: false, error: 'skill_md must be the SKILL.md text' };
  const files: Draft['files'] = [];
  if (object.files !== undefined) {
    if (!Array.isArray(object.files)) return { success: false, error: 'files must be a list' };
    if (object.files.length > MAX_FILES) return { success: false, error: `at most ${MAX_FILES} files` };
    for (const file of object.files as Array<{ path?: unknown; content?: unknown }>) {
      if (typeof file?.path !== 'string' || !SCRIPT_PATH.test(file.path) || file.path.split('/').includes('..')) return { success: false, error: `file path ${JSON.stringify(file?.path)} must be inside scripts/` };
      if (typeof file.content !== 'string' || file.content.length > MAX_FILE_CHARS) return { success: false, error: `file ${file.path} needs text content under ${MAX_FILE_CHARS} characters` };
      files.push({ path: file.path, content: file.content });
    }
  }
  const parsed = parseSkill(id, object.skill_md, timeZone);
  if (!parsed.success) return { success: false, error: `SKILL.md: ${parsed.error}` };
  const skill: Skill = { ...parsed.value };
  if (params.trigger) {
    const trigger: SkillTrigger = { type: params.trigger.type };
    if (params.trigger.cron !== undefined) trigger.cron = params.trigger.cron;
    if (params.trigger.timezone !== undefined) trigger.timezone = params.trigger.timezone;
    skill.trigger = trigger;
  }
  if (params.tools) skill.tools = [...params.tools];
  // Someone else's skill speaks only where they asked for it, as a job of theirs does, whatever the draft names.
  const person = currentPerson();
  if (person !== undefined && person.role !== 'owner') delete skill.deliverTo;
  if (skill.trigger.type === 'cron' && skill.deliverTo === undefined) {
    const chat = delivery.chatOf(ctx.origin);
    if (chat !== undefined) skill.deliverTo = chat;
  }
  // Re-validate what will be written, overrides included.
  const final = parseSkill(id, renderSkill(skill), timeZone);
  if (!final.success) return { success: false, error: final.error };
  return { success: true, value: { draft: { id, skillMd: renderSkill(final.value), files }, skill: final.value } };
}
