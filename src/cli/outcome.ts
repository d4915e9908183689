import { AppError, ConfigError, errorMessage } from '../errors.js';
import type { Command, CommandIo } from './context.js';
import type { Globals } from './globals.js';

// What every run of the command line shares, whichever entry it came in by (src/main.ts, or src/main-start.ts for
// `familiar start`): the mapping of a command's errors to exit codes.

/** Loads and runs one command; its errors become exit codes: 2 for a bad config (one line per problem), 1 for others. */
export async function runLoadedCommand(loadCommand: () => Promise<Command>, globals: Globals, io: CommandIo): Promise<number> {
  // Loaded here, not with this file: what a command's context opens (the config's YAML and schema, SQLite, the
  // logger) is most of a command's start, and `--version`, `--help` and a usage error need none of it.
  const [{ createCommandContext }, loaded] = await Promise.all([
    import('./context.js'),
    loadCommand().then((command) => ({ command }), (error: unknown) => ({ error })),
  ]);
  const context = createCommandContext(globals.rest.slice(1), { config: globals.config, logLevel: globals.logLevel, json: globals.json }, io);
  try {
    if ('error' in loaded) throw loaded.error;
    return await loaded.command(context);
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
