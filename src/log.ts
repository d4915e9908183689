import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ChildLoggerOptions, DestinationStream, Logger, LoggerOptions, pino as Pino } from 'pino';
import { requireFolded } from './lib/folded-packages.js';
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
  /**
   * Also write every line, as JSON, to this file (the daemon's log, read by `familiar logs`): rotated when it
   * reaches `maxMb`, `count` older files kept (`familiar.log.1` the newest), mode 0600 in a 0700 folder.
   */
  file?: { path: string; maxMb: number; count: number };
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
  const pino = loadPino();
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
  let screen: DestinationStream;
  if (options.destination) screen = options.destination;
  else if (pretty) {
    // Loaded only for a terminal: daemons under Docker or systemd log JSON without paying for it.
    const prettyFactory = require('pino-pretty') as (opts: object) => DestinationStream;
    screen = prettyFactory({ destination: 2, sync: true, ignore: 'pid,hostname' });
  } else screen = pino.destination({ dest: 2, sync: true });
  const file = options.file ? openLogFile(options.file) : undefined;
  // The same line, redacted once by the hooks above, goes to each: pretty or JSON on stderr, JSON in the file, the
  // console's ring. The logger's own level decides what is written; each stream takes every line it is given.
  const streams = [screen, ...(file ? [file] : []), ...(options.tee ? [options.tee] : [])];
  const logger: Logger = streams.length > 1 ? pino(pinoOptions, pino.multistream(streams.map((stream) => ({ level: 'trace' as const, stream })))) : pino(pinoOptions, screen);
  if (!redactor.empty) redactChildBindings(logger, redactor.value);
  return logger;
}

/** pino's levels by name, as its lines carry them (`familiar logs --level` reads the same numbers). */
export const LOG_LEVELS: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };
const noop = (): void => undefined;

/**
 * A logger that is made (pino loaded, streams opened) with its first line at `level` or above: a one-shot command
 * that logs warnings only (`jobs list`, `memory log`, `skills list`) mostly writes none, and pino with its streams is
 * about 20 ms of a start. A line below `level` costs a property lookup; children are made lazily from their parent;
 * anything else asked of it (`flush`, `bindings`, setting `level`) makes the logger and is passed on.
 */
export function lazyLogger(level: string, make: () => Logger): Logger {
  const threshold = level === 'silent' ? Number.POSITIVE_INFINITY : LOG_LEVELS[level] ?? 0;
  let made: Logger | undefined;
  const real = (): Logger => (made ??= make());
  return new Proxy({} as Logger, {
    get(_target, property) {
      if (made !== undefined) {
        const value: unknown = Reflect.get(made, property);
        return typeof value === 'function' ? value.bind(made) : value;
      }
      if (property === 'silent') return noop;
      // Not a promise: a logger returned from an async function is not made to be looked at.
      if (property === 'then') return undefined;
      if (typeof property === 'string' && Object.hasOwn(LOG_LEVELS, property)) {
        if ((LOG_LEVELS[property] ?? 0) < threshold) return noop;
        return (...args: unknown[]) => (real()[property as 'info'] as (...rest: unknown[]) => void)(...args);
      }
      if (property === 'level') return level;
      if (property === 'isLevelEnabled') return (asked: string) => (LOG_LEVELS[asked] ?? Number.POSITIVE_INFINITY) >= threshold;
      if (property === 'child') {
        return (bindings: Record<string, unknown>, options?: { level?: string }) =>
          lazyLogger(options?.level ?? level, () => real().child<never>(bindings, options as ChildLoggerOptions<never> | undefined));
      }
      const value: unknown = Reflect.get(real(), property);
      return typeof value === 'function' ? value.bind(made) : value;
    },
    set(_target, property, value) {
      return Reflect.set(real(), property, value);
    },
  });
}

const require = createRequire(import.meta.url);
let pinoLoaded: typeof Pino | undefined;

/** pino (and its ~20 files), loaded with the first logger: a command that never logs (`audit`, `usage`) skips it. */
function loadPino(): typeof Pino {
  return (pinoLoaded ??= (requireFolded('pino') as { pino: typeof Pino }).pino);
}

/**
 * The rotating file under the daemon's log (rotating-file-stream, loaded only for the daemon). A file that cannot
 * be opened or written is said once on stderr; the daemon goes on logging to stderr.
 */
function openLogFile(file: NonNullable<CreateLoggerOptions['file']>): DestinationStream | undefined {
  const { createStream } = requireFolded('rotating-file-stream') as typeof import('rotating-file-stream');
  const dir = path.dirname(file.path);
  const base = path.basename(file.path);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    process.stderr.write(`familiar: no log file: cannot create ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)}); logging to stderr only\n`);
    return undefined;
  }
  // Classic logrotate naming: familiar.log, then familiar.log.1 (newest) … familiar.log.N.
  const stream = createStream((index: number | Date | null) => (typeof index === 'number' && index > 0 ? `${base}.${index}` : base), {
    path: dir, size: `${Math.max(1, Math.round(file.maxMb * 1024))}K`, rotate: file.count, mode: 0o600,
  });
  let warned = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (warned) return;
    warned = true;
    process.stderr.write(`familiar: cannot write the log file ${file.path} (${error.code ?? error.message}); logging to stderr only\n`);
  });
  return stream as unknown as DestinationStream;
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
  'GrammyError', 'HttpError', 'DiscordAPIError', 'MatrixError', 'HTTPError', 'ConnectTimeoutError', 'SocketError',
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
    const serialized = loadPino().stdSerializers.err(error) as { stack?: string };
    if (!keepStacks && isOperationalError(error)) delete serialized.stack;
    return serialized;
  };
}
