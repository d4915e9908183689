import type { Result } from '../lib/result.js';

/**
 * Keys that change how JavaScript reads an object rather than being data: `__proto__` sets the prototype when
 * assigned (so a copy loses it while the original still carries it), `constructor` and `prototype` reach the
 * classes behind a value, and the legacy accessor helpers define getters and setters. A call whose arguments carry
 * one at any depth is refused, never half-shown and sent.
 */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__']);

/** Tool arguments are small; a deeper structure is refused rather than walked without end. */
const MAX_DEPTH = 64;

/** Checks every key of `value` at any depth. Contract: never throws; iterative, so deep input cannot overflow the stack. */
export function checkArgumentKeys(value: unknown): Result {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop() as { value: unknown; path: string; depth: number };
    if (current === null || typeof current !== 'object') continue;
    if (depth > MAX_DEPTH) return { success: false, error: `the arguments are nested more than ${MAX_DEPTH} levels deep${path ? ` (at ${path})` : ''}; send a flatter object` };
    if (Array.isArray(current)) {
      current.forEach((item: unknown, index) => stack.push({ value: item, path: `${path}[${index}]`, depth: depth + 1 }));
      continue;
    }
    // Own keys, read without touching accessors: JSON.parse makes "__proto__" an ordinary own key.
    for (const key of Object.keys(current)) {
      const at = path ? `${path}.${key}` : key;
      if (FORBIDDEN_KEYS.has(key)) {
        return {
          success: false,
          error: `the key "${key}" (at ${at}) is not accepted in tool arguments: it can change how the arguments are read. Rename or remove that field and call again`,
        };
      }
      stack.push({ value: (current as Record<string, unknown>)[key], path: at, depth: depth + 1 });
    }
  }
  return { success: true, value: undefined };
}
