import { compareCodePoints } from '../lib/compare.js';

/** What makes two calls the same call, for the repeat limit: key order and spacing do not make a call different. */
export function callKey(name: string, argumentsText: string): string {
  return `${name}\u0000${normalizeArguments(argumentsText)}`;
}

function normalizeArguments(text: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(text)));
  } catch {
    return text.trim();
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).sort(([a], [b]) => compareCodePoints(a, b)).map(([k, v]) => [k, sortKeys(v)]));
  }
  return value;
}
