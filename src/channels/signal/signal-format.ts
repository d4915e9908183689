import { cleanForTelegram } from '../telegram-clean.js';
import { markdownToFormatted, trimFormatted, type FormattedText, type TelegramEntity } from '../telegram-format.js';
import { splitFormatted } from '../telegram-text.js';

/**
 * signal-cli sends a text longer than 2000 UTF-8 bytes as a cut message plus a "long text" attachment (the apps show
 * "Read more"); parts of at most this many bytes are shown whole, with their styles where they belong.
 */
export const SIGNAL_LIMIT_BYTES = 2000;

/** One message to send: its text, and its styles as signal-cli's `textStyle` takes them (`start:length:STYLE`). */
export interface SignalPart {
  text: string;
  textStyle: string[];
}

const STYLES: Partial<Record<TelegramEntity['type'], string>> = {
  bold: 'BOLD', italic: 'ITALIC', strikethrough: 'STRIKETHROUGH', code: 'MONOSPACE', pre: 'MONOSPACE',
};

/**
 * The model's Markdown as Signal messages: plain text with Signal's text styles (bold, italic, strikethrough,
 * monospace for code), links written out as "label (address)" since Signal has no hidden links, each part at most
 * `limitBytes` of UTF-8. The Markdown is read once by the same renderer as Telegram's (marked's lexer), so both show
 * a reply alike. Offsets are UTF-16 code units, as signal-cli expects. Contract: never throws; every part is non-empty.
 */
export function renderSignalParts(markdown: string, limitBytes = SIGNAL_LIMIT_BYTES): SignalPart[] {
  let formatted = markdownToFormatted(markdown, { linksAsText: true });
  // Markdown that renders to nothing visible is sent as typed rather than dropped.
  if (formatted.text.trim() === '' && markdown.trim() !== '') formatted = trimFormatted({ text: cleanForTelegram(markdown, true), entities: [] });
  return splitToBytes(formatted, limitBytes).map(toPart);
}

/** Plain text in parts of at most `limitBytes` (a question's text, a notice): no Markdown is read. */
export function plainSignalParts(text: string, limitBytes = SIGNAL_LIMIT_BYTES): SignalPart[] {
  return splitToBytes({ text, entities: [] }, limitBytes).map(toPart);
}

/** splitFormatted counts UTF-16 units; a part whose UTF-8 is longer (accents, emoji) is cut again, smaller. */
function splitToBytes(formatted: FormattedText, limitBytes: number, limitUnits = limitBytes): FormattedText[] {
  const parts: FormattedText[] = [];
  for (const part of splitFormatted(formatted, limitUnits)) {
    const bytes = Buffer.byteLength(part.text, 'utf8');
    if (bytes <= limitBytes) parts.push(part);
    else parts.push(...splitToBytes(part, limitBytes, Math.max(16, Math.floor((part.text.length * limitBytes) / bytes) - 4)));
  }
  return parts;
}

function toPart(formatted: FormattedText): SignalPart {
  const textStyle: string[] = [];
  for (const entity of formatted.entities) {
    const style = STYLES[entity.type];
    if (style !== undefined && entity.length > 0) textStyle.push(`${entity.offset}:${entity.length}:${style}`);
  }
  return { text: formatted.text, textStyle };
}
