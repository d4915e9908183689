// The global options, read before anything else is loaded: the `familiar` executable (src/boot.ts) reads them to
// choose the bundle and the code cache of a command, and the command line (src/cli/run.ts) to run it.

export interface Globals {
  config: string | undefined;
  logLevel: string | undefined;
  json: boolean;
  rest: string[];
}

/** Global options may stand anywhere before `--`; everything else is left, in order, for commander and the command. */
export function extractGlobals(argv: string[]): Globals | { error: string } {
  const globals: Globals = { config: undefined, logLevel: undefined, json: false, rest: [] };
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] ?? '';
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      if (inline !== undefined) return inline;
      index += 1;
      return argv[index];
    };
    if (flag === '--') {
      // Kept: after it, words that look like options are text (`familiar ask -- --new is a flag`).
      globals.rest.push(...argv.slice(index));
      break;
    } else if (flag === '--config' || flag === '-c') {
      globals.config = value();
      if (!globals.config) return { error: '--config needs a file path' };
    } else if (flag === '--log-level') {
      globals.logLevel = value();
      if (!globals.logLevel) return { error: '--log-level needs a level (debug, info, warn, error)' };
    } else if (flag === '--json') globals.json = true;
    else globals.rest.push(arg);
  }
  return globals;
}
