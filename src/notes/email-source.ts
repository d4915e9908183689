import type { ImapSession } from '../tools/email/imap.js';
import { fetchMessage, searchMessages } from '../tools/email/mailbox.js';
import { parseMessage } from '../tools/email/read.js';

/** One recent message, parsed, as the email scan reads it. */
export interface MailItem {
  uid: number;
  folder: string;
  messageId: string | undefined;
  from: string;
  fromAddress: string | undefined;
  subject: string;
  date: Date | undefined;
  text: string;
}

/** Recent mail of the configured account, read without marking anything seen. */
export interface MailSource {
  account: string;
  recent(options: { days: number; limit: number; now: number }): Promise<MailItem[]>;
}

const BODY_CHARS = 4000;

/** Reads through the email tool's IMAP session (one connection for the daemon), read-only, with BODY.PEEK. */
export function createMailSource(session: ImapSession, account: string, folder = 'INBOX'): MailSource {
  return {
    account,
    async recent({ days, limit, now }) {
      const since = new Date(now - days * 86_400_000);
      const page = await searchMessages(session, folder, { since }, limit);
      const items: MailItem[] = [];
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
