import type { ParseArgsConfig } from 'node:util';

/**
 * One command-line option, declared once: the command tree (`cli/spec.ts`) builds commander's help, did-you-mean and
 * shell completion from it, and the command parses its own arguments with the same declaration (`toParseArgs`),
 * so what the help shows and what the command accepts cannot drift apart.
 */
export interface OptionSpec {
  /** The long name without dashes (`catch-up`). */
  name: string;
  /** A one-letter alias (`y` for `--yes`). */
  short?: string;
  /** The value's placeholder (`N`, `FILE`); none for a switch. */
  value?: string;
  description: string;
  /** May be given more than once (`--telegram-user 1 --telegram-user 2`). */
  multiple?: boolean;
  /** The values completion offers. */
  choices?: readonly string[];
  /** What completion offers for the value when there are no choices: file names, folder names, nothing. */
  complete?: 'file' | 'dir';
}

type ParseArgsOptions = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs options for these declarations. */
export function toParseArgs(options: readonly OptionSpec[]): ParseArgsOptions {
  const out: ParseArgsOptions = {};
  for (const option of options) {
    out[option.name] = {
      type: option.value === undefined ? 'boolean' : 'string',
      ...(option.short !== undefined ? { short: option.short } : {}),
      ...(option.multiple === true ? { multiple: true } : {}),
    };
  }
  return out;
}

/** commander's flags string: `-y, --yes`, `--days <N>`. */
export function commanderFlags(option: OptionSpec): string {
  const long = `--${option.name}${option.value !== undefined ? ` <${option.value}>` : ''}`;
  return option.short !== undefined ? `-${option.short}, ${long}` : long;
}
