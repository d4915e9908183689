import { LogLevel, type Logger as SlackLogger } from '@slack/web-api';
import type { Logger } from '../../log.js';

/**
 * The Slack libraries' logger, on the daemon's log. Their debug lines print whole payloads (the person's words), so
 * they are dropped; their info lines (connections) go to debug; warnings and errors stay what they are, or go to debug
 * too when `quiet` (a client whose caller says what failed: the start's check, tried again through an outage).
 */
export function slackLogger(log: Logger, { quiet = false }: { quiet?: boolean } = {}): SlackLogger {
  const line = (parts: unknown[]): string => parts.map((part) => (typeof part === 'string' ? part : String(part))).join(' ');
  return {
    debug: () => undefined,
    info: (...parts: unknown[]) => log.debug(line(parts)),
    warn: (...parts: unknown[]) => (quiet ? log.debug(line(parts)) : log.warn(line(parts))),
    error: (...parts: unknown[]) => (quiet ? log.debug(line(parts)) : log.error(line(parts))),
    setLevel: () => undefined,
    // Not DEBUG: the Socket Mode client builds its ack log lines (with payloads) only at that level.
    getLevel: () => LogLevel.INFO,
    setName: () => undefined,
  };
}
