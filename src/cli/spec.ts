import { toParseArgs, type OptionSpec } from '../lib/cli-options.js';
import { INIT_OPTIONS } from '../init/flags.js';
import { PLATFORM_NAMES } from '../channels/platforms.js';

/**
 * The command tree, as data: names, what they do, their options and arguments. `program.ts` builds commander's
 * parser from it (help, did-you-mean, exit codes), `completion.ts` the shell scripts, and each command parses its
 * own arguments with the same option declarations (`optionsOf`). Loading the code of a command is `commands.ts`'s.
 */
export interface CommandSpec {
  name: string;
  /** One line for the list of commands. */
  summary: string;
  /** The arguments after the name in the usage line (`<id>`, `"text"`), as the command itself checks them. */
  usage?: string;
  /** More text under the usage in `familiar help NAME`. */
  details?: string;
  options?: readonly OptionSpec[];
  commands?: readonly CommandSpec[];
  /** The subcommand run when none is named (`familiar tasks` = `familiar tasks list`). */
  defaultCommand?: string;
  /** Values completion offers for the first argument (`completion bash|zsh|fish`). */
  choices?: readonly string[];
}

/** Options every command takes, anywhere on the line (`run.ts` takes them out before commander sees the rest). */
export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  { name: 'config', short: 'c', value: 'FILE', description: 'the config file (default: $FAMILIAR_CONFIG, then ./config.yaml)', complete: 'file' },
  { name: 'log-level', value: 'LEVEL', description: 'log level for this run', choices: ['trace', 'debug', 'info', 'warn', 'error', 'silent'] },
  { name: 'json', description: 'machine-readable output where a command has it' },
];

const id = (what: string): string => `<${what}>`;
const PERSON_IDS: readonly OptionSpec[] = [
  { name: 'telegram', value: 'ID', description: 'their Telegram user id' },
  { name: 'discord', value: 'ID', description: 'their Discord user id' },
  { name: 'channel', value: 'NAME', description: 'another channel, with --id' },
  { name: 'id', value: 'ID', description: 'their id on --channel' },
];
const LIMIT: OptionSpec = { name: 'limit', value: 'N', description: 'at most N entries' };

export const COMMAND_TREE: readonly CommandSpec[] = [
  {
    name: 'init', summary: 'guided set-up: writes config.yaml and .env beside it',
    details: 'Writes config.yaml (no secrets: ${NAME} references) and .env beside it (the secrets, mode 0600). Asks before\nchanging an existing file, showing the diff. Every question has a flag; with --yes nothing is asked.',
    options: INIT_OPTIONS,
  },
  { name: 'start', summary: 'run the daemon until SIGINT/SIGTERM (SIGHUP reloads the config and your tools)' },
  { name: 'chat', summary: 'talk to the assistant in the terminal (history kept)' },
  {
    name: 'ask', summary: 'one turn; the reply on stdout', usage: '"text"',
    details: 'Exit 1 when the turn failed (LLM error, loop cap), 2 for bad usage or config. On a terminal a high-risk call\nasks approve? [y/N]; piped or redirected, it is refused with the reason.',
    options: [
      { name: 'conversation', value: 'NAME', description: 'continue this named conversation (default: "ask")' },
      { name: 'new', description: 'start that conversation afresh' },
    ],
  },
  {
    name: 'tools', summary: 'the registered tools (MCP and your own too); your own tools made and tried',
    commands: [
      {
        name: 'list', summary: 'every registered tool with its schema, risk and aliases',
        options: [{ name: 'agent', value: 'NAME', description: "only this agent's tools, then the others with why each is not offered" }, { name: 'all', description: "with --agent --json: the tools not offered too (offered: false, why)" }, { name: 'builtins', description: 'the built-in tools by name, and whether this config makes them (tools.enabled)' }],
      },
      { name: 'new', summary: 'a tool of your own in tools_dir, from a template, with a test', usage: id('name'), options: [{ name: 'script', description: 'a NAME.yaml script tool instead of a module' }] },
      { name: 'test', summary: 'one call of a tool outside a chat, through the registry (audited)', usage: `${id('name')} ['{"argument": …}']`, options: [{ name: 'yes', description: 'approve a high-risk call without asking' }] },
    ],
  },
  {
    name: 'doctor', summary: 'check config, LLM, folders and every configured part',
    details: 'Exit 1 when any check failed.',
    options: [{ name: 'fix', description: 'also fix what is safe to fix: folders, file permissions, the sandbox image, starter files' }],
  },
  {
    name: 'usage', summary: 'tokens per day and conversation, cost estimate, daily budget', usage: '[--person [NAME]]',
    options: [
      { name: 'days', value: 'N', description: 'days to show (1-366, default 7)' }, { name: 'conversation', value: 'ID', description: 'one conversation\'s total' },
      { name: 'person', description: 'a household: per person over the days (today against their budget); with NAME, that person only' },
    ],
  },
  {
    name: 'memory', summary: "history of the assistant's memory writes; put a file back; rebuild the search index",
    commands: [
      { name: 'log', summary: 'memory changes, newest first', usage: '[path]', options: [LIMIT] },
      { name: 'diff', summary: "a change's diff", usage: id('change') },
      { name: 'revert', summary: 'put a file back as it was before a change', usage: id('change'), options: [{ name: 'force', description: 'even if the file changed since' }] },
      { name: 'trust', summary: 'memory files holding outside content (kept out of the prompt); with a path, vouch for it', usage: '[path]' },
      { name: 'undo', summary: 'undo a consolidation (all its files) as one change', usage: '<batch>', options: [{ name: 'force', description: 'even if a file changed since' }] },
      { name: 'reindex', summary: 'rebuild the search index from the files and past conversations (and embed every entry when an embedder is set)' },
    ],
  },
  {
    name: 'audit', summary: 'tool calls: outcome, duration, approval',
    options: [
      { name: 'since', value: 'WHEN', description: 'a duration (2h, 7d) or a date (2026-11-01)' },
      { name: 'tool', value: 'NAME', description: 'only this tool' },
      { name: 'conversation', value: 'ID', description: 'only this conversation' },
      { ...LIMIT, description: 'at most N calls (default 50)' },
    ],
  },
  {
    name: 'calendar', summary: 'the calendars of tools.calendar, expanded on this machine (recurrences, time zones)',
    commands: [
      {
        name: 'list', summary: 'events from a day on, on the person\'s clock',
        options: [
          { name: 'from', value: 'DAY', description: 'the first day: YYYY-MM-DD or words ("next monday"); default today' },
          { name: 'days', value: 'N', description: 'how many days (default 7)' },
        ],
      },
      { name: 'today', summary: 'today\'s events' },
    ],
  },
  {
    name: 'heartbeat', summary: 'the heartbeat: probes first, the model only on a change; its status and budgets',
    commands: [
      { name: 'status', summary: "on or off, paused or stopped and why, the last beat and change, today's tokens and calls" },
      { name: 'pause', summary: 'no beat until resumed' },
      { name: 'resume', summary: 'beat again; also ends a stop for the day or after an account failure' },
      { name: 'run', summary: 'one beat now, here; the outcome is printed' },
    ],
  },
  {
    name: 'intents', summary: 'standing intents: "when X comes up, remind me of Y" (made in a chat with /when)',
    commands: [
      { name: 'list', summary: 'the intents that may still fire' },
      { name: 'cancel', summary: 'end one', usage: 'ID' },
    ],
  },
  {
    name: 'triggers', summary: 'inbound triggers (signed webhooks, watched mail): the inbox',
    commands: [
      { name: 'list', summary: 'the newest triggers, their source and summary, and the jobs that took each', options: [{ ...LIMIT, description: 'at most N triggers (default 20)' }] },
    ],
  },
  {
    name: 'jobs', summary: 'scheduled jobs and reminders, their run log',
    commands: [
      { name: 'list', summary: 'jobs with their schedule and next run', options: [{ name: 'all', description: 'finished one-shots too' }] },
      {
        name: 'add', summary: 'add a job or a reminder', usage: '(--cron EXPR | --at ISO | --when TEXT) "prompt"',
        options: [
          { name: 'cron', value: 'EXPR', description: 'a cron expression (5 fields, or 6 with seconds first)' },
          { name: 'at', value: 'ISO', description: 'once, at this date and time' },
          { name: 'when', value: 'TEXT', description: '"every weekday at 8", "tomorrow at 9"' },
          { name: 'id', value: 'ID', description: 'the job id (letters, digits, - and _)' },
          { name: 'catch-up', value: 'POLICY', description: 'after downtime: once or skip', choices: ['once', 'skip'] },
          { name: 'deliver-to', value: 'TARGET', description: 'where results go, e.g. telegram:123' },
          { name: 'remind', description: 'a reminder: the prompt is sent as it is, no LLM' },
        ],
      },
      { name: 'remove', summary: 'delete a job', usage: id('id') },
      { name: 'pause', summary: 'stop a job', usage: id('id') },
      { name: 'resume', summary: 'restart a paused job', usage: id('id') },
      { name: 'run', summary: 'run it now, here; the result is printed', usage: id('id') },
      { name: 'runs', summary: 'the run log: status, start, duration, error, output', usage: id('id'), options: [LIMIT] },
    ],
  },
  {
    name: 'skills', summary: 'skills in skills_dir',
    commands: [
      { name: 'list', summary: 'every skill: status, trigger, next run, last run' },
      { name: 'show', summary: 'its frontmatter, files, scripts, tools, origin and recent runs', usage: id('id') },
      { name: 'run', summary: 'run it now, here; the result is printed', usage: '<id> [input…]' },
      { name: 'install', summary: 'from a hub (git URL, folder or .tar.gz); lands as a quarantined draft', usage: id('source'), options: [{ name: 'id', value: 'ID', description: 'install under this id' }] },
      { name: 'activate', summary: 'turn it on (its test must pass in the sandbox)', usage: id('id'), options: [{ name: 'repin', description: 'accept local changes to a hub skill' }] },
      { name: 'pause', summary: 'stop its schedule', usage: id('id') },
      { name: 'resume', summary: 'restart its schedule', usage: id('id') },
      { name: 'remove', summary: 'delete its folder, lock entry and schedule', usage: id('id') },
    ],
  },
  {
    name: 'pairing', summary: 'let a new chat user in (codes the bot sent them)',
    commands: [
      { name: 'list', summary: 'pending codes, open invites and paired users' },
      { name: 'approve', summary: 'let the user who got this code in', usage: id('code') },
      { name: 'deny', summary: 'refuse this code; that user gets no further codes', usage: id('code') },
      { name: 'revoke', summary: 'remove a paired user', usage: '<channel> <user-id>' },
      { name: 'invite', summary: 'a one-time code you give someone', usage: id('channel'), choices: [...PLATFORM_NAMES] },
    ],
  },
  {
    name: 'people', summary: 'the household: who may talk, with their own memory, jobs and budget (people: in config.yaml)',
    details: 'Edits config.yaml with its comments kept. Identity comes from the sender id on a channel, never from what a\nmessage says. See docs/household.md.',
    defaultCommand: 'list',
    commands: [
      { name: 'list', summary: 'every person: role, ids, time zone, budget, tools' },
      {
        name: 'add', summary: 'add a person (the first is the owner)', usage: id('name'),
        options: [
          { name: 'role', value: 'ROLE', description: 'owner, member or child (default member)', choices: ['owner', 'member', 'child'] },
          ...PERSON_IDS,
          { name: 'timezone', value: 'ZONE', description: 'their IANA time zone (default: the daemon\'s)' },
          { name: 'daily-tokens', value: 'N', description: 'their daily token budget' },
        ],
      },
      { name: 'link', summary: 'give a person another id (another channel, a second account)', usage: id('name'), options: PERSON_IDS },
      { name: 'remove', summary: 'take a person out (not the owner); their folder is kept', usage: id('name') },
    ],
  },
  {
    name: 'status', summary: "a running daemon's uptime, queues, jobs, usage, config reloads (needs http.listen)",
    options: [{ name: 'ready', description: 'exit 0 when the daemon is ready, else 1 with the reasons' }],
  },
  {
    name: 'console', summary: 'a one-time login link to the web console (needs http.listen; works once, for 10 minutes)',
  },
  {
    name: 'backup', summary: 'copy the database, memory, skills and config to a timestamped folder',
    options: [{ name: 'out', value: 'DIR', description: 'where (default data_dir/backups)', complete: 'dir' }, { name: 'tar', description: 'one .tar.gz instead of a folder' }],
  },
  {
    name: 'restore', summary: 'put a backup back: your data, and config.yaml and .env where there are none',
    usage: '<backup>',
    details: 'Stop the daemon first. Data already there is refused unless --force, which moves it to data_dir/replaced-<time>/\n(nothing is deleted). An older backup is brought to this version\'s schema; a newer one is refused.',
    options: [{ name: 'force', description: 'restore over data that is there (moved aside, not deleted)' }],
  },
  {
    name: 'tasks', summary: 'tasks in memory/tasks.md (and lists, plans)', defaultCommand: 'list',
    commands: [
      {
        name: 'list', summary: 'open tasks (the default)',
        options: [{ name: 'all', description: 'open, done and cancelled' }, { name: 'done', description: 'done ones only' }, { name: 'list', value: 'NAME', description: 'only this list' }],
      },
      { name: 'add', summary: 'add a task; dates, "every …", "remind me to …" are understood', usage: '"text"', options: [{ name: 'list', value: 'NAME', description: 'add it to this list' }] },
      { name: 'done', summary: 'tick a task', usage: '<ref>' },
    ],
  },
  {
    name: 'notes', summary: 'notes in memory/notes/', defaultCommand: 'list',
    commands: [
      {
        name: 'list', summary: 'every note (the default)',
        options: [{ name: 'tag', value: 'TAG', description: 'only notes with this tag' }, { name: 'type', value: 'TYPE', description: 'note, goal, plan or reflection', choices: ['note', 'goal', 'plan', 'reflection'] }, LIMIT],
      },
      { name: 'show', summary: 'one note (title, file name or path)', usage: '<note>' },
      {
        name: 'search', summary: 'notes matching a query', usage: '<query>',
        options: [{ name: 'tag', value: 'TAG', description: 'only notes with this tag' }, { name: 'type', value: 'TYPE', description: 'note, goal, plan or reflection', choices: ['note', 'goal', 'plan', 'reflection'] }, LIMIT],
      },
    ],
  },
  {
    name: 'logs', summary: "the daemon's log file in data_dir, readable (raw JSON with --json)",
    options: [
      { name: 'follow', short: 'f', description: 'keep printing new lines (across rotations) until Ctrl-C' },
      { name: 'level', value: 'LEVEL', description: 'this level and above', choices: ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] },
      { name: 'since', value: 'WHEN', description: 'a duration (2h, 30m, 7d) or a date/time (2026-11-01, ISO 8601)' },
      { name: 'lines', short: 'n', value: 'N', description: 'only the last N lines (before following)' },
    ],
  },
  {
    name: 'service', summary: 'a systemd unit that runs familiar start with this config',
    commands: [
      {
        name: 'install', summary: 'write the unit (a user unit; --system for a system one) and say how to enable it',
        options: [
          { name: 'system', description: 'a system unit in /etc/systemd/system (as root), run as the config file\'s owner' },
          { name: 'name', value: 'NAME', description: 'the unit name (default familiar)' },
          { name: 'force', description: 'replace an existing unit that differs' },
        ],
      },
      { name: 'uninstall', summary: 'stop, disable and remove the unit', options: [{ name: 'system', description: 'the system unit' }, { name: 'name', value: 'NAME', description: 'the unit name (default familiar)' }] },
      { name: 'status', summary: 'where the unit is, whether it matches this config, whether it runs', options: [{ name: 'system', description: 'the system unit' }, { name: 'name', value: 'NAME', description: 'the unit name (default familiar)' }] },
    ],
  },
  {
    name: 'config', summary: 'check, read and change config.yaml',
    commands: [
      { name: 'validate', summary: 'every problem of the config at once (exit 2 if any)' },
      { name: 'get', summary: "a key's value as loaded (secrets masked); no key: the whole config", usage: '[key.path]' },
      { name: 'set', summary: 'change a key in config.yaml, keeping comments; secrets go to .env', usage: '<key.path> <value>' },
    ],
  },
  { name: 'completion', summary: 'a shell completion script', usage: '<bash|zsh|fish>', choices: ['bash', 'zsh', 'fish'], details: 'bash: source <(familiar completion bash)   (or save it in /etc/bash_completion.d/familiar)\nzsh:  familiar completion zsh > "${fpath[1]}/_familiar"\nfish: familiar completion fish > ~/.config/fish/completions/familiar.fish' },
  { name: 'help', summary: 'help for a command', usage: '[command] [subcommand]' },
];

/** The declaration of `familiar NAME [SUB]`, or undefined. */
export function findCommand(names: readonly string[]): CommandSpec | undefined {
  let found: CommandSpec | undefined;
  let level: readonly CommandSpec[] = COMMAND_TREE;
  for (const name of names) {
    found = level.find((command) => command.name === name);
    if (!found) return undefined;
    level = found.commands ?? [];
  }
  return found;
}

/**
 * parseArgs options for a command: its own and its subcommands' (the commands parse their subcommand as a
 * positional). Throws for a name that is not declared: a programming error.
 */
export function optionsOf(name: string): ReturnType<typeof toParseArgs> {
  const command = findCommand([name]);
  if (!command) throw new Error(`no command ${name} in the command tree`);
  const all = [...(command.options ?? []), ...(command.commands ?? []).flatMap((sub) => sub.options ?? [])];
  const unique = new Map(all.map((option) => [option.name, option]));
  return toParseArgs([...unique.values()]);
}
