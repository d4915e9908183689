import type { AddressObject, ParsedMail } from 'mailparser';
import { describeAddress, isPlaceholderAddress } from './addresses.js';

/** A message as the model sees it: headers, a text body (HTML converted) and what is attached. */
export interface ParsedMessage {
  messageId: string | undefined;
  references: string[];
  subject: string;
  /** The Date header, when present and readable (never the time of reading, which mailparser puts instead). */
  date: Date | undefined;
  /** The Date header as written, when it cannot be read. */
  dateText: string | undefined;
  from: string;
  /** Bare addresses, for replies. */
  fromAddresses: string[];
  replyToAddresses: string[];
  to: string;
  toAddresses: string[];
  cc: string;
  ccAddresses: string[];
  /** The plain-text part, or the HTML part turned into readable text. */
  text: string;
  /** Where `text` came from. */
  bodySource: 'text' | 'html' | 'none';
  attachments: Array<{ filename: string; contentType: string; size: number }>;
}

/** Parses RFC 822 source with mailparser; HTML-only bodies go through html-to-text (links kept, images dropped). */
export async function parseMessage(source: Buffer): Promise<ParsedMessage> {
  // Loaded on first read, not at start-up.
  const [{ simpleParser }, { convert }] = await Promise.all([import('mailparser'), import('html-to-text')]);
  // skipHtmlToText: an absent text part stays absent, so the HTML is converted here, with our options.
  const parsed: ParsedMail = await simpleParser(source, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true });
  let text = typeof parsed.text === 'string' ? parsed.text.trim() : '';
  let bodySource: ParsedMessage['bodySource'] = text === '' ? 'none' : 'text';
  if (text === '' && typeof parsed.html === 'string' && parsed.html.trim() !== '') {
    text = convert(parsed.html, {
      wordwrap: false,
      selectors: [
        { selector: 'img', format: 'skip' },
        { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
      ],
    }).trim();
    bodySource = 'html';
  }
  const references = parsed.references === undefined ? [] : Array.isArray(parsed.references) ? parsed.references : [parsed.references];
  return {
    messageId: parsed.messageId,
    references,
    subject: parsed.subject ?? '',
    ...dateOf(parsed),
    from: addressText(parsed.from),
    fromAddresses: addresses(parsed.from),
    replyToAddresses: addresses(parsed.replyTo),
    to: addressText(parsed.to),
    toAddresses: addresses(parsed.to),
    cc: addressText(parsed.cc),
    ccAddresses: addresses(parsed.cc),
    text,
    bodySource,
    attachments: parsed.attachments.map((attachment) => ({
      filename: attachment.filename ?? '(unnamed)',
      contentType: attachment.contentType,
      size: attachment.size,
    })),
  };
}

/** mailparser replaces an unreadable Date with the time of parsing; the header line says what was really there. */
function dateOf(parsed: ParsedMail): { date: Date | undefined; dateText: string | undefined } {
  const line = parsed.headerLines.find((header) => header.key === 'date')?.line;
  if (line === undefined) return { date: undefined, dateText: undefined };
  const text = line.replace(/^date:\s*/i, '').replace(/\r?\n[ \t]+/g, ' ').trim();
  const date = new Date(text);
  if (text === '' || Number.isNaN(date.getTime())) return { date: undefined, dateText: text === '' ? undefined : text };
  return { date, dateText: undefined };
}

function list(value: AddressObject | AddressObject[] | undefined): AddressObject[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** `Name <addr>, addr2` (mailparser's own `text` quotes every name). */
function addressText(value: AddressObject | AddressObject[] | undefined): string {
  const parts: string[] = [];
  for (const entry of list(value)) {
    for (const address of entry.value) {
      const members = address.group?.map((member) => describeAddress(member.name, member.address)).filter((member) => member !== '');
      if (members && members.length > 0) parts.push(`${address.name}: ${members.join(', ')}`);
      else if (address.group) {
        if (address.name) parts.push(`${address.name}: (no addresses)`);
      } else {
        const text = describeAddress(address.name, address.address);
        if (text !== '') parts.push(text);
      }
    }
  }
  return parts.join(', ');
}

function addresses(value: AddressObject | AddressObject[] | undefined): string[] {
  const out: string[] = [];
  for (const entry of list(value)) {
    for (const address of entry.value) {
      if (address.address && !isPlaceholderAddress(address.address)) out.push(address.address);
      // Group syntax ("Team: a@x, b@x;") nests its members.
      for (const member of address.group ?? []) if (member.address && !isPlaceholderAddress(member.address)) out.push(member.address);
    }
  }
  return out;
}

/** The files attached to a message, with their bytes (for `save_attachment`). */
export async function attachmentsOf(source: Buffer): Promise<Array<{ filename: string; contentType: string; content: Buffer }>> {
  const { simpleParser } = await import('mailparser');
  const parsed: ParsedMail = await simpleParser(source, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true });
  return parsed.attachments.map((attachment) => ({ filename: attachment.filename ?? '(unnamed)', contentType: attachment.contentType, content: attachment.content }));
}
