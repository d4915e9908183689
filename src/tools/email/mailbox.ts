import type { FetchMessageObject, ImapFlow, MessageAddressObject, SearchObject } from 'imapflow';
import { describeAddress } from './addresses.js';
import type { ImapSession } from './imap.js';

/** One line of a listing: what a person scans an inbox for. */
export interface MessageSummary {
  uid: number;
  /** The Message-ID header, from the envelope. */
  messageId: string | undefined;
  from: string;
  subject: string;
  /** The message's own Date header, when it has one that can be read. */
  date: Date | undefined;
  /** The Date header as written, when it cannot be read (undefined when it is missing or fine). */
  dateText: string | undefined;
  /** When the server received it (IMAP INTERNALDATE): shown beside a missing or unreadable date, never instead. */
  received: Date | undefined;
  flags: string[];
  size: number | undefined;
}

export interface MessagePage {
  folder: string;
  /** Messages that matched (the listing shows the newest `limit`). */
  total: number;
  messages: MessageSummary[];
}

export interface SearchCriteria {
  from?: string;
  to?: string;
  subject?: string;
  text?: string;
  since?: Date;
  before?: Date;
  unreadOnly?: boolean;
}

const SUMMARY_QUERY = { uid: true, flags: true, envelope: true, internalDate: true, size: true } as const;

/** The newest `limit` messages of a folder (only unread ones if asked), newest first. */
export function listMessages(session: ImapSession, folder: string, options: { unreadOnly: boolean; limit: number }): Promise<MessagePage> {
  if (options.unreadOnly) return searchMessages(session, folder, { unreadOnly: true }, options.limit);
  return session.withMailbox(folder, 'read', async (client) => {
    const exists = client.mailbox ? client.mailbox.exists : 0;
    if (exists === 0) return { folder, total: 0, messages: [] };
    // Sequence numbers follow arrival order, so the last `limit` are the newest.
    const range = `${Math.max(1, exists - options.limit + 1)}:*`;
    const fetched = await client.fetchAll(range, SUMMARY_QUERY);
    return { folder, total: exists, messages: newestFirst(fetched.map(toSummary)).slice(0, options.limit) };
  });
}

/** Server-side IMAP SEARCH; every criterion must match. Newest `limit` first. */
export function searchMessages(session: ImapSession, folder: string, criteria: SearchCriteria, limit: number): Promise<MessagePage> {
  const query: SearchObject = {};
  if (criteria.from !== undefined) query.from = criteria.from;
  if (criteria.to !== undefined) query.to = criteria.to;
  if (criteria.subject !== undefined) query.subject = criteria.subject;
  if (criteria.text !== undefined) query.text = criteria.text;
  if (criteria.since !== undefined) query.since = criteria.since;
  if (criteria.before !== undefined) query.before = criteria.before;
  if (criteria.unreadOnly === true) query.seen = false;
  if (Object.keys(query).length === 0) query.all = true;
  return session.withMailbox(folder, 'read', async (client) => {
    const found = (await client.search(query, { uid: true })) || [];
    if (found.length === 0) return { folder, total: 0, messages: [] };
    const newest = [...found].sort((a, b) => b - a).slice(0, limit);
    const fetched = await client.fetchAll(newest.join(','), SUMMARY_QUERY, { uid: true });
    return { folder, total: found.length, messages: newestFirst(fetched.map(toSummary)) };
  });
}

/**
 * The UID of the message with this Message-ID in a folder (the newest when a copy came twice), or undefined. The
 * Message-ID outlives UIDs (a server that renumbers a folder changes its UIDVALIDITY), so a task keeps it.
 */
export function findByMessageId(session: ImapSession, folder: string, messageId: string): Promise<number | undefined> {
  const bare = messageId.trim().replace(/^<|>$/g, '');
  return session.withMailbox(folder, 'read', async (client) => {
    const found = (await client.search({ header: { 'message-id': `<${bare}>` } }, { uid: true })) || [];
    return found.length > 0 ? Math.max(...found) : undefined;
  });
}

export interface RawMessage {
  uid: number;
  source: Buffer;
  flags: string[];
  internalDate: Date | undefined;
}

/**
 * The full source of one message, or undefined when no message has that UID. Fetched with BODY.PEEK in a
 * read-only session, so reading never marks it \Seen — unless `markSeen`, which adds the flag afterwards.
 */
export function fetchMessage(session: ImapSession, folder: string, uid: number, options: { markSeen: boolean }): Promise<RawMessage | undefined> {
  return session.withMailbox(folder, options.markSeen ? 'write' : 'read', async (client) => {
    const message = await client.fetchOne(String(uid), { uid: true, source: true, flags: true, internalDate: true }, { uid: true });
    if (!message || !message.source) return undefined;
    if (options.markSeen) await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
    const flags = [...(message.flags ?? [])];
    if (options.markSeen && !flags.includes('\\Seen')) flags.push('\\Seen');
    return { uid: message.uid, source: message.source, flags, internalDate: toDate(message.internalDate) };
  });
}

/** Adds a flag (e.g. \Answered after a reply). */
export function addFlag(session: ImapSession, folder: string, uid: number, flag: string): Promise<boolean> {
  return session.withMailbox(folder, 'write', (client: ImapFlow) => client.messageFlagsAdd(String(uid), [flag], { uid: true }));
}

function toSummary(message: FetchMessageObject): MessageSummary {
  const envelope = message.envelope;
  return {
    uid: message.uid,
    messageId: envelope?.messageId,
    from: formatAddresses(envelope?.from),
    subject: envelope?.subject ?? '',
    // imapflow gives a Date for a readable header and the raw text for one it cannot read.
    date: toDate(envelope?.date),
    dateText: typeof envelope?.date === 'string' && toDate(envelope.date) === undefined && envelope.date.trim() !== '' ? envelope.date : undefined,
    received: toDate(message.internalDate),
    flags: [...(message.flags ?? [])],
    size: message.size,
  };
}

function newestFirst(messages: MessageSummary[]): MessageSummary[] {
  return messages.sort((a, b) => b.uid - a.uid);
}

export function formatAddresses(addresses: readonly MessageAddressObject[] | undefined): string {
  if (!addresses || addresses.length === 0) return '';
  return addresses
    .map((entry) => describeAddress(entry.name, entry.address))
    .filter((text) => text !== '')
    .join(', ');
}

function toDate(value: Date | string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
