import { markInterruptedTurns } from '../agent/interrupted.js';
import type { Part } from '../part.js';
import type { Core } from './core.js';

/** The parts in their start order, and what happened to them: what `/status` and `familiar status` read. */
export interface Lifecycle {
  /** Filled once, by step 7 of the root: the one start order. */
  parts: Part[];
  /** Parts whose start threw; the daemon runs without them. */
  failed: string[];
  started: boolean;
  start(): Promise<void>;
  close(graceMs: number): Promise<void>;
  reloadParts(): Promise<void>;
}

/**
 * Starts the parts in order (one that throws is logged and listed; the others run), stops them in reverse, lets the
 * chat turns drain, closes them in reverse and then the database. Reload asks each part to pick up what changed on
 * disk. Contract: none of these throws for a part's failure.
 */
export function createLifecycle(core: Core): Lifecycle {
  const { options, db, turns } = core;
  const { log } = options;
  const each = async (order: readonly Part[], step: 'start' | 'stop' | 'close' | 'reload', failed: string): Promise<string[]> => {
    const failures: string[] = [];
    for (const part of order) {
      try {
        await part[step]?.();
      } catch (error) {
        // One part failing (a bad bot token) must not take the others down.
        log[step === 'start' ? 'error' : 'warn']({ err: error, module: part.name }, `${part.name} ${failed}`);
        failures.push(part.name);
      }
    }
    return failures;
  };
  const lifecycle: Lifecycle = {
    parts: [],
    failed: [],
    started: false,
    async start() {
      core.lifecycle.starting = true;
      if (options.mode === 'daemon') {
        const cut = markInterruptedTurns(db);
        if (cut > 0) log.warn({ turns: cut }, 'turns cut by a crash or kill were marked interrupted');
      }
      lifecycle.failed.push(...(await each(lifecycle.parts, 'start', 'failed to start')));
      lifecycle.started = true;
    },
    async close(graceMs) {
      const reversed = [...lifecycle.parts].reverse();
      await each(reversed, 'stop', 'did not stop cleanly');
      await turns.drain(graceMs);
      await each(reversed, 'close', 'did not close cleanly');
      db.close();
    },
    async reloadParts() {
      await each(lifecycle.parts, 'reload', 'did not reload');
    },
  };
  return lifecycle;
}
