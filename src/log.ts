import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { createRedactor, redactorFor } from './lib/redaction.js';
import { AppError } from './errors.js';

export type { Logger } from 'pino';

export interface CreateLoggerOptions {
  level: string;
  format: 'auto' | 'json' | 'pretty';
  /**
   * Secret values from config: replaced by [REDACTED] in every line, whatever key they sit under, in every form
   * `redaction.ts` knows (JSON-escaped, URL-encoded, base64).
   */
  secrets: readonly string[];
  /** Defaults to stderr so that `familiar ask` keeps stdout for the reply. */
  destination?: DestinationStream;
  /** Also receives every line (JSON, redacted): the daemon's in-memory ring of recent lines for the console. */
  tee?: DestinationStream;
}

/** Keys whose values are never logged, wherever they appear in a log object. */
export const REDACT_PATHS = [
  'api_key', '*.api_key', 'apiKey', '*.apiKey', 'token', '*.token', 'password', '*.password',
  'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization',
  'headers.Authorization', '*.headers.Authorization', 'config.llm.api_key',
];

/** The one root logger; components take child loggers (`{component}`, `{conversation, turn}`, `{tool, callId}`). */
export function createLogger(options: CreateLoggerOptions): Logger {
  const redactor = createRedactor(options.secrets);
  const pinoOptions: LoggerOptions = {
    level: options.level,
    base: { pid: process.pid },
    serializers: { err: errorSerializer(options.level === 'debug' || options.level === 'trace') },
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    // On the values, before pino serialises them: a secret with a `"` or `\` in it is still whole there. The
    // hook runs only for enabled levels, and leaves arguments without secrets as they are (no copies).
    ...(redactor.empty ? {} : {
      hooks: {
        logMethod(args: unknown[], method: (...args: unknown[]) => void) {
          let clean: unknown[] | undefined;
          for (let index = 0; index < args.length; index += 1) {
            const redacted = redactor.value(args[index]);
            if (redacted !== args[index]) (clean ??= [...args])[index] = redacted;
          }
          method.apply(this, clean ?? args);
        },
      },
    }),
  };
  const pretty = options.format === 'pretty' || (options.format === 'auto' && process.stderr.isTTY === true);
  let destination: DestinationStream;
  if (options.destination) destination = options.destination;
  else if (pretty) {
    // Loaded only for a terminal: daemons under Docker or systemd log JSON without paying for it.
    const require = createRequire(import.meta.url);
    const prettyFactory = require('pino-pretty') as (opts: object) => DestinationStream;
    destination = prettyFactory({ destination: 2, sync: true, ignore: 'pid,hostname' });
  } else destination = pino.destination({ dest: 2, sync: true });
  // The logger's own level decides what is written; each stream takes every line it is given.
  const logger: Logger = options.tee
    ? pino(pinoOptions, pino.multistream([{ level: 'trace', stream: destination }, { level: 'trace', stream: options.tee }]))
    : pino(pinoOptions, destination);
  if (!redactor.empty) redactChildBindings(logger, redactor.value);
  return logger;
}

/**
 * Child bindings (`log.child({url})`) are serialised once, when the child is made, and pino's `bindings`
 * formatter is not applied to children: the root's `child` is wrapped instead. Children are created from the
 * root by prototype, so their own `child` calls find this wrapper too.
 */
function redactChildBindings(root: Logger, clean: <T>(value: T) => T): void {
  const child = root.child;
  const wrapped = function (this: Logger, bindings: Record<string, unknown>, options?: Parameters<Logger['child']>[1]) {
    return child.call(this, clean(bindings), options);
  };
  Object.defineProperty(root, 'child', { value: wrapped, writable: true, configurable: true });
}

/** Replaces every known secret value in `text`, in all its encoded forms. Contract: never throws. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  return redactorFor(secrets).text(text);
}

/** A copy of `value` with every string in it redacted (the same reference when nothing changed). */
export function redactSecretValues<T>(value: T, secrets: readonly string[]): T {
  return redactorFor(secrets).value(value);
}

/** Errors of the world, not of the code: a config, connection or authentication problem, said by its message. */
const OPERATIONAL_NAMES = new Set([
  'APIError', 'APIConnectionError', 'APIConnectionTimeoutError', 'AuthenticationError', 'PermissionDeniedError', 'NotFoundError',
  'RateLimitError', 'InternalServerError', 'BadRequestError', 'ConflictError', 'UnprocessableEntityError',
  'GrammyError', 'HttpError', 'DiscordAPIError', 'HTTPError', 'ConnectTimeoutError', 'SocketError',
]);

/** True for what the operator fixes by reading the message (an AppError, a refused connection, a 401), not a bug. */
export function isOperationalError(error: unknown): boolean {
  if (error instanceof AppError) return true;
  if (!(error instanceof Error)) return false;
  if (OPERATIONAL_NAMES.has(error.name) || OPERATIONAL_NAMES.has(error.constructor.name)) return true;
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === 'string' && /^(E[A-Z]+|ERR_[A-Z_]+|UND_ERR_[A-Z_]+)$/.test(code);
}

/**
 * pino's error serializer (type, message with its causes, own fields), without the stack for operational errors
 * unless the level is debug or trace: a wrong port or a rejected token is one line on the terminal, and the stack
 * is there for whoever runs with --log-level debug. Bugs keep their stacks.
 */
function errorSerializer(keepStacks: boolean): (error: unknown) => unknown {
  return (error) => {
    if (!(error instanceof Error)) return error;
    const serialized = pino.stdSerializers.err(error) as { stack?: string };
    if (!keepStacks && isOperationalError(error)) delete serialized.stack;
    return serialized;
  };
}
