import { wallClockAt } from '../../lib/zoned.js';
import type { MessagePage, MessageSummary } from './mailbox.js';
import type { ParsedMessage } from './read.js';

/** `2026-11-02 11:05` in the daemon's time zone (the zone's formatter is shared, not built per message). */
export function formatDate(date: Date | undefined, timeZone: string): string {
  if (date === undefined) return '(no date)';
  return wallClockText(date, timeZone);
}

/**
 * A message's date as its sender wrote it; a missing or unreadable Date header says so (with the time the
 * server received it, when known) instead of passing off another time as the date.
 */
export function describeMessageDate(message: { date: Date | undefined; dateText: string | undefined; received?: Date | undefined }, timeZone: string): string {
  if (message.date !== undefined) return wallClockText(message.date, timeZone);
  const received = message.received !== undefined ? `, received ${wallClockText(message.received, timeZone)}` : '';
  if (message.dateText !== undefined) return `unreadable date "${oneLine(message.dateText, 60)}"${received}`;
  return `no date${received}`;
}

function wallClockText(date: Date, timeZone: string): string {
  const wall = wallClockAt(date.getTime(), timeZone);
  const two = (value: number) => String(value).padStart(2, '0');
  return `${wall.year}-${two(wall.month)}-${two(wall.day)} ${two(wall.hour)}:${two(wall.minute)}`;
}

/** Header text from outside, on one line: a subject cannot fake further lines of a listing. */
export function oneLine(text: string, max = 200): string {
  const flat = text.replace(/[\r\n\t\u2028\u2029]+/g, ' ').replace(/\s{2,}/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

export function describeFlags(flags: readonly string[]): string {
  const words: string[] = [flags.includes('\\Seen') ? 'read' : 'unread'];
  if (flags.includes('\\Flagged')) words.push('flagged');
  if (flags.includes('\\Answered')) words.push('answered');
  if (flags.includes('\\Draft')) words.push('draft');
  return words.join(', ');
}

export function formatSize(bytes: number | undefined): string {
  if (bytes === undefined) return '?';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function summaryLine(message: MessageSummary, timeZone: string): string {
  return `uid ${message.uid} · ${describeMessageDate(message, timeZone)} · ${oneLine(message.from) || '(no sender)'} · ${oneLine(message.subject) || '(no subject)'} · ${describeFlags(message.flags)}`;
}

/** The listing lines (outside text, to be wrapped by the caller). */
export function formatPage(page: MessagePage, timeZone: string): string {
  return page.messages.map((message) => summaryLine(message, timeZone)).join('\n');
}

/** Headers, attachment list and body of one message (outside text, to be wrapped by the caller). */
export function formatMessage(message: ParsedMessage & { received?: Date | undefined }, timeZone: string, bodyLimit: number): string {
  const lines = [`From: ${oneLine(message.from, 500) || '(no sender)'}`];
  if (message.to !== '') lines.push(`To: ${oneLine(message.to, 1000)}`);
  if (message.cc !== '') lines.push(`Cc: ${oneLine(message.cc, 1000)}`);
  lines.push(`Date: ${describeMessageDate(message, timeZone)}`);
  lines.push(`Subject: ${oneLine(message.subject, 500) || '(no subject)'}`);
  if (message.messageId !== undefined) lines.push(`Message-ID: ${oneLine(message.messageId)}`);
  if (message.attachments.length > 0) {
    const items = message.attachments.map((attachment) => `${oneLine(attachment.filename, 120)} (${attachment.contentType}, ${formatSize(attachment.size)})`);
    lines.push(`Attachments (${message.attachments.length}): ${items.join('; ')}`);
  }
  let body = message.text;
  if (body === '') body = '(no text body)';
  else if (message.bodySource === 'html') body = `[converted from HTML]\n${body}`;
  if (body.length > bodyLimit) body = `${body.slice(0, bodyLimit)}\n[body truncated: ${body.length - bodyLimit} more characters not shown]`;
  return `${lines.join('\n')}\n\n${body}`;
}
