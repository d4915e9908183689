import { logger as sdkLogger } from 'matrix-js-sdk/lib/logger.js';
import { errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';

type LogMethod = (...words: unknown[]) => void;
type MethodFactory = (methodName: string, level: unknown, loggerName: unknown) => LogMethod;

let current: Logger | undefined;

/**
 * matrix-js-sdk writes its own progress ("Getting push rules...", every HTTP request) to the console through one
 * module-wide loglevel logger, and modules make child loggers from it as they go (they copy its method factory).
 * Pointing that factory at the channel's logger, at debug, keeps `familiar start`'s output the daemon's own; the
 * channel logs what matters (connected, lost, refused) itself. The SDK's logger is one per process, so the last
 * channel made owns it (a restart in tests makes a new one).
 */
export function routeSdkLogs(log: Logger): void {
  current = log;
  const factory: MethodFactory = () => (...words) => {
    current?.debug({ sdk: true }, words.map((word) => (word instanceof Error ? errorMessage(word) : typeof word === 'string' ? word : safeJson(word))).join(' '));
  };
  (sdkLogger as unknown as { methodFactory: MethodFactory; rebuild(): void }).methodFactory = factory;
  (sdkLogger as unknown as { rebuild(): void }).rebuild();
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 500) ?? String(value);
  } catch {
    return String(value);
  }
}
