import type { ImapSession } from './imap.js';
import { fetchMessage, listMessages, searchMessages } from './mailbox.js';
import { parseMessage } from './read.js';

/** One recent message, parsed: what the notes part's email scan reads (src/notes/email-source.ts). */
export interface RecentMail {
  uid: number;
  folder: string;
  messageId: string | undefined;
  from: string;
  fromAddress: string | undefined;
  subject: string;
  date: Date | undefined;
  text: string;
}

const BODY_CHARS = 4000;

/** Recent mail through the email tool's IMAP session (one connection for the daemon), read-only, with BODY.PEEK. */
export function createRecentMail(session: ImapSession, account: string, folder = 'INBOX'): { account: string; recent(options: { days: number; limit: number; now: number }): Promise<RecentMail[]> } {
  return {
    account,
    async recent({ days, limit, now }) {
      const since = new Date(now - days * 86_400_000);
      const page = await searchMessages(session, folder, { since }, limit);
      const items: RecentMail[] = [];
      for (const summary of page.messages) {
        const raw = await fetchMessage(session, folder, summary.uid, { markSeen: false });
        if (!raw) continue;
        const parsed = await parseMessage(raw.source);
        items.push({
          uid: summary.uid, folder, messageId: parsed.messageId, from: parsed.from, fromAddress: parsed.fromAddresses[0],
          subject: parsed.subject, date: parsed.date ?? summary.date, text: parsed.text.slice(0, BODY_CHARS),
        });
      }
      return items;
    },
  };
}

/**
 * Unread mail of INBOX for the heartbeat's mail probe: the newest `limit` unread envelopes, as `email list` with
 * `unread_only` reads them (no body, read only, nothing marked seen), over the tool's one connection.
 */
export function createUnseenMail(session: ImapSession, account: string, folder = 'INBOX'): { account: string; unseen(limit: number): Promise<Array<{ uid: number; messageId: string | undefined; from: string; subject: string }>> } {
  return {
    account,
    unseen: async (limit) => (await listMessages(session, folder, { unreadOnly: true, limit })).messages,
  };
}
