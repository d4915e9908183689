import { AppError } from '../errors.js';

/** Where a result goes: `{channel, chatId}`, written `telegram:123456789` in config and on the command line. */
export interface DeliveryTarget {
  channel: string;
  chatId: string;
}

/** Parses `telegram:123` (the form used in config, e.g. scheduler.default_chat). Throws AppError BAD_TARGET. */
export function parseTarget(target: string | DeliveryTarget): DeliveryTarget {
  if (typeof target !== 'string') return target;
  const index = target.indexOf(':');
  if (index <= 0 || index === target.length - 1) throw new AppError('BAD_TARGET', `"${target}" is not a chat; write it as channel:chat_id, e.g. telegram:123456789`);
  return { channel: target.slice(0, index), chatId: target.slice(index + 1) };
}

export function formatTarget(target: DeliveryTarget): string {
  return `${target.channel}:${target.chatId}`;
}
