import type { Result } from '../../lib/result.js';
import { RefusedError } from '../../workspace/pinned-dir.js';
import { splitWorkspacePath, type WorkspaceFiles } from '../../workspace/workspace-files.js';
import type { ParsedMessage } from './read.js';

export const MAX_RECIPIENTS = 50;
export const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;
const MAX_QUOTED_CHARS = 20_000;
// Deliberately plain: one @, no spaces or angle brackets, a dot in the domain (or a bare host name for LANs).
const ADDRESS = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+$/;

/**
 * Recipients from the model: one string ("a@x, Bob <b@y>") or a list of them. Returns `Name <addr>` strings.
 * Refuses line breaks (header injection) and anything that is not an address, naming the bad one.
 */
export async function parseRecipients(field: string, value: string | string[] | undefined): Promise<Result<string[]>> {
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

/**
 * Reads workspace files to attach. Paths are relative to the conversation's workspace and cannot leave it:
 * the files are read through pinned folders (src/sandbox/workspace-files.ts), so no link is followed and a
 * FIFO or device named like an attachment is refused without being opened.
 */
export async function loadAttachments(open: () => Promise<Result<WorkspaceFiles>>, paths: readonly string[]): Promise<Result<Array<{ filename: string; content: Buffer }>>> {
  if (paths.length === 0) return { success: true, value: [] };
  const opened = await open();
  if (!opened.success) return { success: false, error: `attachment "${paths[0] ?? ''}": ${opened.error}` };
  const files = opened.value;
  const out: Array<{ filename: string; content: Buffer }> = [];
  let total = 0;
  try {
    for (const requested of paths) {
      const split = splitWorkspacePath(requested);
      if (!split.success) return { success: false, error: `attachment "${requested}": ${split.error}` };
      const name = split.value.at(-1);
      if (name === undefined) return { success: false, error: `attachment "${requested}" names the workspace itself, not a file` };
      let content: Buffer;
      try {
        content = await files.read(split.value, MAX_ATTACHMENT_BYTES - total);
      } catch (error) {
        return { success: false, error: describeAttachmentError(requested, error) };
      }
      total += content.length;
      out.push({ filename: name, content });
    }
  } finally {
    await files.close();
  }
  return { success: true, value: out };
}

function describeAttachmentError(requested: string, error: unknown): string {
  if (error instanceof RefusedError) {
    if (error.refusal === 'too_large') return `attachments exceed ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB in total; send fewer or smaller files`;
    if (error.refusal === 'link') return `attachment "${requested}" is or passes through a symbolic link, which is not followed; attach the file itself`;
    return `attachment "${requested}": ${error.message}; only regular files can be attached`;
  }
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return `attachment "${requested}" does not exist in the workspace; give a path relative to it, e.g. "report.pdf"`;
  return `attachment "${requested}" cannot be read (${(error as Error).message})`;
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
