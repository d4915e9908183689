import { AppError } from '../errors.js';
import { parseTarget, type DeliveryTarget } from '../lib/target.js';
import type { ChannelAdapter, OutboundReply } from './types.js';

/**
 * The running channels, by name. Jobs and skills deliver through it without knowing the platforms.
 * Contract: `deliver` throws AppError CHANNEL_UNAVAILABLE when the channel is not running.
 */
export class ChannelHub {
  private readonly adapters = new Map<string, ChannelAdapter>();

  register(adapter: ChannelAdapter): void {
    this.adapters.set(adapter.name, adapter);
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

  async deliver(target: string | DeliveryTarget, reply: OutboundReply): Promise<void> {
    const { channel, chatId } = parseTarget(target);
    const adapter = this.adapters.get(channel);
    if (!adapter) throw new AppError('CHANNEL_UNAVAILABLE', `channel ${channel} is not running; cannot deliver to ${channel}:${chatId}`);
    await adapter.send(chatId, reply);
  }
}
