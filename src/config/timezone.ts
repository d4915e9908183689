import { readFileSync, readlinkSync } from 'node:fs';

/** Names of UTC that ICU accepts but does not list among its canonical zones. */
const UTC_NAMES = new Set(['UTC', 'Etc/UTC', 'Etc/UCT', 'UCT', 'Etc/Universal', 'Universal', 'Etc/Zulu', 'Zulu', 'GMT', 'Etc/GMT', 'Etc/GMT0', 'Etc/GMT+0', 'Etc/GMT-0', 'GMT0', 'GMT+0', 'GMT-0', 'Etc/Greenwich', 'Greenwich']);
let canonical: ReadonlySet<string> | undefined;

/**
 * True for a time zone name ICU knows. The canonical list (and the names of UTC) are checked first: building a
 * date formatter loads ICU's formatting data, about 8 MB of memory that an idle daemon then never needs; other
 * aliases ("US/Eastern", "Asia/Calcutta" is listed, "Europe/Kyiv" may not be) fall back to a formatter.
 */
export function isValidTimeZone(zone: string): boolean {
  canonical ??= new Set(Intl.supportedValuesOf('timeZone'));
  if (canonical.has(zone) || UTC_NAMES.has(zone)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The machine's time zone, found where ICU looks for it (the TZ variable, the /etc/localtime link,
 * /etc/timezone) without loading ICU's formatting data; ICU's own answer when none of them names a zone.
 */
export function systemTimeZone(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.TZ?.replace(/^:/, '').trim();
  // A TZ that is not a zone name (a POSIX rule such as "CET-1CEST") is ICU's to interpret.
  if (fromEnv) return isValidTimeZone(fromEnv) ? fromEnv : icuTimeZone();
  for (const candidate of [linkedZone('/etc/localtime'), fileZone('/etc/timezone')]) {
    if (candidate && isValidTimeZone(candidate)) return candidate;
  }
  return icuTimeZone();
}

function icuTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

function linkedZone(file: string): string | undefined {
  try {
    return /zoneinfo\/(.+)$/.exec(readlinkSync(file))?.[1];
  } catch {
    return undefined;
  }
}

function fileZone(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
