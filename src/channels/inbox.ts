import type { Database } from '../db/database.js';

/** How long a message id is remembered; a platform never redelivers an update older than this. */
const KEEP_MS = 14 * 24 * 3600 * 1000;

/**
 * The dedupe record of accepted chat messages, in SQLite so it survives a restart. A message is claimed
 * once by `(channel, platform message id)`; a redelivery (reconnect, restart, replayed gateway event)
 * finds the claim and is dropped. Contract: `claim` is atomic (INSERT OR IGNORE) and never throws for a
 * duplicate.
 */
export class ChannelInbox {
  private readonly insert;
  private readonly update;
  private readonly prune;
  private claims = 0;

  constructor(db: Database) {
    this.insert = db.prepare('INSERT OR IGNORE INTO channel_inbox (channel, message_key, chat_id, status, received_at) VALUES (?, ?, ?, ?, ?)');
    this.update = db.prepare('UPDATE channel_inbox SET status = ?, done_at = ? WHERE channel = ? AND message_key = ?');
    this.prune = db.prepare('DELETE FROM channel_inbox WHERE received_at < ?');
  }

  /** True when this message is new (and now claimed); false for a redelivery. */
  claim(channel: string, messageKey: string, chatId: string, now = Date.now()): boolean {
    this.claims += 1;
    if (this.claims % 1000 === 1) this.prune.run(now - KEEP_MS);
    return this.insert.run(channel, messageKey, chatId, 'received', now).changes === 1;
  }

  /** Records how the message ended: `answered`, `failed` (the reply could not be sent) or `command`. */
  finish(channel: string, messageKey: string, status: 'answered' | 'failed' | 'command' | 'ignored', now = Date.now()): void {
    this.update.run(status, now, channel, messageKey);
  }
}
