import { randomUUID } from 'node:crypto';

/**
 * A UUID (version 7 layout) that starts with the time: turns are written in id order, so the primary-key index
 * grows at its end instead of touching a random page on every insert.
 */
export function newTurnId(): string {
  const random = randomUUID(); // xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx, from a cached entropy pool
  const time = Date.now().toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15)}`;
}
