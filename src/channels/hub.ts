import { AppError } from '../errors.js';
import { parseTarget, type DeliveryTarget } from '../lib/target.js';
import type { ChannelAdapter, OutboundReply } from './types.js';

/**
 * The running channels, by name. Jobs and skills deliver through it without knowing the platforms.
 * Contract: `deliver` throws AppError CHANNEL_UNAVAILABLE when the channel is not running.
 */
export class ChannelHub {
  private readonly adapters = new Map<string, ChannelAdapter>();
  /** Who waits for a channel to come up (`ready`), by name. */
  private readonly waiting = new Map<string, Set<() => void>>();

  register(adapter: ChannelAdapter): void {
    this.adapters.set(adapter.name, adapter);
    const waiters = this.waiting.get(adapter.name);
    this.waiting.delete(adapter.name);
    for (const wake of waiters ?? []) wake();
  }

  /** True once `name` is running; false when `waitMs` passes first. Nothing polls: `register` wakes the waiters. */
  ready(name: string, waitMs: number): Promise<boolean> {
    if (this.adapters.has(name)) return Promise.resolve(true);
    if (waitMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiters = this.waiting.get(name) ?? new Set<() => void>();
      this.waiting.set(name, waiters);
      const timer = setTimeout(() => {
        waiters.delete(wake);
        resolve(false);
      }, waitMs);
      timer.unref?.();
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      waiters.add(wake);
    });
  }

  unregister(name: string): void {
    this.adapters.delete(name);
  }

  get(name: string): ChannelAdapter | undefined {
    return this.adapters.get(name);
  }

  names(): string[] {
    return [...this.adapters.keys()];
  }

  /** A direct chat with `userId` on `channel` (see ChannelAdapter.directChat); undefined when it is not running or has none. */
  async directChat(channel: string, userId: string): Promise<string | undefined> {
    return this.adapters.get(channel)?.directChat?.(userId);
  }

  async deliver(target: string | DeliveryTarget, reply: OutboundReply): Promise<void> {
    const { channel, chatId } = parseTarget(target);
    const adapter = this.adapters.get(channel);
    if (!adapter) throw new AppError('CHANNEL_UNAVAILABLE', `channel ${channel} is not running; cannot deliver to ${channel}:${chatId}`);
    await adapter.send(chatId, reply);
  }
}
