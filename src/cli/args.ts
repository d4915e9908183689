import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface CommandArgs {
  /** A switch is true when given; an option with a value is its string. */
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * Options after the command name: `--flag value`, `--flag=value`, `--switch`; the rest are positionals. The options
 * are the command's declarations in `spec.ts` (`optionsOf`), none of which repeats.
 */
export function parseCommandArgs(args: string[], options: NonNullable<ParseArgsConfig['options']>): CommandArgs {
  const parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  return { values: parsed.values as CommandArgs['values'], positionals: parsed.positionals };
}
