import { loadConfig, type LoadedConfig } from '../config/load.js';
import { createApp, type App } from '../app.js';
import { createLogger, type Logger } from '../log.js';

export interface GlobalOptions {
  config: string | undefined;
  logLevel: string | undefined;
  json: boolean;
}

export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
}

export interface CommandContext {
  args: string[];
  options: GlobalOptions;
  io: CommandIo;
  /** Loads (once) the config; throws ConfigError. */
  loadConfig(): LoadedConfig;
  /** Builds the app for this command; `quiet` commands log warnings only unless --log-level says otherwise. */
  createApp(mode: 'daemon' | 'quiet'): Promise<App>;
  logger(mode: 'daemon' | 'quiet'): Logger;
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
    logger(mode) {
      const config = context.loadConfig();
      const level = options.logLevel ?? (mode === 'quiet' ? 'warn' : config.config.log.level);
      return createLogger({ level, format: config.config.log.format, secrets: config.secrets });
    },
    async createApp(mode) {
      const config = context.loadConfig();
      const log = context.logger(mode);
      if (config.source === 'example') log.info({ path: config.path }, 'no config file found; using the defaults from config.example.yaml');
      return createApp({ loaded: config, log });
    },
  };
  return context;
}
