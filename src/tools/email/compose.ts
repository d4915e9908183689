import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { resolveInside } from '../../lib/paths.js';
import type { ParsedMessage } from './read.js';

export const MAX_RECIPIENTS = 50;
export const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;
const MAX_QUOTED_CHARS = 20_000;
// Deliberately plain: one @, no spaces or angle brackets, a dot in the domain (or a bare host name for LANs).
const ADDRESS = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+$/;

export type Checked<T> = { success: true; value: T } | { success: false; error: string };

/**
 * Recipients from the model: one string ("a@x, Bob <b@y>") or a list of them. Returns `Name <addr>` strings.
 * Refuses line breaks (header injection) and anything that is not an address, naming the bad one.
 */
export async function parseRecipients(field: string, value: string | string[] | undefined): Promise<Checked<string[]>> {
  if (value === undefined) return { success: true, value: [] };
  const items = Array.isArray(value) ? value : [value];
  // Loaded with the first send: the parser ships with nodemailer.
  const { default: addressparser } = await import('nodemailer/lib/addressparser');
  const out: string[] = [];
  for (const item of items) {
    if (/[\r\n]/.test(item)) return { success: false, error: `${field} contains a line break; give plain addresses` };
    for (const entry of addressparser(item, { flatten: true })) {
      const address = entry.address.trim();
      if (!ADDRESS.test(address)) {
        return { success: false, error: `${field}: "${entry.address || entry.name || item}" is not an e-mail address; use name@example.com or "Name <name@example.com>"` };
      }
      const name = entry.name.replace(/["\\]/g, '').trim();
      out.push(name === '' ? address : `"${name}" <${address}>`);
    }
  }
  return { success: true, value: out };
}

/** Reads workspace files to attach. Paths are relative to the conversation's workspace and cannot leave it. */
export async function loadAttachments(workspace: string, paths: readonly string[]): Promise<Checked<Array<{ filename: string; content: Buffer }>>> {
  const out: Array<{ filename: string; content: Buffer }> = [];
  let total = 0;
  for (const requested of paths) {
    const resolved = resolveInside(workspace, requested);
    if (!resolved.success) {
      const reason = resolved.error === 'the folder does not exist' ? 'this conversation has no workspace files yet' : resolved.error;
      return { success: false, error: `attachment "${requested}": ${reason}` };
    }
    let size: number;
    try {
      const info = await stat(resolved.absolute);
      if (!info.isFile()) return { success: false, error: `attachment "${requested}" is not a file` };
      size = info.size;
    } catch {
      return { success: false, error: `attachment "${requested}" does not exist in the workspace; give a path relative to it, e.g. "report.pdf"` };
    }
    total += size;
    if (total > MAX_ATTACHMENT_BYTES) {
      return { success: false, error: `attachments exceed ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB in total; send fewer or smaller files` };
    }
    out.push({ filename: path.basename(resolved.absolute), content: await readFile(resolved.absolute) });
  }
  return { success: true, value: out };
}

export interface ReplyPlan {
  to: string[];
  cc: string[];
  subject: string;
  inReplyTo: string | undefined;
  references: string[];
  text: string;
}

/**
 * A reply to `original`: to its Reply-To (else From); with `all`, also its To and Cc — never to ourselves.
 * "Re:" subject, In-Reply-To and References for threading, and the original quoted below the new text.
 */
export function planReply(original: ParsedMessage, body: string, options: { all: boolean; self: readonly string[]; quoteHeader: string }): ReplyPlan {
  const self = new Set(options.self.map((address) => address.toLowerCase()));
  const seen = new Set<string>();
  const keep = (addresses: readonly string[]): string[] =>
    addresses.filter((address) => {
      const key = address.toLowerCase();
      if (self.has(key) || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  const author = original.replyToAddresses.length > 0 ? original.replyToAddresses : original.fromAddresses;
  let to = keep(author);
  // Replying to a message we sent ourselves goes to its recipients.
  if (to.length === 0) to = keep(original.toAddresses);
  const cc = options.all ? keep([...original.toAddresses, ...original.ccAddresses]) : [];
  const subject = /^\s*re\s*:/i.test(original.subject) ? original.subject : `Re: ${original.subject}`.trim();
  const references = [...original.references];
  if (original.messageId !== undefined && !references.includes(original.messageId)) references.push(original.messageId);
  let quoted = original.text;
  if (quoted.length > MAX_QUOTED_CHARS) quoted = `${quoted.slice(0, MAX_QUOTED_CHARS)}\n[…]`;
  const quote = quoted.split(/\r?\n/).map((line) => (line === '' ? '>' : `> ${line}`)).join('\n');
  return {
    to,
    cc,
    subject,
    inReplyTo: original.messageId,
    references,
    text: `${body.trimEnd()}\n\n${options.quoteHeader}\n${quote}\n`,
  };
}
