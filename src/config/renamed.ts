/**
 * Keys that a release renamed (key names are contracts: this should stay short). A config that still uses the old
 * name stops at start, as any unknown key does, but the message names the new key and the release, so an upgrade
 * never leaves the person guessing. Paths use `.` between keys, as the error messages do.
 */
export interface RenamedKey {
  from: string;
  to: string;
  /** The Familiar version that made the change. */
  since: string;
}

export const RENAMED_KEYS: readonly RenamedKey[] = [];
