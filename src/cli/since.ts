import { parseDurationSeconds } from '../config/duration.js';

/** `--since 2h`, `--since 7d`, or a date/time (`2026-11-01`, ISO 8601); epoch ms, or undefined when unreadable. */
export function parseSince(value: string, now: number = Date.now()): number | undefined {
  const seconds = parseDurationSeconds(value);
  if (seconds !== undefined && !/^\d{4}-/.test(value)) return now - seconds * 1000;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? undefined : parsed;
}
