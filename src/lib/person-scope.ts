import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who a turn (or a chat command) runs as in a household (`people:` in config): the person behind the sender id, or a
 * guest. The turns and the router run their work inside `withPerson`, so the stores it reaches (the memory folder,
 * the usage budget, jobs, audit) act for that person without every call passing them along. Without `people:` nothing
 * runs inside a scope and every store behaves as before (one person, memory at the folder's root).
 */
export interface ActingPerson {
  /** The key under `people:`; for a guest, `guest`. */
  name: string;
  /** `guest`: an allowed or paired sender who is in no person's ids; no memory of anyone's until linked. */
  role: 'owner' | 'member' | 'child' | 'guest';
  /** Their folder relative to memory_dir (`people/<name>`); undefined for a guest, who has none. */
  folder: string | undefined;
  /** IANA zone for their dates; undefined: the daemon's. */
  timezone?: string | undefined;
  /** Tokens a day (`people.<name>.budget.daily_tokens`); undefined or 0: no limit of their own. */
  dailyTokens?: number | undefined;
  /** Set inside an explicit share the owner approved (memory_share): a write to shared/ is allowed. */
  sharing?: boolean;
}

const scope = new AsyncLocalStorage<ActingPerson>();

export function withPerson<T>(person: ActingPerson, run: () => T): T {
  return scope.run(person, run);
}

/** The person the current turn or command runs as; undefined outside a household (or outside any turn). */
export function currentPerson(): ActingPerson | undefined {
  return scope.getStore();
}

/** The zone the acting person reads the clock in: their own `timezone` in a household, else `fallback` (the daemon's). */
export function currentZone(fallback: string): string {
  return scope.getStore()?.timezone ?? fallback;
}
