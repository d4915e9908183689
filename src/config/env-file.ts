import { readFileSync } from 'node:fs';
import type { parse as Parse } from 'dotenv';
import { ConfigError } from '../errors.js';
import { requireOnUse } from '../lib/folded.js';

export interface EnvFile {
  /** The file, when it exists. */
  file?: string;
  values: Record<string, string>;
}

/**
 * Reads a `.env` file (`NAME=value` lines, `#` comments, quotes, `export NAME=…`) with dotenv's parser.
 * Contract: a missing file is no values; lines dotenv cannot read are skipped; a file that exists but cannot be
 * read throws ConfigError.
 */
export function readEnvFile(file: string): EnvFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { values: {} };
    throw new ConfigError('', `cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  // dotenv is loaded only when there is a file to read: a config without `.env` does not pay for it.
  const { parse } = requireOnUse<{ parse: typeof Parse }>('dotenv');
  return { file, values: parse(text) };
}
