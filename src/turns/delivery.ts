import { errorMessage } from '../errors.js';
import { formatTarget, parseTarget } from '../lib/target.js';
import type { Logger } from '../log.js';
import type { CallOrigin } from '../tools/types.js';
import type { Delivered, Delivery, Reply } from './types.js';

/** The running chat channels, as delivery needs them (channels/hub.ts). */
export interface Outbox {
  get(channel: string): unknown;
  deliver(target: string, reply: Reply): Promise<void>;
}

/** Channels that are a person's terminal, not a chat a result can be sent to later. */
const UNDELIVERABLE = new Set(['cli', 'scheduler']);
const POLL_MS = 250;

/**
 * The one path from a finished run (job, skill) to a chat. A channel still starting gets up to `waitMs()` before
 * delivery counts as failed (the daemon gives it time; a one-shot command, where no channel will come, does not).
 * A result that cannot be delivered is logged with its text and reported to the caller for its run log.
 */
export function createDelivery(deps: { outbox: Outbox; defaultChat: string | undefined; log: Logger; waitMs: () => number }): Delivery {
  const { outbox, log } = deps;
  const chatOf = (origin: CallOrigin): string | undefined => (UNDELIVERABLE.has(origin.channel) ? undefined : formatTarget(origin));
  return {
    chatOf,
    targetFor(origin: CallOrigin | undefined, explicit?: string) {
      if (explicit !== undefined) return explicit;
      return (origin && chatOf(origin)) ?? deps.defaultChat;
    },
    async deliver(target: string | undefined, reply: Reply, context: { kind: 'job' | 'skill'; id: string }): Promise<Delivered> {
      const about = { [context.kind === 'job' ? 'jobId' : 'skill']: context.id };
      if (target === undefined) {
        log.warn({ ...about, result: reply.text.slice(0, 2000) }, `${context.kind} result not delivered: it has no chat and scheduler.default_chat is not set`);
        return { error: 'not delivered: no chat (set scheduler.default_chat)' };
      }
      try {
        await waitForChannel(outbox, parseTarget(target).channel, deps.waitMs());
        await outbox.deliver(target, reply);
        return { deliveredTo: target };
      } catch (error) {
        log.warn({ err: error, ...about, target, result: reply.text.slice(0, 2000) }, `${context.kind} result could not be delivered`);
        return { error: `not delivered to ${target}: ${errorMessage(error)}` };
      }
    },
  };
}

async function waitForChannel(outbox: Outbox, channel: string, waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  while (outbox.get(channel) === undefined && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
