import { mkdirSync } from 'node:fs';
import { acquireDaemonLock } from '../ops/lock.js';
import { collectStartupGarbage, tuneHeapForDaemon } from '../ops/heap.js';
import { readinessChecks, readinessMessage } from '../ops/readiness.js';
import { platformsToStart } from '../channels/platforms.js';
import type { Command } from './context.js';

/**
 * `familiar start`: run until SIGINT/SIGTERM, then stop taking work, drain, close; exit 0. SIGHUP reloads the config
 * and asks the parts to pick up what changed on disk (`Daemon.reloadParts`: the custom tools), and keeps running.
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
  const stopped = new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  // SIGHUP reloads the config and the custom tools (systemctl reload, kill -HUP); it no longer ends the daemon.
  const onHangup = (): void => {
    app.reload('SIGHUP');
    void app.reloadParts().then(() => app.log.info('custom tools reloaded'));
  };
  process.on('SIGHUP', onHangup);
  await app.start();
  // No LLM key, no channel, an unset variable: said now, each with its next step, not discovered at the first message.
  for (const line of readinessChecks(app.loaded)) if (line.status !== 'ok') app.log.warn(readinessMessage(line));
  const ready = { tools: app.tools.list().length, modules: app.parts.map((part) => part.name), ms: Math.round(performance.now()) };
  // A channel that failed to start (a rejected token) leaves a daemon nobody can reach: "ready" alone would hide it.
  const configured = platformsToStart(app.config).map((entry) => entry.name);
  const failed = app.failedParts();
  const running = configured.filter((name) => !failed.includes(name));
  if (configured.length > 0 && running.length === 0) {
    app.log.warn(ready, `familiar is ready, but nobody can message it: ${configured.join(' and ')} failed to start (the reason is above) — fix it (familiar doctor checks the token) and restart; familiar chat works meanwhile`);
  } else app.log.info({ ...ready, channels: running }, 'familiar is ready');
  context.io.ready?.();
  // Start-up's garbage is taken now, not held until a collection comes on its own.
  collectStartupGarbage();
  const signal = await stopped;
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
