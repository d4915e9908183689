import { graphemeBoundary } from './graphemes.js';
import { cleanForTelegram } from './telegram-clean.js';
import { formattedToHtml, markdownToFormatted, sliceFormatted, trimFormatted, type FormattedText } from './telegram-format.js';

/** Telegram's limit for one message: UTF-16 code units of the text after entity parsing. */
export const TELEGRAM_TEXT_LIMIT = 4096;

/** One message to send: Telegram HTML, and the same text plain (for the fallback and for counting). */
export interface TelegramPart {
  html: string;
  text: string;
}

/**
 * The model's Markdown as Telegram messages of at most `limit` UTF-16 units each (counted on the text Telegram
 * shows, not on the Markdown or the HTML). Contract: never throws; every part is non-empty; Markdown that
 * renders to nothing visible is sent as its own text rather than dropped.
 */
export function renderTelegramParts(markdown: string, limit = TELEGRAM_TEXT_LIMIT): TelegramPart[] {
  let parts = splitFormatted(markdownToFormatted(markdown), limit);
  if (parts.length === 0 && markdown.trim() !== '') {
    parts = splitFormatted(trimFormatted({ text: cleanForTelegram(markdown, true), entities: [] }), limit);
  }
  return parts.map((part) => ({ html: formattedToHtml(part), text: part.text }));
}

/**
 * Cuts formatted text into parts of at most `limit` UTF-16 units: at a paragraph break outside a code block
 * when one keeps the part at least half full, else at a line break, else at a space in the last fifth, else
 * between two graphemes (an emoji or a letter with its accents is never cut). An entity cut in two is closed
 * at the end of one part and reopened in the next (a code block keeps its language).
 */
export function splitFormatted(formatted: FormattedText, limit: number): FormattedText[] {
  const parts: FormattedText[] = [];
  let rest = trimFormatted(formatted);
  while (rest.text.length > limit) {
    const { end, next } = chooseCut(rest, limit);
    const head = trimFormatted(sliceFormatted(rest, 0, end));
    if (head.text !== '') parts.push(head);
    rest = trimFormatted(sliceFormatted(rest, next, rest.text.length));
  }
  if (rest.text !== '') parts.push(rest);
  return parts;
}

function chooseCut(formatted: FormattedText, limit: number): { end: number; next: number } {
  const { text, entities } = formatted;
  const insideBlock = (index: number): boolean =>
    entities.some((entity) => (entity.type === 'pre' || entity.type === 'blockquote') && entity.offset < index && index < entity.offset + entity.length);
  const half = Math.floor(limit / 2);
  for (let index = text.lastIndexOf('\n\n', limit); index >= half; index = text.lastIndexOf('\n\n', index - 1)) {
    if (!insideBlock(index)) return { end: index, next: index + 2 };
  }
  const line = text.lastIndexOf('\n', limit);
  if (line >= half) return { end: line, next: line + 1 };
  const space = text.lastIndexOf(' ', limit);
  if (space >= Math.floor(limit * 0.8)) return { end: space, next: space + 1 };
  const boundary = graphemeBoundary(text, limit);
  return { end: boundary, next: boundary };
}
