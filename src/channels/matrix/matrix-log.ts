import { logger as sdkLogger } from 'matrix-js-sdk/lib/logger.js';
import { errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';

type LogMethod = (...words: unknown[]) => void;
type MethodFactory = (methodName: string, level: unknown, loggerName: unknown) => LogMethod;

let current: Logger | undefined;

/**
 * matrix-js-sdk writes its own progress ("Getting push rules...", every HTTP request) to the console through one
 * module-wide loglevel logger; its modules bind that logger's methods, or make child loggers that copy its method
 * factory, when they load. So the factory is replaced here, when this module loads, and the platform imports this
 * module before any of the SDK's: everything the SDK says then goes to the channel's logger at debug, and
 * `familiar start`'s output stays the daemon's own. The channel logs what matters (connected, lost, refused) itself.
 */
const factory: MethodFactory = () => (...words) => {
  current?.debug({ sdk: true }, words.map((word) => (word instanceof Error ? errorMessage(word) : typeof word === 'string' ? word : safeJson(word))).join(' '));
};
(sdkLogger as unknown as { methodFactory: MethodFactory }).methodFactory = factory;
(sdkLogger as unknown as { rebuild(): void }).rebuild();

/** Where the SDK's words go from now on (the SDK's logger is one per process: the last channel made owns it). */
export function routeSdkLogs(log: Logger): void {
  current = log;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 500) ?? String(value);
  } catch {
    return String(value);
  }
}
