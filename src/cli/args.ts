import { parseArgs } from 'node:util';

/** Options after the command name: `--flag value`, `--flag=value`, `--switch`; the rest are positionals. */
export function parseCommandArgs(args: string[], options: Record<string, { type: 'string' | 'boolean'; short?: string }>) {
  return parseArgs({ args, options, allowPositionals: true, strict: true });
}
