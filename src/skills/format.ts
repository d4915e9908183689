import { parse as parseYaml, stringify } from 'yaml';
import { z } from 'zod/v3';
import { errorMessage } from '../errors.js';
import { cronShape, validateCron } from '../time/timing.js';
import { isValidTimeZone } from '../config/timezone.js';
import type { Result } from '../lib/result.js';

/** A skill's folder name: also its id in tools, the CLI, the lock file and its scheduler job (`skill-<id>`). */
export const SKILL_ID = /^[a-z0-9][a-z0-9_-]{0,47}$/;
export const SKILL_FILE = 'SKILL.md';

export type SkillStatus = 'active' | 'paused' | 'draft';

/** Tools a skill may never list: a skill must not create, install or (re)activate skills. */
export const SKILL_TOOL_NAMES: readonly string[] = ['create_skill', 'list_skills', 'run_skill', 'manage_skill', 'install_skill'];

const toolName = () => z.string().min(1).max(100).regex(/^!?[A-Za-z0-9_:.*-]+$/, 'a tool name or pattern (memory_read, memory.*, !email)');

/** Built per parse, not kept: zod binds its methods to every instance (see config/schema.ts). */
const frontmatterSchema = () => z.strictObject({
  name: z.string().min(1).max(100),
  description: z.string().min(1).max(1000),
  version: z.union([z.string().min(1).max(40), z.number()]).transform(String).default('0.1.0'),
  status: z.enum(['active', 'paused', 'draft']).default('draft'),
  trigger: z
    .strictObject({
      type: z.enum(['manual', 'cron']),
      cron: z.string().optional(),
      timezone: z.string().optional(),
    })
    .default({ type: 'manual' }),
  tools: z.array(toolName()).max(50).default([]),
  deliver_to: z.string().regex(/^[a-z]+:.+$/, 'a chat as channel:chat_id, e.g. telegram:123456789').optional(),
  /** A shell command run in the sandbox (in /workspace, scripts at /workspace/scripts); exit 0 = passed. */
  test: z.string().min(1).max(1000).optional(),
  /** Whether the skill's scripts need network access (shown in install reports; the sandbox decides). */
  network: z.boolean().default(false),
  /** High-risk tools an unattended (cron) run may call without asking, like a job's approve list. */
  approve: z.array(z.string().min(1)).max(20).default([]),
  author: z.string().max(200).optional(),
});

export interface SkillTrigger {
  type: 'manual' | 'cron';
  cron?: string;
  timezone?: string;
}

export interface Skill {
  id: string;
  name: string;
  description: string;
  version: string;
  status: SkillStatus;
  trigger: SkillTrigger;
  tools: string[];
  deliverTo?: string;
  test?: string;
  network: boolean;
  approve: string[];
  author?: string;
  /** The Markdown body: the agent's instructions for a run. */
  instructions: string;
}

const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/;

/**
 * Which skills' cron expressions are evaluated in full (with cron-parser, in their time zone): `all` (the default:
 * what is shown to the person, created, installed or activated), or `active` (what the scheduler arms: a draft's or
 * a paused skill's schedule then only needs the shape of a cron expression). Evaluating one loads cron-parser,
 * luxon and ICU's formatting data, about 50 ms and 10 MiB, which a daemon without scheduled crons never needs.
 */
export type ScheduleCheck = 'all' | 'active';

/**
 * Parses and validates one SKILL.md. Contract: never throws; `error` says what is wrong and where,
 * so `list_skills` and `familiar skills list` can report it.
 */
export function parseSkill(id: string, text: string, timeZone: string, schedules: ScheduleCheck = 'all'): Result<Skill> {
  if (!SKILL_ID.test(id)) return { success: false, error: `the folder name "${id}" is not a valid skill id (lowercase letters, digits, - and _, at most 48)` };
  const match = FRONTMATTER.exec(text);
  if (!match) return { success: false, error: `${SKILL_FILE} must start with YAML frontmatter between two "---" lines` };
  let raw: unknown;
  try {
    raw = parseYaml(match[1] ?? '');
  } catch (error) {
    return { success: false, error: `the frontmatter is not valid YAML: ${firstLine(errorMessage(error))}` };
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { success: false, error: 'the frontmatter must be a YAML mapping (name: …, description: …)' };
  const result = frontmatterSchema().safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.join('.') || '(frontmatter)';
    return { success: false, error: `${where}: ${issue?.message ?? 'invalid'}` };
  }
  const front = result.data;
  const instructions = (match[2] ?? '').trim();
  if (instructions === '') return { success: false, error: 'the body is empty: write the instructions for the agent below the frontmatter' };
  const forbidden = front.tools.filter((name) => SKILL_TOOL_NAMES.includes(name.replace(/^!/, '')) && !name.startsWith('!'));
  if (forbidden.length > 0) return { success: false, error: `tools: a skill may not use ${forbidden.join(', ')} (skills cannot create, run or change skills)` };
  const trigger: SkillTrigger = { type: front.trigger.type };
  if (front.trigger.type === 'cron') {
    if (front.trigger.cron === undefined) return { success: false, error: 'trigger.cron: a cron trigger needs a cron expression, e.g. "0 7 * * *"' };
    const zone = front.trigger.timezone ?? timeZone;
    if (!isValidTimeZone(zone)) return { success: false, error: `trigger.timezone: "${zone}" is not an IANA time zone (e.g. Europe/Paris)` };
    const cron = schedules === 'all' || front.status === 'active' ? validateCron(front.trigger.cron, zone) : cronShape(front.trigger.cron);
    if (!cron.success) return { success: false, error: `trigger.cron: ${cron.error}` };
    trigger.cron = cron.value;
    if (front.trigger.timezone !== undefined) trigger.timezone = front.trigger.timezone;
  } else if (front.trigger.cron !== undefined) {
    return { success: false, error: 'trigger.cron is set but trigger.type is "manual"; use type: cron, or remove cron' };
  }
  const skill: Skill = {
    id, name: front.name, description: front.description, version: front.version, status: front.status, trigger, tools: front.tools,
    network: front.network, approve: front.approve, instructions,
    ...(front.deliver_to !== undefined ? { deliverTo: front.deliver_to } : {}),
    ...(front.test !== undefined ? { test: front.test } : {}),
    ...(front.author !== undefined ? { author: front.author } : {}),
  };
  return { success: true, value: skill };
}

/** Writes a skill as SKILL.md text (frontmatter + instructions). */
export function renderSkill(skill: Skill): string {
  const front: Record<string, unknown> = {
    name: skill.name,
    description: skill.description,
    version: skill.version,
    status: skill.status,
    trigger: { type: skill.trigger.type, ...(skill.trigger.cron !== undefined ? { cron: skill.trigger.cron } : {}), ...(skill.trigger.timezone !== undefined ? { timezone: skill.trigger.timezone } : {}) },
    tools: skill.tools,
    ...(skill.deliverTo !== undefined ? { deliver_to: skill.deliverTo } : {}),
    ...(skill.test !== undefined ? { test: skill.test } : {}),
    ...(skill.network ? { network: true } : {}),
    ...(skill.approve.length > 0 ? { approve: skill.approve } : {}),
    ...(skill.author !== undefined ? { author: skill.author } : {}),
  };
  return `---\n${stringify(front).trimEnd()}\n---\n\n${skill.instructions.trim()}\n`;
}

const FRONTMATTER_PARTS = /^(\uFEFF?---[ \t]*\r?\n)([\s\S]*?)(\r?\n---[ \t]*(?:\r?\n[\s\S]*)?)$/;
const STATUS_LINE = /^status[ \t]*:/;

/**
 * Changes `status:` in an existing SKILL.md by editing that one line (or adding it at the end of the
 * frontmatter), so the person's formatting and comments stay exactly as they were.
 * Returns undefined when the file has no frontmatter.
 */
export function withStatus(text: string, status: SkillStatus): string | undefined {
  const parts = FRONTMATTER_PARTS.exec(text);
  if (!parts) return undefined;
  const lines = (parts[2] ?? '').split('\n');
  const index = lines.findIndex((line) => STATUS_LINE.test(line));
  if (index >= 0) lines[index] = `status: ${status}`;
  else lines.push(`status: ${status}`);
  return `${parts[1] ?? ''}${lines.join('\n')}${parts[3] ?? ''}`;
}

/** SKILL.md without its `status:` line: what a skill's content hash covers (status is a switch, not content). */
export function withoutStatus(text: string): string {
  const parts = FRONTMATTER_PARTS.exec(text);
  if (!parts) return text;
  const lines = (parts[2] ?? '').split('\n').filter((line) => !STATUS_LINE.test(line));
  return `${parts[1] ?? ''}${lines.join('\n')}${parts[3] ?? ''}`;
}

/** "cron 0 7 * * * (Europe/Paris)" or "manual". */
export function describeTrigger(trigger: SkillTrigger, timeZone: string): string {
  if (trigger.type === 'manual') return 'manual';
  return `cron ${trigger.cron ?? '?'} (${trigger.timezone ?? timeZone})`;
}


function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}
