import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

export interface CreateLoggerOptions {
  level: string;
  format: 'auto' | 'json' | 'pretty';
  /** Secret values from config: replaced by [REDACTED] in every line, whatever key they sit under. */
  secrets: readonly string[];
  /** Defaults to stderr so that `familiar ask` keeps stdout for the reply. */
  destination?: DestinationStream;
}

/** Keys whose values are never logged, wherever they appear in a log object. */
export const REDACT_PATHS = [
  'api_key', '*.api_key', 'apiKey', '*.apiKey', 'token', '*.token', 'password', '*.password',
  'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization',
  'headers.Authorization', '*.headers.Authorization', 'config.llm.api_key',
];

/** The one root logger; components take child loggers (`{component}`, `{conversation, turn}`, `{tool, callId}`). */
export function createLogger(options: CreateLoggerOptions): Logger {
  const secrets = options.secrets.filter((value) => value.length >= 4).sort((a, b) => b.length - a.length);
  const pinoOptions: LoggerOptions = {
    level: options.level,
    base: { pid: process.pid },
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    hooks: secrets.length > 0 ? { streamWrite: (line) => redactSecrets(line, secrets) } : {},
  };
  const pretty = options.format === 'pretty' || (options.format === 'auto' && process.stderr.isTTY === true);
  if (options.destination) return pino(pinoOptions, options.destination);
  if (pretty) {
    // Loaded only for a terminal: daemons under Docker or systemd log JSON without paying for it.
    const require = createRequire(import.meta.url);
    const prettyFactory = require('pino-pretty') as (opts: object) => DestinationStream;
    return pino(pinoOptions, prettyFactory({ destination: 2, sync: true, ignore: 'pid,hostname' }));
  }
  return pino(pinoOptions, pino.destination({ dest: 2, sync: true }));
}

/** Replaces every known secret value in `text`. Contract: never throws. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join('[REDACTED]');
  }
  return out;
}
