import { AppError } from '../errors.js';
import type { ChannelAdapter, DeliveryTarget, OutboundReply } from './types.js';

/** Parses `telegram:123` (the form used in config, e.g. scheduler.default_chat). */
export function parseTarget(target: string | DeliveryTarget): DeliveryTarget {
  if (typeof target !== 'string') return target;
  const index = target.indexOf(':');
  if (index <= 0 || index === target.length - 1) throw new AppError('BAD_TARGET', `"${target}" is not a chat; write it as channel:chat_id, e.g. telegram:123456789`);
  return { channel: target.slice(0, index), chatId: target.slice(index + 1) };
}

export function formatTarget(target: DeliveryTarget): string {
  return `${target.channel}:${target.chatId}`;
}

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
