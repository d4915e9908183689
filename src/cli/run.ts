import { AppError, ConfigError, errorMessage } from '../errors.js';
import { COMMANDS, HELP } from './commands.js';
import { createCommandContext, type CommandIo } from './context.js';

/**
 * Parses global options, dispatches to a command and maps errors to exit codes:
 * 2 for a bad config (one line naming the key), 1 for other failures.
 */
export async function runCli(argv: string[], io: CommandIo = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }): Promise<number> {
  const globals = extractGlobals(argv);
  if ('error' in globals) {
    io.stderr.write(`familiar: ${globals.error}\n`);
    return 2;
  }
  const [name, ...rest] = globals.rest;
  if (!name || globals.help || name === 'help') {
    io.stdout.write(HELP);
    return name || globals.help ? 0 : 2;
  }
  const loadCommand = COMMANDS.get(name);
  if (!loadCommand) {
    io.stderr.write(`familiar: unknown command "${name}". Run "familiar help".\n`);
    return 2;
  }
  const context = createCommandContext(rest, { config: globals.config, logLevel: globals.logLevel, json: globals.json }, io);
  try {
    const command = await loadCommand();
    return await command(context);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.stderr.write(`${error.message}\n`);
      return 2;
    }
    if (error instanceof AppError) {
      io.stderr.write(`familiar: ${error.message} [${error.code}]\n`);
      return 1;
    }
    io.stderr.write(`familiar: ${errorMessage(error)}\n`);
    return 1;
  }
}

interface Globals {
  config: string | undefined;
  logLevel: string | undefined;
  json: boolean;
  help: boolean;
  rest: string[];
}

/** Global options may stand anywhere; everything else is left, in order, for the command. */
function extractGlobals(argv: string[]): Globals | { error: string } {
  const globals: Globals = { config: undefined, logLevel: undefined, json: false, help: false, rest: [] };
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] ?? '';
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      if (inline !== undefined) return inline;
      index += 1;
      return argv[index];
    };
    if (flag === '--') {
      globals.rest.push(...argv.slice(index + 1));
      break;
    } else if (flag === '--config' || flag === '-c') {
      globals.config = value();
      if (!globals.config) return { error: '--config needs a file path' };
    } else if (flag === '--log-level') {
      globals.logLevel = value();
      if (!globals.logLevel) return { error: '--log-level needs a level (debug, info, warn, error)' };
    } else if (flag === '--json') globals.json = true;
    else if (flag === '--help' || flag === '-h') globals.help = true;
    else globals.rest.push(arg);
  }
  return globals;
}
