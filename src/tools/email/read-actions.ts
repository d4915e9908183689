import { failure, succeed, type Result } from '../../lib/result.js';
import { wrapOutside } from '../external.js';
import { fail, ok, type ToolCallContext, type ToolResult } from '../types.js';
import { formatMessage, formatPage } from './format.js';
import type { ImapSession } from './imap.js';
import { fetchMessage, findByMessageId, listMessages, searchMessages, type MessagePage } from './mailbox.js';
import { parseMessage } from './read.js';
import type { EmailParams } from './types.js';

export const DEFAULT_LIMIT = 20;

/** What the reading actions use: the account's IMAP session and its name (the source of what they return). */
export interface Mailbox {
  session: ImapSession;
  account: string;
}

/** `list` and `search`: a page of messages, newest first, as outside content. */
export async function listOrSearch({ session, account }: Mailbox, params: EmailParams, ctx: ToolCallContext): Promise<ToolResult> {
  const folder = params.folder ?? 'INBOX';
  const limit = params.limit ?? DEFAULT_LIMIT;
  let page: MessagePage;
  if (params.action === 'list') {
    page = await listMessages(session, folder, { unreadOnly: params.unread_only === true, limit });
  } else {
    const since = params.since === undefined ? undefined : parseDay(params.since);
    const before = params.before === undefined ? undefined : parseDay(params.before);
    if (since === null || before === null) return fail('since and before must be dates like 2026-11-02.');
    page = await searchMessages(session, folder, {
      ...(params.from !== undefined ? { from: params.from } : {}),
      ...(typeof params.to === 'string' ? { to: params.to } : {}),
      ...(params.subject !== undefined ? { subject: params.subject } : {}),
      ...(params.text !== undefined ? { text: params.text } : {}),
      ...(since !== undefined ? { since } : {}),
      ...(before !== undefined ? { before } : {}),
      unreadOnly: params.unread_only === true,
    }, limit);
  }
  const kind = params.action === 'search' ? 'matching message' : params.unread_only ? 'unread message' : 'message';
  if (page.messages.length === 0) return ok(`No ${kind}s in ${folder}.`);
  const what = page.total === 1 ? kind : `${kind}s`;
  const shown = page.total > page.messages.length ? `newest ${page.messages.length} of ${page.total}` : `${page.total}`;
  const source = `email:${account}/${folder}`;
  const outside = wrapOutside(source, formatPage(page, ctx.config.timezone));
  return ok(
    `${shown} ${what} in ${folder}, newest first (uid · date · from · subject · status):\n${outside.wrapped}\nOpen one with {"action": "read", "uid": N}.`,
    { externalSource: source, thirdParty: [outside.shown] },
  );
}

/** `read`: one message's headers, text body and attachment names, as outside content. */
export async function readMessage({ session, account }: Mailbox, params: EmailParams, ctx: ToolCallContext): Promise<ToolResult> {
  const folder = params.folder ?? 'INBOX';
  const found = await uidOf(session, folder, params);
  if (!found.success) return fail(found.error);
  const uid = found.value;
  const markSeen = params.mark_seen === true;
  const raw = await fetchMessage(session, folder, uid, { markSeen });
  if (!raw) return fail(`No message with uid ${uid} in ${folder}. Use list or search to find its uid.`);
  const message = await parseMessage(raw.source);
  // Leave room for the markers and headers so the registry's output cap never cuts the end marker.
  const bodyLimit = Math.max(1000, ctx.config.tools.output_chars - 3000);
  const source = `email:${account}/${folder}`;
  const status = markSeen ? 'now marked as read' : raw.flags.includes('\\Seen') ? 'read' : 'unread; left unread';
  // The sender's headers and body are their words; the line naming the message is ours.
  const outside = wrapOutside(source, formatMessage({ ...message, received: raw.internalDate }, ctx.config.timezone, bodyLimit));
  return ok(`Message uid ${uid} in ${folder} (${status}):\n${outside.wrapped}`, { externalSource: source, thirdParty: [outside.shown] });
}

/** The message a call names: by `uid`, or by `message_id` (what a task made from mail keeps), searched in the folder. */
export async function uidOf(session: ImapSession, folder: string, params: Pick<EmailParams, 'uid' | 'message_id'>): Promise<Result<number>> {
  if (params.uid !== undefined) return succeed(params.uid);
  const messageId = params.message_id ?? '';
  const uid = await findByMessageId(session, folder, messageId);
  return uid === undefined ? failure(`No message with Message-ID ${messageId} in ${folder}; it may have been moved or deleted. Search for it, or give its uid.`) : succeed(uid);
}

/** A YYYY-MM-DD (or any date JavaScript reads) to a Date; null when unreadable. */
function parseDay(value: string): Date | null {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  const date = day ? new Date(Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]))) : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
