import webpush from 'web-push';
import type { Database } from '../../db/database.js';

/** A device's subscription as the browser's PushManager gives it (`PushSubscription.toJSON()`). */
export interface DeviceSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface StoredSubscription extends DeviceSubscription {
  person: string;
  createdAt: number;
  lastSuccessAt: number | undefined;
}

interface Row {
  endpoint: string;
  p256dh: string;
  auth: string;
  person: string;
  created_at: number;
  last_success_at: number | null;
}

/**
 * The console's Web Push state in SQLite: the VAPID key pair (made on first use, kept in the database with the rest
 * of the daemon's secrets' neighbours, never shown) and one subscription per device. Contract: never throws for
 * bad input; `parse` says what is wrong with a subscription a page sent.
 */
export class PushStore {
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  /** The VAPID key pair, made now if there is none. */
  keys(now = Date.now()): { publicKey: string; privateKey: string } {
    const row = this.db.prepare('SELECT public_key, private_key FROM push_keys WHERE id = 1').get() as { public_key: string; private_key: string } | undefined;
    if (row) return { publicKey: row.public_key, privateKey: row.private_key };
    const made = webpush.generateVAPIDKeys();
    // Two requests racing on first use: the first insert wins and both read it back.
    this.db.prepare('INSERT OR IGNORE INTO push_keys (id, public_key, private_key, created_at) VALUES (1, ?, ?, ?)').run(made.publicKey, made.privateKey, now);
    return this.keys(now);
  }

  hasKeys(): boolean {
    return this.db.prepare('SELECT 1 FROM push_keys WHERE id = 1').get() !== undefined;
  }

  add(subscription: DeviceSubscription, from: { person: string; sessionHash: string | undefined; userAgent: string | undefined }, now = Date.now()): void {
    this.db
      .prepare(`INSERT INTO push_subscriptions (endpoint, p256dh, auth, person, session_hash, user_agent, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (endpoint) DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth, person = excluded.person, session_hash = excluded.session_hash, user_agent = excluded.user_agent`)
      .run(subscription.endpoint, subscription.keys.p256dh, subscription.keys.auth, from.person, from.sessionHash ?? null, from.userAgent?.slice(0, 200) ?? null, now);
  }

  remove(endpoint: string): boolean {
    return this.db.prepare('DELETE FROM push_subscriptions WHERE endpoint = ?').run(endpoint).changes > 0;
  }

  /** A login that ends (log out) takes the notifications of the device it was on with it. */
  removeSession(sessionHash: string): number {
    return this.db.prepare('DELETE FROM push_subscriptions WHERE session_hash = ?').run(sessionHash).changes;
  }

  list(person: string): StoredSubscription[] {
    const rows = this.db.prepare('SELECT endpoint, p256dh, auth, person, created_at, last_success_at FROM push_subscriptions WHERE person = ? ORDER BY created_at').all(person) as Row[];
    return rows.map((row) => ({
      endpoint: row.endpoint, keys: { p256dh: row.p256dh, auth: row.auth }, person: row.person, createdAt: row.created_at,
      lastSuccessAt: row.last_success_at ?? undefined,
    }));
  }

  has(endpoint: string): boolean {
    return this.db.prepare('SELECT 1 FROM push_subscriptions WHERE endpoint = ?').get(endpoint) !== undefined;
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM push_subscriptions').get() as { n: number }).n;
  }

  succeeded(endpoint: string, now = Date.now()): void {
    this.db.prepare('UPDATE push_subscriptions SET last_success_at = ? WHERE endpoint = ?').run(now, endpoint);
  }
}

/**
 * A subscription from a page, checked: an https endpoint (every push service is; a page cannot make the daemon post
 * to a plain-http or internal address by sending one), a P-256 public key and a 16-byte auth secret.
 */
export function parseSubscription(text: string): { success: true; value: DeviceSubscription } | { success: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { success: false, error: 'The subscription is not JSON.' };
  }
  const candidate = value as { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } } | null;
  const endpoint = typeof candidate?.endpoint === 'string' ? candidate.endpoint : '';
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return { success: false, error: 'The subscription has no endpoint URL.' };
  }
  if (url.protocol !== 'https:' || endpoint.length > 2000) return { success: false, error: 'The subscription\'s endpoint must be an https URL.' };
  const p256dh = candidate?.keys?.p256dh;
  const auth = candidate?.keys?.auth;
  if (typeof p256dh !== 'string' || Buffer.from(p256dh, 'base64url').length !== 65) return { success: false, error: 'The subscription\'s p256dh key is not a P-256 public key.' };
  if (typeof auth !== 'string' || Buffer.from(auth, 'base64url').length !== 16) return { success: false, error: 'The subscription\'s auth secret is not 16 bytes.' };
  return { success: true, value: { endpoint, keys: { p256dh, auth } } };
}
