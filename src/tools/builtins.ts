/**
 * The built-in tools by name, known without building any of them: which part's factory makes each one, from which
 * settings, and when the settings leave it off. `tools.enabled` chooses among these names (`familiar tools list
 * --builtins` prints this list); the root registers a part's tool only when it is enabled. A test builds the daemon
 * with every part on and checks that this list and the tools the parts make are the same.
 */
import type { Config } from '../config/schema.js';
import { nearestKey } from '../config/suggest.js';
import { ConfigError, type ConfigProblem } from '../errors.js';
import { ALLOW_ALL, createToolFilter, type ToolFilter } from './tool-filter.js';
import { toolGroup } from './names.js';

export interface BuiltinTool {
  name: string;
  /** For patterns such as `memory.*` (the registry's group: the tool's own, else the name's prefix). */
  group: string;
  /** The part whose factory makes it. */
  part: string;
  /** The config it is made from. */
  settings: string;
  summary: string;
  /** The named permissions it needs (./permissions.ts), for agents with a grant list. */
  permissions: readonly string[];
  /** Why this config leaves it off (no section, no credentials), or undefined when the part makes it. */
  off?(config: Config): string | undefined;
}

const noSandbox = (config: Config) => (config.tools.sandbox ? undefined : 'needs tools.sandbox');
const noEmail = (config: Config) => (config.tools.email ? undefined : 'needs tools.email');

function entries(part: string, settings: string, group: string | undefined, list: ReadonlyArray<[string, string, string | readonly string[]]>, off?: BuiltinTool['off']): BuiltinTool[] {
  return list.map(([name, summary, permissions]) => ({
    name, group: toolGroup({ name, ...(group ? { group } : {}) }), part, settings, summary,
    permissions: typeof permissions === 'string' ? [permissions] : permissions, ...(off ? { off } : {}),
  }));
}

export const BUILTIN_TOOLS: readonly BuiltinTool[] = [
  ...entries('memory', 'memory_dir', 'memory', [
    ['memory_read', 'read a memory file', 'memory.read'],
    ['memory_write', 'write or append to a memory file', 'memory.write'],
    ['memory_search', 'search the memory files', 'memory.read'],
  ]),
  ...entries('memory', 'people', 'memory', [['memory_share', 'copy one of the person\'s memory files into shared/ (a household; the owner approves)', 'memory.share']],
    (config) => (config.people && Object.keys(config.people).length > 0 ? undefined : 'needs people:')),
  ...entries('web', 'tools.web_search', undefined, [['web_search', 'search the web (Tavily, Exa or SearXNG)', 'web.search']], (config) => (config.tools.web_search ? undefined : 'needs tools.web_search')),
  ...entries('web', 'tools.http', undefined, [['http', 'HTTP requests, with presets and the private-address guard', 'web.request']]),
  ...entries('images', 'tools.images', undefined, [['image_generate', 'make an image from a description (an OpenAI-compatible images endpoint)', 'images.generate']], (config) => (config.tools.images ? undefined : 'needs tools.images')),
  ...entries('email', 'tools.email', undefined, [['email', 'list, search, read and (if allowed) send mail; sending needs email.send too', 'email.read']], noEmail),
  ...entries('calendar', 'tools.calendar', undefined, [['calendar', 'the person\'s CalDAV calendars and ICS feeds: list, search, free_busy, create, update, delete, respond; writing needs calendar.write too', 'calendar.read']],
    (config) => (config.tools.calendar && (config.tools.calendar.accounts.length > 0 || config.tools.calendar.subscriptions.length > 0) ? undefined : 'needs tools.calendar')),
  ...entries('sandbox', 'tools.sandbox', 'sandbox', [['sandbox_exec', 'run a command in the conversation\'s Docker sandbox', 'sandbox.exec']], noSandbox),
  ...entries('sandbox', 'tools.sandbox', 'files', [
    ['read', 'read a workspace file', 'files.read'],
    ['write', 'write a workspace file', 'files.write'],
    ['edit', 'replace text in a workspace file', 'files.write'],
    ['glob', 'find workspace files by pattern', 'files.read'],
    ['grep', 'search workspace files', 'files.read'],
    ['listdir', 'list a workspace folder', 'files.read'],
  ], noSandbox),
  ...entries('sandbox', 'tools.sandbox.code_agent', 'sandbox', [['opencode', 'give a coding task to a coding agent in its own container', ['sandbox.exec', 'files.write']]],
    (config) => (config.tools.sandbox?.code_agent ? undefined : 'needs tools.sandbox.code_agent')),
  ...entries('scheduler', 'scheduler', undefined, [['schedule', 'create, list and remove jobs and reminders', 'jobs.manage']]),
  ...entries('heartbeat', 'intents', undefined, [
    ['intent_create', 'a standing intent: when words come up, remind the person (only in a turn with no outside content)', 'intents.write'],
    ['intent_list', 'the standing intents of this chat', 'intents.read'],
    ['intent_cancel', 'cancel a standing intent', 'intents.write'],
  ]),
  ...entries('skills', 'skills_dir', 'skills', [
    ['create_skill', 'write a new skill', 'skills.write'],
    ['list_skills', 'list the skills', 'skills.read'],
    ['run_skill', 'run a skill now', 'skills.run'],
    ['manage_skill', 'activate, pause, resume or remove a skill', 'skills.write'],
    ['install_skill', 'install a skill from the hub', 'skills.install'],
  ]),
  ...entries('notes', 'memory_dir', undefined, [
    ['note_create', 'write a note', 'notes.write'],
    ['note_read', 'read a note', 'notes.read'],
    ['note_update', 'change a note', 'notes.write'],
    ['note_delete', 'delete a note', 'notes.write'],
    ['note_search', 'search notes', 'notes.read'],
    ['note_link', 'link two notes', 'notes.write'],
    ['task_create', 'add a task', 'tasks.write'],
    ['task_update', 'change a task', 'tasks.write'],
    ['task_complete', 'tick a task off', 'tasks.write'],
    ['task_search', 'find tasks', 'tasks.read'],
    ['reminder_create', 'remind the person at a time, as written (Snooze and Done buttons)', 'reminders.write'],
    ['goal_create', 'set a goal', 'notes.write'],
    ['goal_update', 'change a goal', 'notes.write'],
    ['reflection_create', 'write a reflection', 'notes.write'],
    ['plan_review', 'read the plans', 'notes.read'],
    ['plan_create', 'write a plan', 'notes.write'],
    ['web_scrape', 'read a web page as Markdown', 'web.read'],
  ]),
  ...entries('notes', 'tools.email', undefined, [['email_tasks', 'find tasks in recent mail (needs the LLM too)', ['email.read', 'tasks.write']]], noEmail),
];

const BY_NAME: ReadonlyMap<string, BuiltinTool> = new Map(BUILTIN_TOOLS.map((tool) => [tool.name, tool]));

export function builtinTool(name: string): BuiltinTool | undefined {
  return BY_NAME.get(name);
}

/**
 * Which built-ins `tools.enabled` keeps: every one when the key is absent. Contract: throws ConfigError naming each
 * pattern that matches no built-in tool (with the nearest name when one is close), so a typo is not a tool quietly
 * gone.
 */
export function enabledBuiltins(config: Config): ToolFilter {
  const patterns = config.tools.enabled;
  if (patterns === undefined) return ALLOW_ALL;
  const problems: ConfigProblem[] = [];
  const names = BUILTIN_TOOLS.map((tool) => tool.name);
  const groups = [...new Set(BUILTIN_TOOLS.map((tool) => tool.group))];
  patterns.forEach((raw, index) => {
    const pattern = raw.startsWith('!') ? raw.slice(1) : raw;
    if (pattern === '*') return;
    const single = createToolFilter([pattern]);
    if (BUILTIN_TOOLS.some((tool) => single.allows({ name: tool.name, group: tool.group, aliases: [] }))) return;
    const group = /^(.+?)(?:\.\*|:\*|_\*)$/.exec(pattern)?.[1];
    const near = group !== undefined ? nearestKey(group, groups) : nearestKey(pattern, names);
    const hint = near !== undefined ? `did you mean "${group !== undefined ? `${near}.*` : near}"?` : 'see `familiar tools list --builtins` for the names';
    const custom = group === undefined ? ' (your own tools and MCP tools are not listed here: they exist when their file or server does)' : '';
    problems.push({ keyPath: `tools.enabled.${index}`, reason: `no built-in tool ${group !== undefined ? 'group' : 'named'} "${group ?? pattern}"; ${hint}${custom}` });
  });
  if (problems.length > 0) throw ConfigError.of(problems);
  return createToolFilter(patterns);
}
