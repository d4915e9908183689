import { randomBytes } from 'node:crypto';
import type { Database } from '../db/database.js';

/** A standing intent: "when `match` comes up, remind me of `remind`", made by the person in a chat. */
export interface Intent {
  id: string;
  /** The words and phrases watched for (src/lib/phrases.ts). */
  match: string;
  /** What the person is reminded of: their own words. */
  remind: string;
  /** Where the reminder goes (`telegram:123`), undefined: `scheduler.default_chat`. */
  target: string | undefined;
  origin: { channel: string; chatId: string } | undefined;
  cooldownS: number;
  firesLeft: number;
  expiresAt: number;
  lastFiredAt: number | undefined;
  fired: number;
  createdAt: number;
  cancelledAt: number | undefined;
}

interface Row {
  id: string;
  match: string;
  remind: string;
  target: string | null;
  origin_channel: string | null;
  origin_chat: string | null;
  cooldown_s: number;
  fires_left: number;
  expires_at: number;
  last_fired_at: number | null;
  fired: number;
  created_at: number;
  cancelled_at: number | null;
}

/**
 * The `intents` table. Contract: throws only when the database does.
 * Every message of the person is matched against the active intents, so they are kept in memory between changes
 * made here (a turn costs no query). Another process can only cancel one (`familiar intents cancel`); the stale copy
 * is harmless, because `fire` is a compare-and-set that checks the row itself.
 */
export class IntentStore {
  private cached: Intent[] | undefined;

  constructor(private readonly db: Database) {}

  insert(intent: Omit<Intent, 'id' | 'lastFiredAt' | 'fired' | 'cancelledAt'>): Intent {
    const id = `i-${randomBytes(3).toString('hex')}`;
    this.db.prepare(`INSERT INTO intents (id, match, remind, target, origin_channel, origin_chat, cooldown_s, fires_left, expires_at, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(id, intent.match, intent.remind, intent.target ?? null, intent.origin?.channel ?? null, intent.origin?.chatId ?? null,
      intent.cooldownS, intent.firesLeft, intent.expiresAt, intent.createdAt);
    this.cached = undefined;
    return { ...intent, id, lastFiredAt: undefined, fired: 0, cancelledAt: undefined };
  }

  get(id: string): Intent | undefined {
    const row = this.db.prepare('SELECT * FROM intents WHERE id = ?').get(id) as Row | undefined;
    return row ? toIntent(row) : undefined;
  }

  /** Intents that may still fire: not cancelled, fires left, not expired (newest first). */
  active(now: number): Intent[] {
    this.cached ??= (this.db.prepare('SELECT * FROM intents WHERE cancelled_at IS NULL AND fires_left > 0 ORDER BY created_at DESC, id').all() as Row[]).map(toIntent);
    return this.cached.filter((intent) => intent.expiresAt > now);
  }

  cancel(id: string, now: number): boolean {
    this.cached = undefined;
    return this.db.prepare('UPDATE intents SET cancelled_at = ? WHERE id = ? AND cancelled_at IS NULL').run(now, id).changes > 0;
  }

  /**
   * Spends one fire, only if the intent may fire now (active, out of its cooldown): a compare-and-set, so two
   * matches at once fire it once. Returns whether it fired.
   */
  fire(id: string, now: number): boolean {
    this.cached = undefined;
    return this.db.prepare(`UPDATE intents SET fires_left = fires_left - 1, fired = fired + 1, last_fired_at = ?
      WHERE id = ? AND cancelled_at IS NULL AND fires_left > 0 AND expires_at > ? AND (last_fired_at IS NULL OR last_fired_at + cooldown_s * 1000 <= ?)`)
      .run(now, id, now, now).changes > 0;
  }
}

function toIntent(row: Row): Intent {
  return {
    id: row.id, match: row.match, remind: row.remind, target: row.target ?? undefined,
    origin: row.origin_channel !== null && row.origin_chat !== null ? { channel: row.origin_channel, chatId: row.origin_chat } : undefined,
    cooldownS: row.cooldown_s, firesLeft: row.fires_left, expiresAt: row.expires_at, lastFiredAt: row.last_fired_at ?? undefined,
    fired: row.fired, createdAt: row.created_at, cancelledAt: row.cancelled_at ?? undefined,
  };
}
