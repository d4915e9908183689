import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../db/database.js';
import type { Result } from '../lib/result.js';

/** How long a printed login link works (once). */
export const LOGIN_TTL_MS = 10 * 60_000;
/** How long a browser stays logged in. */
export const SESSION_TTL_MS = 7 * 24 * 3600_000;
/** `seen_at` is written at most this often (every page view would otherwise be a write). */
const SEEN_EVERY_MS = 60_000;

export const SESSION_COOKIE = 'familiar_console';

/**
 * A one-time login token for the console, as `familiar console` makes it in its own process: random, stored only
 * as a hash in the database the daemon reads, valid once within `LOGIN_TTL_MS`.
 */
export function createLoginToken(db: Database, now = Date.now()): { token: string; expiresAt: number } {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = now + LOGIN_TTL_MS;
  db.prepare('INSERT INTO console_logins (token_hash, created_at, expires_at) VALUES (?, ?, ?)').run(digest(token), now, expiresAt);
  return { token, expiresAt };
}

export interface Session {
  /** The cookie's value (never stored). */
  id: string;
  /** Sent with every state-changing request; derived from the session, so it is never stored either. */
  csrf: string;
  expiresAt: number;
}

export type Exchanged = Result<Session>;

/**
 * Login tokens and browser sessions. A token is exchanged once for a session; the session lives in an HttpOnly,
 * SameSite=Strict cookie whose value is stored only as a hash. Contract: never throws for bad input.
 */
export class ConsoleAuth {
  private readonly db: Database;
  private readonly now: () => number;
  private readonly onLogout: ((sessionHash: string) => void) | undefined;

  /** `onLogout` hears the hash of a session that ends by logging out (the device's push subscriptions go with it). */
  constructor(db: Database, options: { now?: () => number; onLogout?: (sessionHash: string) => void } = {}) {
    this.db = db;
    this.now = options.now ?? Date.now;
    this.onLogout = options.onLogout;
  }

  /** Spends a login token (at most once, before it expires) and opens a session. */
  exchange(token: string, userAgent: string | undefined): Exchanged {
    const now = this.now();
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return { success: false, error: REFUSED };
    // One statement decides: two tabs racing with the same link cannot both win.
    const spent = this.db.prepare('UPDATE console_logins SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?').run(now, digest(token), now);
    if (spent.changes !== 1) return { success: false, error: REFUSED };
    const id = randomBytes(32).toString('base64url');
    const expiresAt = now + SESSION_TTL_MS;
    this.db
      .prepare('INSERT INTO console_sessions (id_hash, created_at, seen_at, expires_at, user_agent) VALUES (?, ?, ?, ?, ?)')
      .run(digest(id), now, now, expiresAt, userAgent?.slice(0, 200) ?? null);
    return { success: true, value: { id, csrf: csrfOf(id), expiresAt } };
  }

  /** The session a cookie value names, if it is open. */
  session(id: string | undefined): Session | undefined {
    if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
    const now = this.now();
    const row = this.db.prepare('SELECT seen_at, expires_at FROM console_sessions WHERE id_hash = ?').get(digest(id)) as { seen_at: number; expires_at: number } | undefined;
    if (!row || row.expires_at <= now) return undefined;
    if (now - row.seen_at > SEEN_EVERY_MS) this.db.prepare('UPDATE console_sessions SET seen_at = ? WHERE id_hash = ?').run(now, digest(id));
    return { id, csrf: csrfOf(id), expiresAt: row.expires_at };
  }

  logout(id: string): void {
    this.db.prepare('DELETE FROM console_sessions WHERE id_hash = ?').run(digest(id));
    this.onLogout?.(digest(id));
  }

  /** Forgets expired sessions and spent or expired login tokens. */
  sweep(): void {
    const now = this.now();
    this.db.prepare('DELETE FROM console_sessions WHERE expires_at <= ?').run(now);
    this.db.prepare('DELETE FROM console_logins WHERE expires_at <= ? OR used_at IS NOT NULL').run(now - LOGIN_TTL_MS);
  }
}

const REFUSED = 'This login link is not valid: it was already used, it expired (links last 10 minutes), or it was mistyped. Run `familiar console` for a new one.';

export function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** The CSRF token of a session: a one-way function of the cookie, so the page's copy reveals nothing of it. */
function csrfOf(sessionId: string): string {
  return createHash('sha256').update(`familiar console csrf\u0000${sessionId}`).digest('base64url');
}
