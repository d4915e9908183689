import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, errorMessage } from '../errors.js';
import { settledWithin } from '../lib/abort.js';
import type { Logger } from '../log.js';
import { StartRetrying } from '../part.js';
import type { ChatPlatform } from './platform.js';

/** The first wait before a platform that could not reach its server tries again; each wait doubles, to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 5000;
const RETRY_MAX_MS = 60_000;
/** How long `close` waits for a try under way to end once stopped (each platform's stop ends it much sooner). */
const CLOSE_WAIT_MS = 5000;

export interface StartRetryOptions {
  /** The platform's own child logger. */
  log: Logger;
  /** Tests shorten it; RETRY_FIRST_MS otherwise. */
  firstMs?: number;
}

/**
 * A chat platform's start, stop and close, where a start that fails because the server cannot be reached (the
 * platform's `<NAME>_UNREACHABLE`: the network is not up yet at boot, a homeserver restarting) throws StartRetrying
 * and starts the platform again in the background: 5 s later, then twice as long each time, a minute at most, one
 * debug line a try, until it runs, a try fails for another reason (a rejected token: an error line, no more tries),
 * or the daemon stops. A start that throws StartRetrying itself (Telegram keeps trying its own way) is passed on.
 * Each platform's `start` may therefore be called again after it threw, and gives up soon when `stop` is called
 * while it runs. Contract: `close` waits for a try under way (stopped, it ends soon; 5 s at most) before closing the
 * platform, so nothing a late try opened outlives the daemon.
 */
export function withStartRetries(platform: Pick<ChatPlatform, 'name' | 'start' | 'stop' | 'close'>, options: StartRetryOptions): Pick<ChatPlatform, 'start' | 'stop' | 'close'> {
  const { log } = options;
  const firstMs = options.firstMs ?? RETRY_FIRST_MS;
  const unreachable = `${platform.name.toUpperCase()}_UNREACHABLE`;
  const stopping = new AbortController();
  let retrying: Promise<void> | undefined;

  const tryAgain = async (): Promise<void> => {
    const { signal } = stopping;
    for (let attempt = 1; ; attempt += 1) {
      await sleep(Math.min(RETRY_MAX_MS, firstMs * 2 ** (attempt - 1)), undefined, { signal });
      try {
        await platform.start();
        return;
      } catch (error) {
        if (signal.aborted) throw error;
        if (!(error instanceof AppError) || error.code !== unreachable) {
          log.error({ err: error }, `${platform.name}: no more tries to connect (fix what the error says and restart)`);
          throw error;
        }
        log.debug({ attempt, reason: errorMessage(error) }, `${platform.name}: still cannot reach the server`);
      }
    }
  };

  return {
    async start() {
      try {
        await platform.start();
      } catch (error) {
        if (error instanceof StartRetrying || stopping.signal.aborted || !(error instanceof AppError) || error.code !== unreachable) throw error;
        retrying = tryAgain();
        throw new StartRetrying(error, retrying);
      }
    },
    async stop() {
      // Ends the wait between tries at once; the platform's stop makes a try under way give up.
      stopping.abort(new AppError('CHANNEL_STOPPED', `${platform.name}: stopped`));
      await platform.stop();
    },
    async close() {
      // A platform that ignores stop must not hold the daemon's exit: the wait has a limit.
      if (retrying && !(await settledWithin(retrying, CLOSE_WAIT_MS))) log.warn(`${platform.name}: a try to connect did not end when stopped; closing without it`);
      await platform.close();
    },
  };
}
