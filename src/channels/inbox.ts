import type { Database } from '../db/database.js';
import type { AttachmentKind } from './types.js';

/** How long a message id is remembered; a platform never redelivers an update older than this. */
const KEEP_MS = 14 * 24 * 3600 * 1000;

/** What is kept of an accepted message until it is answered: enough to run its turn again after a crash. */
export interface ReplayableMessage {
  userId: string;
  userName: string;
  text: string;
  isDirect: boolean;
  replyTo?: string;
  forwarded?: boolean;
  /** Names and types only: the files themselves are fetched again from nowhere (see the router's replay). */
  attachments: Array<{ kind: AttachmentKind; label?: string; name: string; mimeType: string; size: number }>;
}

export interface PendingMessage {
  messageKey: string;
  chatId: string;
  receivedAt: number;
  message: ReplayableMessage;
}

/**
 * The dedupe record of accepted chat messages, in SQLite so it survives a restart. A message is claimed
 * once by `(channel, platform message id)`; a redelivery (reconnect, restart, replayed gateway event)
 * finds the claim and is dropped. The claim keeps the message (`received`) until `finish` records how it
 * ended, so one cut by a crash can be replayed once at the next start (`pending`).
 * Contract: `claim` is atomic (INSERT OR IGNORE) and never throws for a duplicate.
 */
export class ChannelInbox {
  private readonly insert;
  private readonly update;
  private readonly prune;
  private readonly selectPending;
  private readonly expireOld;
  private readonly markReplying;
  private readonly unconfirm;
  private claims = 0;

  constructor(db: Database) {
    this.insert = db.prepare('INSERT OR IGNORE INTO channel_inbox (channel, message_key, chat_id, status, received_at, message) VALUES (?, ?, ?, ?, ?, ?)');
    this.update = db.prepare('UPDATE channel_inbox SET status = ?, done_at = ?, message = NULL WHERE channel = ? AND message_key = ?');
    this.prune = db.prepare('DELETE FROM channel_inbox WHERE received_at < ?');
    this.selectPending = db.prepare(
      "SELECT message_key, chat_id, received_at, message FROM channel_inbox WHERE channel = ? AND status = 'received' AND received_at >= ? AND message IS NOT NULL ORDER BY received_at, rowid",
    );
    this.markReplying = db.prepare("UPDATE channel_inbox SET status = 'replying', message = NULL WHERE channel = ? AND message_key = ?");
    this.unconfirm = db.prepare("UPDATE channel_inbox SET status = 'unconfirmed', done_at = ? WHERE channel = ? AND status = 'replying'");
    this.expireOld = db.prepare(
      "UPDATE channel_inbox SET status = 'expired', done_at = ?, message = NULL WHERE channel = ? AND status = 'received' AND (received_at < ? OR message IS NULL)",
    );
  }

  /** True when this message is new (and now claimed); false for a redelivery. */
  claim(channel: string, messageKey: string, chatId: string, now = Date.now(), message?: ReplayableMessage): boolean {
    this.claims += 1;
    if (this.claims % 1000 === 1) this.prune.run(now - KEEP_MS);
    return this.insert.run(channel, messageKey, chatId, 'received', now, message ? JSON.stringify(message) : null).changes === 1;
  }

  /**
   * The turn is done and its reply is about to be sent. A crash from here on must not run the turn again: the
   * platform has most likely taken the reply (the request leaves at once; the answer takes a round trip), and
   * a second answer would repeat the turn's side effects. So this message is no longer replayed.
   */
  replying(channel: string, messageKey: string): void {
    this.markReplying.run(channel, messageKey);
  }

  /** Records how the message ended: `answered`, `failed` (the reply could not be sent), `command` or `ignored`. */
  finish(channel: string, messageKey: string, status: 'answered' | 'failed' | 'command' | 'ignored', now = Date.now()): void {
    this.update.run(status, now, channel, messageKey);
  }

  /**
   * Messages of `channel` claimed but never finished (the process died during their turn), received at or
   * after `since`, oldest first. Older ones, and ones stored without their text, are marked `expired`
   * (counted in the return's `expired`): answering an hour-old question out of the blue helps nobody.
   * Messages whose reply was being sent are marked `unconfirmed` (counted) and not replayed.
   */
  pending(channel: string, since: number, now = Date.now()): { messages: PendingMessage[]; expired: number; unconfirmed: number } {
    const rows = this.selectPending.all(channel, since) as Array<{ message_key: string; chat_id: string; received_at: number; message: string }>;
    const expired = this.expireOld.run(now, channel, since).changes;
    const unconfirmed = this.unconfirm.run(now, channel).changes;
    const messages = rows.map((row) => ({
      messageKey: row.message_key, chatId: row.chat_id, receivedAt: row.received_at, message: JSON.parse(row.message) as ReplayableMessage,
    }));
    return { messages, expired, unconfirmed };
  }
}
