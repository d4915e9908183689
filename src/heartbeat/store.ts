import { createHash } from 'node:crypto';
import type { Database } from '../db/database.js';

/** How long a reported item's hash is kept: an unread mail older than this could be reported again. */
const KEEP_MS = 60 * 86_400_000;

/** One local day's heartbeat spending. */
export interface DaySpend {
  tokens: number;
  calls: number;
}

/**
 * The heartbeat's state in SQLite (`heartbeat_seen`, `heartbeat_state`): which items were reported (hashed, so no
 * subject or address is kept), why it is paused or stopped, and each day's tokens. A restart reads it back.
 * Contract: throws only when the database does.
 */
export class HeartbeatStore {
  constructor(private readonly db: Database) {}

  /** The items not reported before, in their order. */
  unseen<T extends { key: string }>(probe: string, items: readonly T[]): T[] {
    const has = this.db.prepare('SELECT 1 FROM heartbeat_seen WHERE probe = ? AND hash = ?');
    return items.filter((item) => has.get(probe, hashOf(item.key)) === undefined);
  }

  /** Marks items reported (after the beat that showed them ended), and forgets old ones. */
  markSeen(items: ReadonlyArray<{ probe: string; key: string }>, now: number): void {
    const insert = this.db.prepare('INSERT OR IGNORE INTO heartbeat_seen (probe, hash, seen_at) VALUES (?, ?, ?)');
    this.db.transaction(() => {
      for (const item of items) insert.run(item.probe, hashOf(item.key), now);
      this.db.prepare('DELETE FROM heartbeat_seen WHERE seen_at < ?').run(now - KEEP_MS);
    })();
  }

  get(key: string): string | undefined {
    const row = this.db.prepare('SELECT value FROM heartbeat_state WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }

  set(key: string, value: string | undefined): void {
    if (value === undefined) this.db.prepare('DELETE FROM heartbeat_state WHERE key = ?').run(key);
    else this.db.prepare('INSERT INTO heartbeat_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  getNumber(key: string): number | undefined {
    const value = this.get(key);
    return value === undefined || !Number.isFinite(Number(value)) ? undefined : Number(value);
  }

  spent(day: string): DaySpend {
    const value = this.get(`day:${day}`);
    if (value === undefined) return { tokens: 0, calls: 0 };
    const parsed = JSON.parse(value) as Partial<DaySpend>;
    return { tokens: parsed.tokens ?? 0, calls: parsed.calls ?? 0 };
  }

  addSpend(day: string, tokens: number, calls: number): DaySpend {
    const before = this.spent(day);
    const after = { tokens: before.tokens + tokens, calls: before.calls + calls };
    this.set(`day:${day}`, JSON.stringify(after));
    return after;
  }
}

function hashOf(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 32);
}
