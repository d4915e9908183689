import { COMMANDS } from './commands.js';
import type { CommandIo } from './context.js';
import { extractGlobals, type Globals } from './globals.js';
import { runLoadedCommand } from './outcome.js';

/**
 * Takes out the global options (anywhere on the line), checks and routes the rest with commander (help, --version,
 * did-you-mean; bad usage exits 2), loads the command and maps errors to exit codes: 2 for a bad config (one line
 * per problem, naming the key), 1 for other failures. `familiar start` alone (it takes no argument) goes straight
 * to its command: the daemon's start does not pay for building the command tree (commander and every command's
 * declaration), which only a line to check or a help to print needs.
 */
export async function runCli(argv: string[], io: CommandIo = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }): Promise<number> {
  const globals = extractGlobals(argv);
  if ('error' in globals) {
    io.stderr.write(`familiar: ${globals.error}\n`);
    return 2;
  }
  if (globals.rest.length === 1 && globals.rest[0] === 'start') return runCommand('start', globals, io);
  const [{ parseCommandLine }, { findCommand }] = await Promise.all([import('./program.js'), import('./spec.js')]);
  let words = globals.rest;
  if (words.length === 0) {
    // The list of commands, as `familiar help` prints it, but exit 2: nothing was asked.
    parseCommandLine(['--help'], io);
    return 2;
  }
  // `familiar help jobs add` is `familiar jobs add --help` (commander's own help command goes one level only); an
  // unknown name is left for commander to answer with its did-you-mean.
  if (words[0] === 'help') words = findCommand(words.slice(1, 2)) || words.length === 1 ? [...words.slice(1), '--help'] : words.slice(1);
  const parsed = parseCommandLine(words, io);
  if ('exit' in parsed) return parsed.exit;
  // The command reads its own arguments (after its name) with the same declarations commander checked them with.
  return runCommand(parsed.run.name, { ...globals, rest: words }, io);
}

/** Loads and runs one command by name. */
async function runCommand(name: string, globals: Globals, io: CommandIo): Promise<number> {
  const loadCommand = COMMANDS.get(name);
  if (!loadCommand) throw new Error(`command ${name} is declared but has no code`);
  return runLoadedCommand(loadCommand, globals, io);
}
