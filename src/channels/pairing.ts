import { randomInt } from 'node:crypto';
import type { Database } from '../db/database.js';
import { AppError } from '../errors.js';
import { cleanName } from './display-name.js';

/** No 0/O, 1/I/L: a code is read off a phone and typed into a terminal. */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const PAIRING_CODE_LENGTH = 8;
export const PAIRING_TTL_MS = 3600 * 1000;
/** Codes waiting for the owner on one channel: beyond this strangers get nothing (the owner's list stays readable). */
export const MAX_PENDING_PER_CHANNEL = 10;
/** Codes one person can be given in a day: after that, their messages get nothing until the day has passed. */
export const MAX_CODES_PER_PERSON_PER_DAY = 3;
/** Wrong invite codes one person may send in a day before their messages are no longer checked for one. */
export const MAX_INVITE_ATTEMPTS_PER_DAY = 5;
export const INVITE_TTL_MS = 24 * 3600 * 1000;
const DAY_MS = 24 * 3600 * 1000;

/** `/start CODE` (what a Telegram deep link `t.me/<bot>?start=CODE` sends) or the code alone. */
const INVITE_MESSAGE = new RegExp(`^\\s*(?:/start(?:@\\S+)?\\s+)?([${ALPHABET}]{${PAIRING_CODE_LENGTH}})\\s*$`, 'i');

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

export interface PairingInvite {
  code: string;
  channel: string;
  createdAt: number;
  expiresAt: number;
}

/** Outcome of an unknown user's message in a direct chat. */
export type PairingOutcome =
  | { kind: 'issued'; code: string }
  /** A code is already pending for this user, or they were denied: stay silent. */
  | { kind: 'silent' }
  /** This person had their day's codes already: stay silent. */
  | { kind: 'person_limit' }
  /** Too many codes pending on this channel: stay silent (and tell the operator). */
  | { kind: 'full' };

/** Outcome of a message that looks like an invite code. */
export type InviteOutcome = { kind: 'paired' } | { kind: 'wrong'; attemptsLeft: number } | { kind: 'limited' } | { kind: 'not_a_code' };

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
 * (another process) approves or denies them. Strangers are limited per person (one pending code, three a day,
 * none after a denial) and per channel (ten pending); the owner is never locked out: allowlisted and paired ids
 * never need a code, and an invite made with `familiar pairing invite` lets a newcomer in whatever strangers did.
 * Contract: operator mistakes (unknown or expired code) throw AppError with a code; nothing else throws.
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
      const today = this.db
        .prepare('SELECT COUNT(*) AS n FROM pairing_codes WHERE channel = ? AND user_id = ? AND created_at > ?')
        .get(input.channel, input.userId, now - DAY_MS) as { n: number };
      if (today.n >= MAX_CODES_PER_PERSON_PER_DAY) return { kind: 'person_limit' };
      const pending = this.db.prepare("SELECT COUNT(*) AS n FROM pairing_codes WHERE channel = ? AND status = 'pending'").get(input.channel) as { n: number };
      if (pending.n >= MAX_PENDING_PER_CHANNEL) return { kind: 'full' };
      const code = newCode();
      this.db
        .prepare('INSERT INTO pairing_codes (code, channel, user_id, user_name, chat_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(code, input.channel, input.userId, cleanName(input.userName), input.chatId, now, now + PAIRING_TTL_MS);
      return { kind: 'issued', code };
    })();
  }

  /** An invite code for `channel`, valid `ttlMs`, used once: `familiar pairing invite`. */
  invite(channel: string, now = Date.now(), ttlMs = INVITE_TTL_MS): PairingInvite {
    const code = newCode();
    this.db.prepare('INSERT INTO pairing_invites (code, channel, created_at, expires_at) VALUES (?, ?, ?, ?)').run(code, channel, now, now + ttlMs);
    return { code, channel, createdAt: now, expiresAt: now + ttlMs };
  }

  invites(now = Date.now()): PairingInvite[] {
    const rows = this.db
      .prepare('SELECT code, channel, created_at, expires_at FROM pairing_invites WHERE used_by IS NULL AND expires_at > ? ORDER BY created_at')
      .all(now) as Array<{ code: string; channel: string; created_at: number; expires_at: number }>;
    return rows.map((row) => ({ code: row.code, channel: row.channel, createdAt: row.created_at, expiresAt: row.expires_at }));
  }

  /**
   * An unknown user's message in a direct chat that may be an invite code. A right code pairs them at once; a
   * wrong one counts against their day's attempts, after which nothing they send is checked.
   */
  redeem(input: { channel: string; userId: string; userName: string; text: string }, now = Date.now()): InviteOutcome {
    const match = INVITE_MESSAGE.exec(input.text);
    if (!match?.[1]) return { kind: 'not_a_code' };
    const code = match[1].toUpperCase();
    return this.db.transaction((): InviteOutcome => {
      this.db.prepare('DELETE FROM pairing_attempts WHERE at <= ?').run(now - DAY_MS);
      const attempts = this.db
        .prepare('SELECT COUNT(*) AS n FROM pairing_attempts WHERE channel = ? AND user_id = ? AND at > ?')
        .get(input.channel, input.userId, now - DAY_MS) as { n: number };
      if (attempts.n >= MAX_INVITE_ATTEMPTS_PER_DAY) return { kind: 'limited' };
      const used = this.db
        .prepare('UPDATE pairing_invites SET used_by = ?, used_at = ? WHERE code = ? AND channel = ? AND used_by IS NULL AND expires_at > ?')
        .run(input.userId, now, code, input.channel, now);
      if (used.changes === 0) {
        this.db.prepare('INSERT INTO pairing_attempts (channel, user_id, at) VALUES (?, ?, ?)').run(input.channel, input.userId, now);
        return { kind: 'wrong', attemptsLeft: MAX_INVITE_ATTEMPTS_PER_DAY - attempts.n - 1 };
      }
      this.db
        .prepare('INSERT OR REPLACE INTO channel_users (channel, user_id, user_name, added_at) VALUES (?, ?, ?, ?)')
        .run(input.channel, input.userId, cleanName(input.userName), now);
      // Their own pending code, if any, is spent: the list shows only people still waiting.
      this.db.prepare("UPDATE pairing_codes SET status = 'approved' WHERE channel = ? AND user_id = ? AND status = 'pending'").run(input.channel, input.userId);
      return { kind: 'paired' };
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
    return rows.map((row) => ({ channel: row.channel, userId: row.user_id, userName: cleanName(row.user_name), addedAt: row.added_at }));
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
      throw new AppError('PAIRING_UNKNOWN', `no pending pairing code "${cleanName(normalized, 16)}"; run "familiar pairing list" to see the pending codes`);
    }
    if (row.status === 'expired' || row.expires_at <= now) {
      throw new AppError('PAIRING_EXPIRED', `pairing code ${normalized} has expired (codes last 1 hour); ask the person to write to the bot again for a new one`);
    }
    return toRequest(row);
  }

  private expire(now: number): void {
    this.db.prepare("UPDATE pairing_codes SET status = 'expired' WHERE status = 'pending' AND expires_at <= ?").run(now);
    // Expired codes matter only for the per-person daily count; denials are kept (no further codes).
    this.db.prepare("DELETE FROM pairing_codes WHERE status = 'expired' AND created_at <= ?").run(now - DAY_MS);
  }
}

function newCode(): string {
  let code = '';
  for (let index = 0; index < PAIRING_CODE_LENGTH; index += 1) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

function toRequest(row: CodeRow): PairingRequest {
  return {
    code: row.code, channel: row.channel, userId: row.user_id, userName: cleanName(row.user_name), chatId: row.chat_id,
    createdAt: row.created_at, expiresAt: row.expires_at,
  };
}
