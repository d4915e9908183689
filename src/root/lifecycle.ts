import { markInterruptedTurns } from '../agent/interrupted.js';
import { settledWithin } from '../lib/abort.js';
import { StartRetrying, type Part } from '../part.js';
import type { Core } from './core.js';

/** The parts in their start order, and what happened to them: what `/status` and `familiar status` read. */
export interface Lifecycle {
  /** Filled once, by step 7 of the root: the one start order. */
  parts: Part[];
  /** Parts whose start threw and that are not running; the daemon runs without them. */
  failed: string[];
  /** Of `failed`, the parts that keep trying by themselves (StartRetrying); each leaves both lists once it runs. */
  retrying: string[];
  started: boolean;
  start(): Promise<void>;
  close(graceMs: number): Promise<void>;
  reloadParts(): Promise<void>;
}

type Step = 'stop' | 'close' | 'reload';

/**
 * Starts the parts in order (one that throws is logged and listed; the others run), stops them in reverse, lets the
 * chat turns drain, closes them in reverse and then the database. A close that comes while the parts start (a stop
 * signal during start-up) starts no more of them and stops them all, so the one starting gives up. Reload asks each
 * part to pick up what changed on disk. Contract: none of these throws for a part's failure.
 */
export function createLifecycle(core: Core): Lifecycle {
  const { options, db, turns } = core;
  const { log } = options;
  let closing = false;
  let starting: Promise<void> | undefined;
  const each = async (order: readonly Part[], step: Step, failed: string): Promise<void> => {
    for (const part of order) {
      try {
        await part[step]?.();
      } catch (error) {
        log.warn({ err: error, module: part.name }, `${part.name} ${failed}`);
      }
    }
  };
  const startParts = async (): Promise<void> => {
    for (const part of lifecycle.parts) {
      if (closing) return;
      try {
        await part.start?.();
      } catch (error) {
        failedToStart(part, error);
      }
    }
  };
  const failedToStart = (part: Part, error: unknown): void => {
    if (closing) {
      log.info({ module: part.name }, `${part.name}: start abandoned: shutting down`);
      return;
    }
    // One part failing (a bad bot token) must not take the others down.
    log.error({ err: error, module: part.name }, `${part.name} failed to start`);
    lifecycle.failed.push(part.name);
    if (error instanceof StartRetrying) retryingUntilStarted(part.name, error.started);
  };
  const retryingUntilStarted = (name: string, started: Promise<void>): void => {
    lifecycle.retrying.push(name);
    const drop = (list: string[]): void => {
      if (list.includes(name)) list.splice(list.indexOf(name), 1);
    };
    void started.then(() => {
      drop(lifecycle.failed);
      drop(lifecycle.retrying);
      log.info({ module: name }, `${name} started (it had failed at first)`);
    }, () => drop(lifecycle.retrying));
  };
  const lifecycle: Lifecycle = {
    parts: [],
    failed: [],
    retrying: [],
    started: false,
    async start() {
      core.lifecycle.starting = true;
      if (options.mode === 'daemon') {
        const cut = markInterruptedTurns(db);
        if (cut > 0) log.warn({ turns: cut }, 'turns cut by a crash or kill were marked interrupted');
      }
      starting = startParts();
      await starting;
      lifecycle.started = !closing;
    },
    async close(graceMs) {
      closing = true;
      const reversed = [...lifecycle.parts].reverse();
      await each(reversed, 'stop', 'did not stop cleanly');
      // Told to stop, a part still starting gives up (Telegram's getMe is aborted); one that does not is waited for
      // no longer than the turns are, so that a stop signal during start-up always ends the daemon.
      if (starting) await settledWithin(starting, graceMs);
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
