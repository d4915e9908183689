import { stripInvisible } from '../lib/invisible.js';

/** Longer names are cut: a name is a label in a list or a log line, not a place for text. */
export const MAX_NAME_CHARS = 64;

/**
 * A name that came from a chat platform (display name, username, chat title), safe to print or log: control
 * characters (terminal escapes), bidirectional overrides, zero-width characters and line breaks removed, runs of
 * spaces collapsed, at most MAX_NAME_CHARS characters (never cutting a surrogate pair). Contract: never throws.
 */
export function cleanName(name: string | undefined | null, maxChars = MAX_NAME_CHARS): string {
  if (typeof name !== 'string' || name === '') return '';
  const clean = stripInvisible(name).replace(/\s+/g, ' ').trim();
  const chars = [...clean];
  return chars.length <= maxChars ? clean : `${chars.slice(0, maxChars - 1).join('')}…`;
}
