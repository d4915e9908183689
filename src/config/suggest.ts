import type { distance as Distance } from 'fastest-levenshtein';
import { z } from 'zod/v3';
import { requireOnUse } from '../lib/folded.js';
import { RENAMED_KEYS, type RenamedKey } from './renamed.js';

/**
 * Did-you-mean for misspelt config keys: the keys the schema allows at a path, the nearest one by edit
 * distance, and the other places a key of that exact name belongs (`telegram` at the top level belongs under
 * `channels`).
 */

/** The keys allowed in the mapping at `keyPath` (`[]` is the root), or undefined when any key goes (a record). */
export function knownKeysAt(schema: z.ZodTypeAny, keyPath: readonly (string | number)[]): string[] | undefined {
  let current: z.ZodTypeAny | undefined = unwrap(schema);
  for (const key of keyPath) {
    if (current instanceof z.ZodObject) current = unwrap((current.shape as Record<string, z.ZodTypeAny>)[String(key)]);
    else if (current instanceof z.ZodArray) current = unwrap(current.element as z.ZodTypeAny);
    else if (current instanceof z.ZodRecord) current = unwrap(current.valueSchema as z.ZodTypeAny);
    else return undefined;
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape as object) : undefined;
}

/** The nearest known key, when it is near enough to be a misspelling; case, `-` and `_` do not count. */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  const normal = normalize(key);
  // Short keys get one edit; longer ones up to 40 % of their length (a transposition costs two).
  const limit = normal.length >= 4 ? Math.max(2, Math.floor(normal.length * 0.4)) : 1;
  let best: { key: string; cost: number } | undefined;
  // Loaded for a config with an unknown key only, not with every config.
  const { distance } = requireOnUse<{ distance: typeof Distance }>('fastest-levenshtein');
  for (const candidate of known) {
    const cost = distance(normal, normalize(candidate));
    if (cost <= limit && (!best || cost < best.cost)) best = { key: candidate, cost };
  }
  return best?.key;
}

/** Every path where a key named `key` is allowed, e.g. `channels` for `telegram` (at most `limit`). */
export function placesOf(schema: z.ZodTypeAny, key: string, limit = 3): string[] {
  const found: string[] = [];
  const walk = (node: z.ZodTypeAny | undefined, at: string[], depth: number): void => {
    const current = unwrap(node);
    if (found.length >= limit || depth > 6) return;
    if (current instanceof z.ZodArray) walk(current.element as z.ZodTypeAny, [...at, '0'], depth + 1);
    if (!(current instanceof z.ZodObject)) return;
    const shape = current.shape as Record<string, z.ZodTypeAny>;
    if (Object.hasOwn(shape, key)) found.push(at.length > 0 ? at.join('.') : '(the top level)');
    for (const [name, child] of Object.entries(shape)) walk(child, [...at, name], depth + 1);
  };
  walk(schema, [], 0);
  return found.slice(0, limit);
}

/**
 * The reason for an unknown key: its new name when a release renamed it, else the near miss at that level, else
 * where that key belongs, else the example.
 */
export function unknownKeyReason(schema: z.ZodTypeAny, parent: readonly (string | number)[], key: string, renamed: readonly RenamedKey[] = RENAMED_KEYS): string {
  const path = [...parent, key].join('.');
  const rename = renamed.find((entry) => entry.from === path);
  if (rename) return `renamed to ${rename.to} in Familiar ${rename.since}: change the key's name (familiar config validate lists every such key)`;
  const known = knownKeysAt(schema, parent) ?? [];
  const near = nearestKey(key, known);
  if (near !== undefined) return `unknown key; did you mean "${near}"?`;
  const places = placesOf(schema, key).filter((place) => place !== parent.join('.'));
  if (places.length > 0) return `unknown key here; "${key}" belongs under ${places.join(' or ')}`;
  return 'unknown key (see config.example.yaml for the keys)';
}

function normalize(key: string): string {
  return key.toLowerCase().replaceAll('-', '_');
}

function unwrap(schema: z.ZodTypeAny | undefined): z.ZodTypeAny | undefined {
  let current = schema;
  for (let depth = 0; current && depth < 10; depth += 1) {
    if (current instanceof z.ZodDefault) current = current._def.innerType as z.ZodTypeAny;
    else if (current instanceof z.ZodOptional || current instanceof z.ZodNullable) current = current.unwrap() as z.ZodTypeAny;
    else if (current instanceof z.ZodEffects) current = current.innerType() as z.ZodTypeAny;
    else break;
  }
  return current;
}
