import type { Workspaces } from '../../workspace/workspace.js';
import type { ImapSession } from './imap.js';
import type { SmtpSender } from './send.js';
import type { EmailSettings } from './settings.js';

/** The email tool's actions; its schema is flat and the action decides which fields apply. */
export type Action = 'list' | 'read' | 'search' | 'send' | 'reply' | 'save_attachment';

export interface EmailParams {
  action: Action;
  /** Which mailbox, by its name in `tools.email.accounts` (`default`: the top level); absent: the first. */
  account?: string;
  folder?: string;
  unread_only?: boolean;
  limit?: number;
  uid?: number;
  /** Instead of `uid`: the message's Message-ID (a task made from mail keeps it as `mid:`). */
  message_id?: string;
  /** save_attachment: which attachment, by its file name (the only one when absent). */
  filename?: string;
  mark_seen?: boolean;
  from?: string;
  to?: string | string[];
  cc?: string | string[];
  bcc?: string | string[];
  subject?: string;
  text?: string;
  since?: string;
  before?: string;
  body?: string;
  attachments?: string[];
  all?: boolean;
}

/** What the email tool works with: one account's settings, its IMAP session and SMTP sender, and the workspaces. */
export interface EmailToolDeps {
  settings: EmailSettings;
  session: ImapSession;
  /** Absent when no SMTP server is configured. */
  sender: SmtpSender | undefined;
  /** The sandbox's workspaces (pinned, size-limited) where attachments are read; absent: plain folders. */
  workspaces?: Workspaces | undefined;
}
