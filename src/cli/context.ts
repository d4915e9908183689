import { loadConfig, type LoadedConfig } from '../config/load.js';
import type { Daemon, DaemonMode } from '../daemon.js';
import { openDatabase, type Database } from '../db/database.js';
import { LogRing } from '../lib/log-ring.js';
import { createLogger, lazyLogger, type Logger } from '../log.js';

export interface GlobalOptions {
  config: string | undefined;
  logLevel: string | undefined;
  json: boolean;
}

export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  /** Called once by `familiar start` when the daemon is ready (the executable then writes its code cache). */
  ready?: () => void;
}

/**
 * What a command may open, each on demand: a command opens only what it reads. Read-only commands open the
 * database and the stores they list; commands that run turns build the daemon in `command` mode (no channels, no
 * HTTP endpoint, nothing started); only `familiar start` builds it in `daemon` mode.
 */
export interface CommandContext {
  args: string[];
  options: GlobalOptions;
  io: CommandIo;
  /** Loads (once) the config; throws ConfigError. */
  loadConfig(): LoadedConfig;
  /** `quiet` commands log warnings only unless --log-level says otherwise; `daemon` also writes the log file; `ring` also keeps the last lines in memory. */
  logger(mode: 'daemon' | 'quiet', ring?: LogRing): Logger;
  /** The database of `data_dir` (created and migrated if needed). The caller closes it. */
  openDatabase(): Database;
  /**
   * The daemon's parts, made but not started. The caller closes it. Logs at the config's level for `familiar start`,
   * warnings only for the others (`logs`), unless --log-level says otherwise.
   */
  daemon(mode: DaemonMode, logs?: 'daemon' | 'quiet'): Promise<Daemon>;
}

export type Command = (context: CommandContext) => Promise<number>;

export function createCommandContext(args: string[], options: GlobalOptions, io: CommandIo): CommandContext {
  let loaded: LoadedConfig | undefined;
  const context: CommandContext = {
    args,
    options,
    io,
    loadConfig() {
      loaded ??= loadConfig({ configPath: options.config });
      return loaded;
    },
    logger(mode, ring?: LogRing) {
      const config = context.loadConfig();
      const { log } = config.config;
      const level = options.logLevel ?? (mode === 'quiet' ? 'warn' : log.level);
      // Only the daemon keeps the log file (familiar logs); a one-shot command's warnings are its own.
      const file = mode === 'daemon' && log.file !== 'off' ? { file: { path: log.file, maxMb: log.file_max_mb, count: log.file_count } } : {};
      const make = () => createLogger({ level, format: log.format, secrets: config.secrets, ...file, ...(ring ? { tee: ring } : {}) });
      // A one-shot command's logger is made with its first line; the daemon's at once (its file and ring take every line).
      return mode === 'quiet' ? lazyLogger(level, make) : make();
    },
    openDatabase() {
      return openDatabase(context.loadConfig().config.data_dir);
    },
    async daemon(mode, logs = mode === 'daemon' ? 'daemon' : 'quiet') {
      const config = context.loadConfig();
      // The running daemon keeps its last log lines in memory for the console's health page.
      const ring = mode === 'daemon' && logs === 'daemon' && config.config.http.listen ? new LogRing() : undefined;
      const log = context.logger(logs, ring);
      if (config.source === 'example') log.info({ path: config.path }, 'no config file found; using the defaults from config.example.yaml');
      const { createDaemon } = await import('../daemon.js');
      // The daemon reads the config again on SIGHUP and when the file changes: the same way as here.
      return createDaemon({ loaded: config, log, mode, load: () => loadConfig({ configPath: options.config }), ...(ring ? { logRing: ring } : {}) });
    },
  };
  return context;
}
