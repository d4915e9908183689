/**
 * Orders strings by code point: stable across machines and locales, and it does not load ICU's collation data
 * (as localeCompare does, about 3 MB, on first use). For names, paths and keys, not for prose shown to people.
 */
export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
