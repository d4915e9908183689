import type { Database } from '../db/database.js';

/** One inbound trigger as the inbox keeps it. */
export interface TriggerItem {
  /** Unique for good: `webhook:<route>:<delivery id>`, or `mail:<Message-ID>` (account, UIDVALIDITY and UID without one). */
  id: string;
  /** `webhook:<route>` or `mail`: what a job's `trigger.source` names. */
  source: string;
  receivedAt: number;
  /** One line: the event and its subject (a push to a repository, a mail's sender and subject). Outside words. */
  summary: string;
  /** The payload as text (a webhook's body, a mail's headers); outside content, handed to the job that runs. */
  payload: string;
  dispatchedAt: number | undefined;
  /** The jobs that claimed a run for it. */
  jobs: string[];
}

export type NewTrigger = Pick<TriggerItem, 'id' | 'source' | 'summary' | 'payload'>;

interface Row {
  id: string;
  source: string;
  received_at: number;
  summary: string;
  payload: string;
  dispatched_at: number | null;
  jobs: string;
}

/** The largest payload kept; a longer one is cut (a job reads it as outside content, never whole megabytes). */
const PAYLOAD_CHARS = 64_000;
/** Items kept this long after dispatch. */
const KEEP_MS = 30 * 86_400_000;

/**
 * The durable trigger inbox (`trigger_inbox`): a trigger is committed here before anyone acknowledges it, once per
 * id, so a redelivery (a provider's retry, a replayed request, a mail seen again after a reconnect) is a duplicate
 * and a `kill -9` after the acknowledgement loses nothing: what is not yet dispatched is dispatched at the next start.
 * Contract: throws only when the database does.
 */
export class TriggerInbox {
  private readonly listeners = new Set<(item: TriggerItem) => void>();

  constructor(private readonly db: Database, private readonly now: () => number = Date.now) {}

  /**
   * Writes the trigger (and, in the same transaction, a watcher's cursor) unless its id is already there. Returns
   * whether it was new; listeners hear of a new one after the commit.
   */
  record(trigger: NewTrigger, cursor?: { key: string; value: string }): { duplicate: boolean; item: TriggerItem } {
    const written = this.db.transaction(() => {
      if (cursor) this.setCursor(cursor.key, cursor.value);
      const existing = this.get(trigger.id);
      if (existing) return { duplicate: true, item: existing };
      // received_at is unique: a second trigger in the same millisecond takes the next one (the job ledger's key).
      const last = (this.db.prepare('SELECT MAX(received_at) AS at FROM trigger_inbox').get() as { at: number | null }).at ?? 0;
      const receivedAt = Math.max(this.now(), last + 1);
      const payload = trigger.payload.length > PAYLOAD_CHARS ? `${trigger.payload.slice(0, PAYLOAD_CHARS)}\n[cut at ${PAYLOAD_CHARS} characters]` : trigger.payload;
      this.db.prepare('INSERT INTO trigger_inbox (id, source, received_at, summary, payload) VALUES (?, ?, ?, ?, ?)')
        .run(trigger.id, trigger.source, receivedAt, trigger.summary.slice(0, 500), payload);
      return { duplicate: false, item: { ...trigger, payload, receivedAt, dispatchedAt: undefined, jobs: [] } };
    }).immediate();
    if (!written.duplicate) for (const listener of this.listeners) listener(written.item);
    return written;
  }

  /** Called after each new trigger is committed; returns the way to stop listening. Listeners must not throw. */
  onArrival(listener: (item: TriggerItem) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(id: string): TriggerItem | undefined {
    const row = this.db.prepare('SELECT * FROM trigger_inbox WHERE id = ?').get(id) as Row | undefined;
    return row ? toItem(row) : undefined;
  }

  /** Triggers not yet handed to the jobs, oldest first (after a crash: those acknowledged but not dispatched). */
  pending(): TriggerItem[] {
    return (this.db.prepare('SELECT * FROM trigger_inbox WHERE dispatched_at IS NULL ORDER BY received_at').all() as Row[]).map(toItem);
  }

  /** The trigger was handed to these jobs (none: it waits for the heartbeat's inbox probe). Forgets old items. */
  markDispatched(id: string, jobs: readonly string[]): void {
    const now = this.now();
    this.db.transaction(() => {
      this.db.prepare('UPDATE trigger_inbox SET dispatched_at = ?, jobs = ? WHERE id = ?').run(now, JSON.stringify(jobs), id);
      this.db.prepare('DELETE FROM trigger_inbox WHERE dispatched_at IS NOT NULL AND dispatched_at < ?').run(now - KEEP_MS);
    })();
  }

  /** The newest items (`familiar triggers list`). */
  recent(limit = 20): TriggerItem[] {
    return (this.db.prepare('SELECT * FROM trigger_inbox ORDER BY received_at DESC LIMIT ?').all(limit) as Row[]).map(toItem);
  }

  /** Dispatched items no job took, since a moment: the heartbeat's inbox probe. */
  unclaimedSince(since: number, limit = 50): TriggerItem[] {
    return (this.db.prepare("SELECT * FROM trigger_inbox WHERE dispatched_at IS NOT NULL AND jobs = '[]' AND received_at >= ? ORDER BY received_at DESC LIMIT ?")
      .all(since, limit) as Row[]).map(toItem);
  }

  cursor(key: string): string | undefined {
    return (this.db.prepare('SELECT value FROM trigger_cursors WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  setCursor(key: string, value: string): void {
    this.db.prepare('INSERT INTO trigger_cursors (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }
}

function toItem(row: Row): TriggerItem {
  let jobs: string[] = [];
  try {
    const parsed: unknown = JSON.parse(row.jobs);
    if (Array.isArray(parsed)) jobs = parsed.filter((job): job is string => typeof job === 'string');
  } catch {
    // A hand-edited row: no jobs.
  }
  return { id: row.id, source: row.source, receivedAt: row.received_at, summary: row.summary, payload: row.payload, dispatchedAt: row.dispatched_at ?? undefined, jobs };
}
