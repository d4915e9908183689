import { randomInt } from 'node:crypto';
import type { Database } from '../db/database.js';
import { AppError } from '../errors.js';

/** No 0/O, 1/I/L: a code is read off a phone and typed into a terminal. */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const PAIRING_CODE_LENGTH = 8;
export const PAIRING_TTL_MS = 3600 * 1000;
export const MAX_PENDING_PER_CHANNEL = 3;

export interface PairingRequest {
  code: string;
  channel: string;
  userId: string;
  userName: string;
  chatId: string;
  createdAt: number;
  expiresAt: number;
}

export interface PairedUser {
  channel: string;
  userId: string;
  userName: string;
  addedAt: number;
}

/** Outcome of an unknown user's message in a direct chat. */
export type PairingOutcome =
  | { kind: 'issued'; code: string }
  /** A code is already pending for this user, or they were denied: stay silent. */
  | { kind: 'silent' }
  /** Too many codes pending on this channel: stay silent (and tell the operator). */
  | { kind: 'full' };

interface CodeRow {
  code: string;
  channel: string;
  user_id: string;
  user_name: string;
  chat_id: string;
  created_at: number;
  expires_at: number;
  status: string;
}

/**
 * Pairing codes and the allowlist they feed, in SQLite: the daemon issues codes, and `familiar pairing`
 * (another process) approves or denies them. Contract: operator mistakes (unknown or expired code) throw
 * AppError with a code; nothing else throws.
 */
export class PairingStore {
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  isPaired(channel: string, userId: string): boolean {
    return this.db.prepare('SELECT 1 FROM channel_users WHERE channel = ? AND user_id = ?').get(channel, userId) !== undefined;
  }

  /** Issues a code to an unknown user, once: later messages while it is pending get nothing. */
  request(input: { channel: string; userId: string; userName: string; chatId: string }, now = Date.now()): PairingOutcome {
    return this.db.transaction((): PairingOutcome => {
      this.expire(now);
      const existing = this.db
        .prepare("SELECT status FROM pairing_codes WHERE channel = ? AND user_id = ? AND status IN ('pending', 'denied') LIMIT 1")
        .get(input.channel, input.userId);
      if (existing) return { kind: 'silent' };
      const pending = this.db.prepare("SELECT COUNT(*) AS n FROM pairing_codes WHERE channel = ? AND status = 'pending'").get(input.channel) as { n: number };
      if (pending.n >= MAX_PENDING_PER_CHANNEL) return { kind: 'full' };
      const code = newCode();
      this.db
        .prepare('INSERT INTO pairing_codes (code, channel, user_id, user_name, chat_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(code, input.channel, input.userId, input.userName, input.chatId, now, now + PAIRING_TTL_MS);
      return { kind: 'issued', code };
    })();
  }

  pending(now = Date.now()): PairingRequest[] {
    this.expire(now);
    const rows = this.db.prepare("SELECT * FROM pairing_codes WHERE status = 'pending' ORDER BY created_at").all() as CodeRow[];
    return rows.map(toRequest);
  }

  paired(): PairedUser[] {
    const rows = this.db.prepare('SELECT channel, user_id, user_name, added_at FROM channel_users ORDER BY channel, added_at').all() as Array<{
      channel: string; user_id: string; user_name: string; added_at: number;
    }>;
    return rows.map((row) => ({ channel: row.channel, userId: row.user_id, userName: row.user_name, addedAt: row.added_at }));
  }

  /** Adds the code's user to the persisted allowlist. */
  approve(code: string, now = Date.now()): PairingRequest {
    return this.db.transaction(() => {
      const request = this.take(code, now);
      this.db.prepare("UPDATE pairing_codes SET status = 'approved' WHERE code = ?").run(request.code);
      this.db
        .prepare('INSERT OR REPLACE INTO channel_users (channel, user_id, user_name, added_at) VALUES (?, ?, ?, ?)')
        .run(request.channel, request.userId, request.userName, now);
      return request;
    })();
  }

  /** Refuses the code; that user gets no further codes (add them to allowed_users to let them in later). */
  deny(code: string, now = Date.now()): PairingRequest {
    return this.db.transaction(() => {
      const request = this.take(code, now);
      this.db.prepare("UPDATE pairing_codes SET status = 'denied' WHERE code = ?").run(request.code);
      return request;
    })();
  }

  /** Removes a paired user (config `allowed_users` are not touched). Returns false when there was none. */
  revoke(channel: string, userId: string): boolean {
    return this.db.prepare('DELETE FROM channel_users WHERE channel = ? AND user_id = ?').run(channel, userId).changes > 0;
  }

  private take(code: string, now: number): PairingRequest {
    const normalized = code.trim().toUpperCase();
    const row = this.db.prepare('SELECT * FROM pairing_codes WHERE code = ?').get(normalized) as CodeRow | undefined;
    if (!row || row.status === 'approved' || row.status === 'denied') {
      throw new AppError('PAIRING_UNKNOWN', `no pending pairing code "${normalized}"; run "familiar pairing list" to see the pending codes`);
    }
    if (row.status === 'expired' || row.expires_at <= now) {
      throw new AppError('PAIRING_EXPIRED', `pairing code ${normalized} has expired (codes last 1 hour); ask the person to write to the bot again for a new one`);
    }
    return toRequest(row);
  }

  private expire(now: number): void {
    this.db.prepare("UPDATE pairing_codes SET status = 'expired' WHERE status = 'pending' AND expires_at <= ?").run(now);
  }
}

function newCode(): string {
  let code = '';
  for (let index = 0; index < PAIRING_CODE_LENGTH; index += 1) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

function toRequest(row: CodeRow): PairingRequest {
  return { code: row.code, channel: row.channel, userId: row.user_id, userName: row.user_name, chatId: row.chat_id, createdAt: row.created_at, expiresAt: row.expires_at };
}
