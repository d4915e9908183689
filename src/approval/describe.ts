import { redactSecretValues } from '../log.js';
import { escapeInvisible } from '../lib/invisible.js';
import { maskSecretKeys } from '../lib/mask.js';
import type { Result } from '../lib/result.js';

/**
 * The arguments of a call as the person approving it sees them: one line per value, destination fields first and
 * whole (where it goes, to whom, what runs), every other value whole when short and otherwise cut with its size.
 * Nothing long can push the destination out of view, and a value nested in a long object is shown on its own line.
 */

/**
 * Names of fields that say where a call goes, to whom, or what it runs. Matched on any part of a value's path
 * (`to`, `to[2]`, `options.url`), so nested ones count too; the order is the order they are shown in.
 */
export const DESTINATION_KEYS = [
  'method', 'url', 'uri', 'href', 'endpoint', 'base_url', 'preset', 'query', 'host', 'hostname', 'port',
  'action', 'to', 'cc', 'bcc', 'recipient', 'recipients', 'reply_to', 'from', 'all', 'uid', 'folder',
  'command', 'cmd', 'args', 'argv', 'script', 'task', 'agent', 'network', 'image',
  'path', 'paths', 'file', 'files', 'filename', 'attachments', 'destination', 'target', 'dest',
  'server', 'tool', 'source', 'id', 'name', 'channel', 'chat_id', 'deliver_to',
] as const;

const DESTINATION_RANK = new Map<string, number>(DESTINATION_KEYS.map((key, index) => [key, index]));

/** A value longer than this (as shown) is cut, with its size, unless it is a destination. */
export const PREVIEW_CHARS = 200;
/** Without a limit from the channel (the terminal), the other values get this much room in all. */
const DEFAULT_BUDGET_CHARS = 8000;
const MAX_DEPTH = 12;

interface Line {
  text: string;
  destination: boolean;
  rank: number;
  order: number;
}

export type Described = Result<string>;

/**
 * `params` as lines for an approval question: secret values redacted, secret-looking keys masked, invisible
 * characters shown as codes. `maxChars` bounds the result (a channel's message limit, minus the rest of the
 * question); when the destination fields alone do not fit, the call cannot be shown whole and is not asked about.
 */
export function describeArguments(params: Record<string, unknown>, secrets: readonly string[], maxChars?: number): Described {
  const shown = maskSecretKeys(redactSecretValues(params, secrets)) as Record<string, unknown>;
  const lines: Line[] = [];
  for (const [key, value] of Object.entries(shown)) collect(value, segment(key), rankOf(key), lines, 0);
  if (lines.length === 0) return { success: true, value: '(no arguments)' };
  lines.sort((a, b) => (a.destination === b.destination ? a.rank - b.rank || a.order - b.order : a.destination ? -1 : 1));
  const destinations = lines.filter((line) => line.destination).map((line) => line.text);
  const destinationChars = destinations.reduce((total, text) => total + text.length + 1, 0);
  if (maxChars !== undefined && destinationChars > maxChars) {
    return {
      success: false,
      error: `where this call goes or what it runs is ${formatCount(destinationChars)} characters long, more than an approval question here can show whole (${formatCount(maxChars)}); make it shorter (a shorter URL, fewer recipients, a script file instead of a long command) and call again`,
    };
  }
  const out = [...destinations];
  let room = (maxChars ?? destinationChars + DEFAULT_BUDGET_CHARS) - destinationChars;
  const rest = lines.filter((line) => !line.destination);
  for (let index = 0; index < rest.length; index += 1) {
    const line = rest[index] as Line;
    const left = rest.slice(index + 1);
    // Keep room for the note about what is left out.
    const note = left.length > 0 ? 80 : 0;
    if (line.text.length + 1 + note > room) {
      const hidden = rest.slice(index);
      const chars = hidden.reduce((total, item) => total + item.text.length, 0);
      out.push(`… ${formatCount(hidden.length)} more ${hidden.length === 1 ? 'value' : 'values'} (${formatCount(chars)} characters) not shown`);
      break;
    }
    out.push(line.text);
    room -= line.text.length + 1;
  }
  return { success: true, value: out.join('\n') };
}

function collect(value: unknown, path: string, rank: number, lines: Line[], depth: number): void {
  const rendered = render(value);
  // A short object shown on one line counts as a destination when one is inside it (`deliver: {url: …}`).
  const inner = rank === Number.MAX_SAFE_INTEGER && rendered.length <= PREVIEW_CHARS ? innerDestinationRank(value, 0) : rank;
  const destination = inner < Number.MAX_SAFE_INTEGER;
  const push = (text: string) => lines.push({ text, destination, rank: inner, order: lines.length });
  if (destination || rendered.length <= PREVIEW_CHARS || value === null || typeof value !== 'object' || depth >= MAX_DEPTH) {
    if (destination || rendered.length <= PREVIEW_CHARS) push(`${path}: ${rendered}${typeof value === 'string' ? hostNote(value) : ''}`);
    else push(`${path}: ${formatCount(typeof value === 'string' ? value.length : rendered.length)} characters: ${rendered.slice(0, PREVIEW_CHARS)}…`);
    return;
  }
  // A long object or list: each value on its own line, so nothing in it hides behind a long neighbour.
  const entries: Array<[string, unknown, number]> = Array.isArray(value)
    ? value.map((item, index) => [`${path}[${index}]`, item, rank])
    : Object.entries(value).map(([key, item]) => [`${path}.${segment(key)}`, item, Math.min(rank, rankOf(key))]);
  if (entries.length === 0) push(`${path}: ${rendered}`);
  for (const [childPath, item, childRank] of entries) collect(item, childPath, childRank, lines, depth + 1);
}

/** The host as a person reads it: after `://`, up to the first `/`, `?` or `#`, after the last `@`. */
const URL_START = /^\s*[a-z][a-z0-9+.-]*:\/\/(?:[^/?#]*@)?([^/?#@]*)/i;

/**
 * For a URL whose host, once parsed, is not what it looks like — a look-alike letter (`exаmple.com`, shown as its
 * `xn--` form), a number (`2130706433` is 127.0.0.1), a backslash or `@` trick —, the host it really goes to.
 */
function hostNote(value: string): string {
  const written = URL_START.exec(value);
  if (!written) return '';
  let host: string;
  try {
    host = new URL(value.trim()).host;
  } catch {
    return '';
  }
  return host !== '' && host !== (written[1] ?? '').toLowerCase() ? ` (goes to host ${escapeInvisible(host)})` : '';
}

/** The best rank of a destination key anywhere inside `value` (MAX_SAFE_INTEGER when there is none). */
function innerDestinationRank(value: unknown, depth: number): number {
  if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) return Number.MAX_SAFE_INTEGER;
  let best = Number.MAX_SAFE_INTEGER;
  const items: Array<[string | undefined, unknown]> = Array.isArray(value) ? value.map((item) => [undefined, item]) : Object.entries(value);
  for (const [key, item] of items) best = Math.min(best, key === undefined ? Number.MAX_SAFE_INTEGER : rankOf(key), innerDestinationRank(item, depth + 1));
  return best;
}

/** JSON, so quotes and line breaks cannot fake another line, with invisible characters spelt out. */
function render(value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined;
  }
  return escapeInvisible(json ?? String(value));
}

function rankOf(key: string): number {
  return DESTINATION_RANK.get(key.toLowerCase()) ?? Number.MAX_SAFE_INTEGER;
}

function segment(key: string): string {
  if (/^[A-Za-z_$][\w$-]{0,63}$/.test(key)) return key;
  const quoted = escapeInvisible(JSON.stringify(key));
  return quoted.length <= 66 ? quoted : `${quoted.slice(0, 64)}…(${formatCount(key.length)} characters)`;
}

/** 12345 → "12,345" (without Intl: its data is loaded only when needed elsewhere). */
export function formatCount(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
