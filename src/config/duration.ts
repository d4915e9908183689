import { z } from 'zod/v3';

const UNIT_SECONDS: ReadonlyMap<string, number> = new Map([
  ['ms', 0.001],
  ['s', 1],
  ['m', 60],
  ['h', 3600],
  ['d', 86400],
]);

/** Parses `90`, `"90s"`, `"15m"`, `"24h"`, `"2d"` or `"1h30m"` into seconds; undefined when malformed. */
export function parseDurationSeconds(value: number | string): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  const text = value.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text.replace(/\s+/g, '')) return undefined;
  let total = 0;
  for (const [, amount, unit] of parts) total += Number(amount) * (UNIT_SECONDS.get(unit ?? '') ?? 0);
  return total;
}

/** A zod type for durations written as seconds or with units; the parsed value is seconds. */
export function duration() {
  return z.union([z.number(), z.string()]).transform((value, ctx) => {
    const seconds = parseDurationSeconds(value);
    if (seconds === undefined) {
      ctx.addIssue({ code: 'custom', message: `"${value}" is not a duration (use seconds or e.g. 30s, 15m, 24h, 2d)` });
      return z.NEVER;
    }
    return seconds;
  });
}
