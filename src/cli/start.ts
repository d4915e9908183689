import { mkdirSync } from 'node:fs';
import { constants } from 'node:os';
import type { Daemon } from '../daemon.js';
import { acquireDaemonLock } from '../ops/lock.js';
import { collectStartupGarbage, tuneHeapForDaemon } from '../ops/heap.js';
import { readinessChecks, readinessMessage } from '../ops/readiness.js';
import { platformsToStart } from '../channels/platforms.js';
import type { Command } from './context.js';

/**
 * `familiar start`: run until SIGINT/SIGTERM (one while the parts start too), then stop taking work, drain, close;
 * exit 0 (a second signal exits at once). SIGHUP reloads the config and asks the parts to pick up what changed on
 * disk (`Daemon.reloadParts`: the custom tools), and keeps running.
 * One daemon per data folder: a second one exits with status 1 naming the first (AppError DAEMON_RUNNING).
 */
export const startCommand: Command = async (context) => {
  tuneHeapForDaemon();
  const { config } = context.loadConfig();
  mkdirSync(config.data_dir, { recursive: true, mode: 0o700 });
  const lock = acquireDaemonLock(config.data_dir);
  try {
    return await run(context);
  } finally {
    lock.release();
  }
};

async function run(context: Parameters<Command>[0]): Promise<number> {
  const app = await context.daemon('daemon');
  // With no channel polling, nothing else keeps the event loop alive while we wait for a signal.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  const stopped = stopSignal(app.log);
  // SIGHUP reloads the config and the custom tools (systemctl reload, kill -HUP); it no longer ends the daemon.
  const onHangup = (): void => {
    app.reload('SIGHUP');
    void app.reloadParts().then(() => app.log.info('custom tools reloaded'));
  };
  process.on('SIGHUP', onHangup);
  // A signal while the parts start (a part waiting on a server that does not answer) is not held until they are up:
  // the start is abandoned, and close() below tells the parts to stop (the one starting gives up) and releases them.
  const early = await Promise.race([app.start().then(() => undefined), stopped]);
  if (early === undefined) {
    sayReady(app);
    context.io.ready?.();
    // Start-up's garbage is taken now, not held until a collection comes on its own.
    collectStartupGarbage();
  }
  const signal = early ?? (await stopped);
  process.off('SIGHUP', onHangup);
  app.log.info({ signal }, 'shutting down');
  await app.close(15_000);
  clearInterval(keepAlive);
  app.log.info('stopped');
  // Everything of ours is closed; a client library's leftover timer must not hold the exit (matrix-js-sdk leaves a
  // 110 s timer per /sync request, and systemd would kill a stop that takes 90 s). The log file gets a second to flush.
  setTimeout(() => process.exit(0), 1000).unref();
  return 0;
}

/**
 * The first SIGINT or SIGTERM. A second one while stopping ends the process at once, with 128 + the signal's number
 * as a shell reports a kill: the person pressing Ctrl-C again does not want to wait for the drain.
 */
function stopSignal(log: Daemon['log']): Promise<string> {
  return new Promise((resolve) => {
    let first: string | undefined;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (first === undefined) {
        first = signal;
        resolve(signal);
        return;
      }
      log.warn({ signal }, 'a second stop signal: exiting now, without waiting for running turns');
      process.exit(128 + (constants.signals[signal] ?? 0));
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** The ready line, with what keeps it from being useful said first (no LLM key, no channel, an unset variable). */
function sayReady(app: Daemon): void {
  for (const line of readinessChecks(app.loaded)) if (line.status !== 'ok') app.log.warn(readinessMessage(line));
  const ready = { tools: app.tools.list().length, modules: app.parts.map((part) => part.name), ms: Math.round(performance.now()) };
  // A channel that failed to start (a rejected token) leaves a daemon nobody can reach: "ready" alone would hide it.
  const configured = platformsToStart(app.config).map((entry) => entry.name);
  const failed = app.failedParts();
  const running = configured.filter((name) => !failed.includes(name));
  if (configured.length > 0 && running.length === 0) app.log.warn(ready, nobodyCanMessage(configured, app.retryingParts()));
  else app.log.info({ ...ready, channels: running }, 'familiar is ready');
}

/** Every configured channel failed: why (the lines above), and whether waiting helps or a fix and a restart do. */
function nobodyCanMessage(configured: string[], retrying: string[]): string {
  const next = configured.every((name) => retrying.includes(name))
    ? 'it keeps trying to connect and answers once it can (familiar doctor checks the connection)'
    : 'fix it (familiar doctor checks the token) and restart';
  return `familiar is ready, but nobody can message it: ${configured.join(' and ')} failed to start (the reason is above) — ${next}; familiar chat works meanwhile`;
}
