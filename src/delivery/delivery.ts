import { errorMessage } from '../errors.js';
import { formatTarget, parseTarget } from '../lib/target.js';
import type { Logger } from '../log.js';
import type { CallOrigin } from '../tools/types.js';
import { renderOutside } from './outside.js';
import type { Delivered, Delivery, DeliveryContext, Reply } from './types.js';

/** The running chat channels, as delivery needs them (channels/hub.ts). */
export interface Outbox {
  /** Resolves true once `channel` is running, or false when `waitMs` passes first (at once for 0). */
  ready(channel: string, waitMs: number): Promise<boolean>;
  /** Throws when the channel is not running or the platform refuses. */
  deliver(target: string, reply: Reply): Promise<void>;
}

/** Channels that are a person's terminal, not a chat a result can be sent to later. */
const UNDELIVERABLE = new Set(['cli', 'scheduler']);

/**
 * The one path from anything that speaks later (a job's or skill's result, a reminder) to a chat. A channel still
 * starting gets up to `waitMs(channel)` before delivery counts as failed (the daemon gives it time; a one-shot command,
 * where no channel will come, does not). Text made from outside content says so and carries no live link the person
 * did not write (outside.ts). A result that cannot be delivered is logged with its text and reported to the caller
 * for its run log.
 */
export function createDelivery(deps: { outbox: Outbox; defaultChat: () => string | undefined; log: Logger; waitMs: (channel: string) => number }): Delivery {
  const { outbox, log } = deps;
  const chatOf = (origin: CallOrigin): string | undefined => (UNDELIVERABLE.has(origin.channel) ? undefined : formatTarget(origin));
  const render = (text: string, context: DeliveryContext): string => (context.outside && context.outside.length > 0 ? renderOutside(text, context.outside, context.personText) : text);
  return {
    chatOf,
    render,
    targetFor(origin: CallOrigin | undefined, explicit?: string) {
      if (explicit !== undefined) return explicit;
      return (origin && chatOf(origin)) ?? deps.defaultChat();
    },
    async deliver(target: string | undefined, reply: Reply, context: DeliveryContext): Promise<Delivered> {
      const about = { [context.kind === 'skill' ? 'skill' : 'jobId']: context.id };
      const text = render(reply.text, context);
      if (target === undefined) {
        log.warn({ ...about, result: text.slice(0, 2000) }, `${context.kind} result not delivered: it has no chat and scheduler.default_chat is not set`);
        return { error: 'not delivered: no chat (set scheduler.default_chat)' };
      }
      try {
        const { channel } = parseTarget(target);
        if (!(await outbox.ready(channel, deps.waitMs(channel)))) throw new Error(`channel ${channel} is not running`);
        await outbox.deliver(target, { ...reply, text });
        return { deliveredTo: target };
      } catch (error) {
        log.warn({ err: error, ...about, target, result: text.slice(0, 2000) }, `${context.kind} result could not be delivered`);
        return { error: `not delivered to ${target}: ${errorMessage(error)}` };
      }
    },
  };
}
