import { readFileSync } from 'node:fs';
import { Command as Commander, CommanderError, Option, type OutputConfiguration } from 'commander';
import { commanderFlags, type OptionSpec } from '../lib/cli-options.js';
import { COMMAND_TREE, GLOBAL_OPTIONS, type CommandSpec } from './spec.js';

/** What commander made of a command line: the top-level command to run, or what to exit with. */
export type Parsed = { run: CommandSpec } | { exit: number };

/**
 * The command line's grammar, on commander: help for every command and subcommand, `--version`, did-you-mean for
 * an unknown command or option, and exit status 2 for bad usage (the contract the hand-written parser had).
 * Commander only checks and routes here; the command then reads its own arguments with the same declarations.
 * A missing or extra argument is left to the command, whose messages say what it needs.
 */
export function parseCommandLine(args: readonly string[], out: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }): Parsed {
  // Commander shows help before it looks at the command, so `familiar jbos --help` printed the general help, exit 0;
  // an unknown command stays unknown (exit 2, did-you-mean) even with --help.
  if (args.some((arg) => arg === '--help' || arg === '-h') && !knownCommandPath(args)) {
    return parseCommandLine(args.filter((arg) => arg !== '--help' && arg !== '-h'), out);
  }
  let selected: CommandSpec | undefined;
  const program = buildProgram((command) => {
    selected = command;
  }, {
    writeOut: (text) => out.stdout.write(text),
    writeErr: (text) => out.stderr.write(text),
    // "error: unknown option '--limt'\n(Did you mean --limit?)" → one line naming the command, then where help is.
    outputError: (text, write) => write(`${text.replace(/^error: /, `familiar${commandPathOf(args)}: `).replace(/\n\(Did you mean (.+)\?\)\n?$/, ' — did you mean $1?\n')}`),
  });
  try {
    program.parse([...args], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return { exit: 0 };
    // A command with subcommands named alone (`familiar jobs`): its help, on stderr, as bad usage.
    if (error.code === 'commander.help') return { exit: 2 };
    out.stderr.write(`Run "familiar help${commandPathOf(args)}" for usage.\n`);
    return { exit: 2 };
  }
  return selected ? { run: selected } : { exit: 2 };
}

/**
 * `familiar NAMES… --help` as text, the same words the terminal shows, at a fixed width and without colour: the
 * command-line reference (docs/reference/cli.md) is made of these.
 */
export function commandHelp(names: readonly string[], width = 110): string {
  const silent = { writeOut: () => undefined, writeErr: () => undefined, getOutHasColors: () => false, getErrHasColors: () => false };
  let command = buildProgram(() => undefined, silent);
  for (const name of names) {
    const next = command.commands.find((candidate) => candidate.name() === name);
    if (!next) throw new Error(`no command "${names.join(' ')}" in the command tree`);
    command = next;
  }
  command.configureHelp({ ...command.configureHelp(), helpWidth: width });
  return command.helpInformation();
}

function buildProgram(select: (command: CommandSpec) => void, output: OutputConfiguration): Commander {
  const program = new Commander('familiar')
    .description('a self-hosted personal assistant daemon')
    .usage('<command> [options]')
    .version(packageVersion(), '-V, --version', 'the version')
    .helpOption('-h, --help', 'help for this command')
    .helpCommand(false)
    .exitOverride()
    .configureOutput(output)
    .showSuggestionAfterError(true)
    .allowExcessArguments(true)
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false });
  for (const option of GLOBAL_OPTIONS) program.addOption(toOption(option));
  program.addHelpText('after', '\nRun "familiar help COMMAND" (or "familiar COMMAND --help") for its options.');
  for (const spec of COMMAND_TREE) addCommand(program, spec, () => select(spec));
  return program;
}

function addCommand(parent: Commander, spec: CommandSpec, select: () => void): void {
  // addCommand does not pass settings down as .command() does: exit override, output, help flags and layout.
  const command = new Commander(spec.name).copyInheritedSettings(parent)
    .description(spec.details ? `${spec.summary}\n\n${spec.details}` : spec.summary).summary(spec.summary).helpCommand(false);
  for (const option of spec.options ?? []) command.addOption(toOption(option));
  // `familiar tasks` = `familiar tasks list`: commander runs the default subcommand when none is named.
  parent.addCommand(command, { isDefault: parent.name() !== 'familiar' && defaultOf(parent) === spec.name });
  if (spec.commands && spec.commands.length > 0) {
    command.usage('<command> [options]');
    defaults.set(command, spec.defaultCommand);
    for (const sub of spec.commands) addCommand(command, sub, select);
    return;
  }
  command.usage(`${spec.options && spec.options.length > 0 ? '[options] ' : ''}${spec.usage ?? ''}`.trim());
  command.allowExcessArguments(true).action(select);
}

const defaults = new WeakMap<Commander, string | undefined>();
const defaultOf = (command: Commander): string | undefined => defaults.get(command);

function toOption(spec: OptionSpec): Option {
  // No .choices(): the commands check their values themselves, with messages that say what to give.
  const option = new Option(commanderFlags(spec), spec.description);
  // `--sandbox` and `--no-sandbox` are two switches to us; commander would otherwise pair them into one.
  if (spec.name.startsWith('no-')) option.negate = false;
  return option;
}

/** Whether the command words of `args` (before any option) are in the tree: `jobs add` yes, `jobs explode` no. */
function knownCommandPath(args: readonly string[]): boolean {
  const [first, second] = args;
  if (first === undefined || first.startsWith('-')) return true;
  const command = COMMAND_TREE.find((candidate) => candidate.name === first);
  if (!command) return false;
  const subcommands = command.commands ?? [];
  if (subcommands.length === 0 || second === undefined || second.startsWith('-')) return true;
  return subcommands.some((sub) => sub.name === second) || command.defaultCommand !== undefined;
}

/** ` jobs add` for `jobs add --x` (the command words before the first option), for messages. */
function commandPathOf(args: readonly string[]): string {
  const words: string[] = [];
  let level: readonly CommandSpec[] = COMMAND_TREE;
  for (const arg of args) {
    const found = level.find((command) => command.name === arg);
    if (!found) break;
    words.push(arg);
    level = found.commands ?? [];
  }
  return words.map((word) => ` ${word}`).join('');
}

let version: string | undefined;
/** package.json's version; read on first use (this file sits two folders below the package root, built or not). */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? 'unknown';
  return version;
}
