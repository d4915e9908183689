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
  /** Why this config leaves it off (no section, no credentials), or undefined when the part makes it. */
  off?(config: Config): string | undefined;
}

const noSandbox = (config: Config) => (config.tools.sandbox ? undefined : 'needs tools.sandbox');
const noEmail = (config: Config) => (config.tools.email ? undefined : 'needs tools.email');

function entries(part: string, settings: string, group: string | undefined, list: ReadonlyArray<[string, string]>, off?: BuiltinTool['off']): BuiltinTool[] {
  return list.map(([name, summary]) => ({ name, group: toolGroup({ name, ...(group ? { group } : {}) }), part, settings, summary, ...(off ? { off } : {}) }));
}

export const BUILTIN_TOOLS: readonly BuiltinTool[] = [
  ...entries('memory', 'memory_dir', 'memory', [
    ['memory_read', 'read a memory file'],
    ['memory_write', 'write or append to a memory file'],
    ['memory_search', 'search the memory files'],
  ]),
  ...entries('web', 'tools.web_search', undefined, [['web_search', 'search the web (Tavily, Exa or SearXNG)']], (config) => (config.tools.web_search ? undefined : 'needs tools.web_search')),
  ...entries('web', 'tools.http', undefined, [['http', 'HTTP requests, with presets and the private-address guard']]),
  ...entries('images', 'tools.images', undefined, [['image_generate', 'make an image from a description (an OpenAI-compatible images endpoint)']], (config) => (config.tools.images ? undefined : 'needs tools.images')),
  ...entries('email', 'tools.email', undefined, [['email', 'list, search, read and (if allowed) send mail']], noEmail),
  ...entries('sandbox', 'tools.sandbox', 'sandbox', [['sandbox_exec', 'run a command in the conversation\'s Docker sandbox']], noSandbox),
  ...entries('sandbox', 'tools.sandbox', 'files', [
    ['read', 'read a workspace file'],
    ['write', 'write a workspace file'],
    ['edit', 'replace text in a workspace file'],
    ['glob', 'find workspace files by pattern'],
    ['grep', 'search workspace files'],
    ['listdir', 'list a workspace folder'],
  ], noSandbox),
  ...entries('sandbox', 'tools.sandbox.code_agent', 'sandbox', [['opencode', 'give a coding task to a coding agent in its own container']],
    (config) => (config.tools.sandbox?.code_agent ? undefined : 'needs tools.sandbox.code_agent')),
  ...entries('scheduler', 'scheduler', undefined, [['schedule', 'create, list and remove jobs and reminders']]),
  ...entries('heartbeat', 'intents', undefined, [
    ['intent_create', 'a standing intent: when words come up, remind the person (only in a turn with no outside content)'],
    ['intent_list', 'the standing intents of this chat'],
    ['intent_cancel', 'cancel a standing intent'],
  ]),
  ...entries('skills', 'skills_dir', 'skills', [
    ['create_skill', 'write a new skill'],
    ['list_skills', 'list the skills'],
    ['run_skill', 'run a skill now'],
    ['manage_skill', 'activate, pause, resume or remove a skill'],
    ['install_skill', 'install a skill from the hub'],
  ]),
  ...entries('notes', 'memory_dir', undefined, [
    ['note_create', 'write a note'],
    ['note_read', 'read a note'],
    ['note_update', 'change a note'],
    ['note_delete', 'delete a note'],
    ['note_search', 'search notes'],
    ['note_link', 'link two notes'],
    ['task_create', 'add a task'],
    ['task_update', 'change a task'],
    ['task_complete', 'tick a task off'],
    ['task_search', 'find tasks'],
    ['reminder_create', 'remind the person at a time, as written (Snooze and Done buttons)'],
    ['goal_create', 'set a goal'],
    ['goal_update', 'change a goal'],
    ['reflection_create', 'write a reflection'],
    ['plan_review', 'read the plans'],
    ['plan_create', 'write a plan'],
    ['web_scrape', 'read a web page as Markdown'],
  ]),
  ...entries('notes', 'tools.email', undefined, [['email_tasks', 'find tasks in recent mail (needs the LLM too)']], noEmail),
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
