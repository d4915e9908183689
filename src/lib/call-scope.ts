import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What is known about the tool call in progress, to the code it reaches: the outside sources in play and what the
 * person wrote. A tainted tool call runs inside `withCallScope` (the registry does it), so a store written during the
 * call (a memory file, a reminder) can label what it keeps without every tool passing the sources along.
 */
export interface CallScope {
  /** Outside sources in play in the turn that made the call; empty for the person's own. */
  taint: readonly string[];
  /** What the person wrote in the conversation (their messages), read on demand. */
  personTexts?: () => readonly string[];
}

const scope = new AsyncLocalStorage<CallScope>();

export function withCallScope<T>(value: CallScope, run: () => T): T {
  return scope.run(value, run);
}

/** The sources in play in the current tool call (none outside a call). */
export function currentTaint(): readonly string[] {
  return scope.getStore()?.taint ?? [];
}

/** The current call's scope, if a tainted call is running. */
export function currentScope(): CallScope | undefined {
  return scope.getStore();
}
