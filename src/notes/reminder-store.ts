import { randomBytes } from 'node:crypto';
import type { Database } from '../db/database.js';

/** A reminder as it was delivered: where, to whom, its text, the task it is about, and what was done with it. */
export interface DeliveredReminder {
  token: string;
  jobId: string;
  /** The chat it went to (`telegram:123`). */
  target: string;
  /** The person it is for in that chat, when known (the one who asked for it there). */
  userId: string | undefined;
  /** The reminder's own text (without the ⏰ and the outside-content line). */
  text: string;
  /** The task it is about (a task reminder's, or reminder_create's `task`), by id or ref. */
  task: string | undefined;
  /** Outside sources its text was made from (a snoozed one keeps them). */
  sources: string[];
  deliveredAt: number;
  action: string | undefined;
}

interface Row {
  token: string;
  job_id: string;
  target: string;
  user_id: string | null;
  text: string;
  task: string | null;
  sources: string;
  delivered_at: number;
  action: string | null;
}

/**
 * The reminders' own tables (migration 015): which task a plain reminder is about, and every delivery with the
 * token its buttons carry. `claim` is what makes a press count once: it sets the action only where none is set yet.
 */
export class ReminderStore {
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  link(jobId: string, task: string): void {
    this.db.prepare('INSERT OR REPLACE INTO reminder_links (job_id, task) VALUES (?, ?)').run(jobId, task);
  }

  linkOf(jobId: string): string | undefined {
    const row = this.db.prepare('SELECT task FROM reminder_links WHERE job_id = ?').get(jobId) as { task: string } | undefined;
    return row?.task;
  }

  /** Keeps a delivery about to be sent; its token goes into the buttons' data. */
  record(entry: Omit<DeliveredReminder, 'token' | 'action'>): string {
    const token = randomBytes(12).toString('base64url');
    this.db.prepare('INSERT INTO reminder_deliveries (token, job_id, target, user_id, text, task, sources, delivered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(token, entry.jobId, entry.target, entry.userId ?? null, entry.text, entry.task ?? null, JSON.stringify(entry.sources), entry.deliveredAt);
    return token;
  }

  /** A delivery that did not reach its chat: its buttons were never shown. */
  forget(token: string): void {
    this.db.prepare('DELETE FROM reminder_deliveries WHERE token = ?').run(token);
  }

  get(token: string): DeliveredReminder | undefined {
    const row = this.db.prepare('SELECT * FROM reminder_deliveries WHERE token = ?').get(token) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  /** The last reminder delivered to `target` (any chat when undefined: the terminal is the owner's). */
  last(target: string | undefined): DeliveredReminder | undefined {
    const row = (target === undefined
      ? this.db.prepare('SELECT * FROM reminder_deliveries ORDER BY delivered_at DESC, rowid DESC LIMIT 1').get()
      : this.db.prepare('SELECT * FROM reminder_deliveries WHERE target = ? ORDER BY delivered_at DESC, rowid DESC LIMIT 1').get(target)) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  /** Sets the action of a delivery nobody acted on yet; false when someone already did (a second press). */
  claim(token: string, action: string, at: number): boolean {
    return this.db.prepare('UPDATE reminder_deliveries SET action = ?, acted_at = ? WHERE token = ? AND action IS NULL').run(action, at, token).changes === 1;
  }

  /** Gives a claim back when what it was for could not be done (the task file could not be written). */
  release(token: string): void {
    this.db.prepare('UPDATE reminder_deliveries SET action = NULL, acted_at = NULL WHERE token = ?').run(token);
  }

  /** Runs `work` in one transaction: a claim and the job it re-arms are written together or not at all. */
  atomically<T>(work: () => T): T {
    return this.db.transaction(work)();
  }
}

function fromRow(row: Row): DeliveredReminder {
  let sources: string[] = [];
  try {
    const parsed: unknown = JSON.parse(row.sources);
    if (Array.isArray(parsed)) sources = parsed.filter((entry): entry is string => typeof entry === 'string');
  } catch {
    sources = [];
  }
  return {
    token: row.token, jobId: row.job_id, target: row.target, userId: row.user_id ?? undefined, text: row.text, task: row.task ?? undefined,
    sources, deliveredAt: row.delivered_at, action: row.action ?? undefined,
  };
}
