import path from 'node:path';
import { escapeHtml } from '../../lib/html-escape.js';
import { markdownHtmlIfFormatted } from '../../lib/markdown-html.js';
import { fail, ok, type ToolCallContext, type ToolResult, workspaceIdOf } from '../types.js';
import { openWorkspace } from '../../workspace/uploads.js';
import { loadAttachments, MAX_RECIPIENTS, parseRecipients, planReply } from './compose.js';
import { formatDate, formatSize, oneLine } from './format.js';
import { addFlag, fetchMessage } from './mailbox.js';
import { parseMessage } from './read.js';
import { uidOf } from './read-actions.js';
import type { SmtpSender } from './send.js';
import { bareAddress } from './settings.js';
import type { EmailParams, EmailToolDeps } from './types.js';

/** The SMTP sender when sending is allowed and configured; otherwise the refusal to return. */
function sendGate({ settings, sender }: EmailToolDeps): { allowed: true; smtp: SmtpSender } | { allowed: false; result: ToolResult } {
  if (!settings.allowSend) {
    return { allowed: false, result: fail('Sending e-mail is turned off: the operator has not set tools.email.allow_send: true. Nothing was sent; tell the person what you would have sent.') };
  }
  if (!sender) return { allowed: false, result: fail('No SMTP server is configured (tools.email.smtp.host), so mail cannot be sent. Nothing was sent; tell the person.') };
  return { allowed: true, smtp: sender };
}

/**
 * The HTML alternative of a body the model wrote in Markdown (lists, links, emphasis, tables), so the recipient sees
 * it formatted; plain text stays the first part as written. A reply's HTML quotes the original as a blockquote.
 */
function htmlPart(body: string, quote?: { header: string; text: string }): { html?: string } {
  const formatted = markdownHtmlIfFormatted(body);
  if (formatted === undefined) return {};
  const quoted = quote ? `<p>${escapeHtml(quote.header)}</p><blockquote style="margin:0 0 0 .8ex;border-left:1px solid #ccc;padding-left:1ex">${escapeHtml(quote.text).replace(/\r?\n/g, '<br>')}</blockquote>` : '';
  return { html: `<!doctype html><html><body>${formatted}${quoted}</body></html>` };
}

/** `send`: a new message (plain text, and HTML when the body is Markdown), with files from the conversation's workspace attached. */
export async function sendMessage(deps: EmailToolDeps, params: EmailParams, ctx: ToolCallContext): Promise<ToolResult> {
  const gate = sendGate(deps);
  if (!gate.allowed) return gate.result;
  const to = await parseRecipients('to', params.to);
  if (!to.success) return fail(`Not sent: ${to.error}.`);
  const cc = await parseRecipients('cc', params.cc);
  if (!cc.success) return fail(`Not sent: ${cc.error}.`);
  const bcc = await parseRecipients('bcc', params.bcc);
  if (!bcc.success) return fail(`Not sent: ${bcc.error}.`);
  if (to.value.length === 0) return fail('Not sent: "to" has no address.');
  if (to.value.length + cc.value.length + bcc.value.length > MAX_RECIPIENTS) return fail(`Not sent: more than ${MAX_RECIPIENTS} recipients.`);
  const workspaceId = workspaceIdOf(ctx);
  const workspace = path.join(ctx.config.data_dir, 'workspaces', workspaceId);
  const attachments = await loadAttachments(() => openWorkspace(deps.workspaces, workspaceId, workspace, { create: false }), params.attachments ?? []);
  if (!attachments.success) return fail(`Not sent: ${attachments.error}.`);
  const subject = oneLine(params.subject ?? '', 500);
  const body = params.body ?? '';
  const sent = await gate.smtp.send({ to: to.value, cc: cc.value, bcc: bcc.value, subject, text: body, ...htmlPart(body), attachments: attachments.value }, ctx.signal);
  ctx.log.info({ to: sent.accepted, rejected: sent.rejected, messageId: sent.messageId, attachments: attachments.value.length }, 'email sent');
  const attached = attachments.value.map((file) => `${file.filename} (${formatSize(file.content.length)})`);
  return ok(
    `Sent "${subject}" to ${sent.accepted.join(', ')}` +
      (sent.rejected.length > 0 ? `; the server REFUSED ${sent.rejected.join(', ')}` : '') +
      (attached.length > 0 ? `; attached ${attached.join(', ')}` : '') +
      `. Message-ID ${sent.messageId}.`,
  );
}

/** `reply`: an answer to a message, quoting it and threaded under it; the original is flagged answered. */
export async function replyToMessage(deps: EmailToolDeps, params: EmailParams, ctx: ToolCallContext): Promise<ToolResult> {
  const { settings, session } = deps;
  const gate = sendGate(deps);
  if (!gate.allowed) return gate.result;
  const folder = params.folder ?? 'INBOX';
  const found = await uidOf(session, folder, params);
  if (!found.success) return fail(`Not sent: ${found.error}`);
  const uid = found.value;
  const raw = await fetchMessage(session, folder, uid, { markSeen: false });
  if (!raw) return fail(`No message with uid ${uid} in ${folder}. Use list or search to find its uid.`);
  const original = await parseMessage(raw.source);
  const self = [settings.imap.user, gate.smtp.from, settings.smtp?.user ?? ''].map(bareAddress).filter((address) => address.includes('@'));
  const sender = oneLine(original.from) || 'the sender';
  // A message without a readable date is quoted without one, not with the time of replying.
  const quoteHeader = original.date !== undefined ? `On ${formatDate(original.date, ctx.config.timezone)}, ${sender} wrote:` : `${sender} wrote:`;
  const plan = planReply(original, params.body ?? '', { all: params.all === true, self, quoteHeader });
  if (plan.to.length === 0) return fail(`Not sent: message ${uid} has no sender address to reply to.`);
  const sent = await gate.smtp.send({
    to: plan.to, cc: plan.cc, bcc: [], subject: plan.subject, text: plan.text, ...htmlPart(params.body ?? '', { header: quoteHeader, text: original.text }), attachments: [],
    ...(plan.inReplyTo !== undefined ? { inReplyTo: plan.inReplyTo } : {}), references: plan.references,
  }, ctx.signal);
  ctx.log.info({ to: sent.accepted, rejected: sent.rejected, messageId: sent.messageId, uid }, 'email reply sent');
  try {
    await addFlag(session, folder, uid, '\\Answered');
  } catch (error) {
    ctx.log.warn({ err: error, uid }, 'could not flag the original as answered');
  }
  return ok(
    `Replied "${oneLine(plan.subject)}" to ${sent.accepted.join(', ')}` +
      (sent.rejected.length > 0 ? `; the server REFUSED ${sent.rejected.join(', ')}` : '') +
      `. Message-ID ${sent.messageId}.`,
  );
}
