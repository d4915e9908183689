import { decodeHTMLStrict } from 'entities';
import type { Lexer, Token, Tokens } from 'marked';
import { requireOnUse } from '../lib/folded.js';
import { cleanForTelegram } from './telegram-clean.js';

/** A Telegram message entity, offsets and lengths in UTF-16 code units of `FormattedText.text`. */
export type TelegramEntity =
  | { type: 'bold' | 'italic' | 'strikethrough' | 'code' | 'blockquote'; offset: number; length: number }
  | { type: 'pre'; offset: number; length: number; language?: string }
  | { type: 'text_link'; offset: number; length: number; url: string };

/** Text as Telegram shows it, with its entities: what a message is once Telegram has parsed it. */
export interface FormattedText {
  text: string;
  entities: TelegramEntity[];
}

const LANGUAGE = /^[\w#+.-]{1,32}$/;

/**
 * Renders the model's Markdown (GFM, as marked reads it) as the text Telegram should show and its entities:
 * bold, italic, strike, code, pre with language, links, quotes; headings bold, lists with bullets, tables as
 * aligned text in a pre block, raw HTML shown as typed. Text outside code means what CommonMark says
 * (`&amp;` is "&", `\*` is "*"); code and raw HTML are literal. Contract: never throws; the text is already
 * cleaned the way Telegram would clean it (see cleanForTelegram), so it is exactly what the person sees.
 * `linksAsText`: every link is shown as "label (destination)" (for platforms without hidden links, Signal).
 */
export function markdownToFormatted(markdown: string, options: { linksAsText?: boolean } = {}): FormattedText {
  const builder = new Builder(options.linksAsText ?? false);
  try {
    // marked is loaded at the first message formatted, not with every start or command that builds the channel.
    renderBlocks(builder, requireOnUse<{ Lexer: typeof Lexer }>('marked').Lexer.lex(markdown), '', false);
  } catch {
    return trimFormatted({ text: cleanForTelegram(markdown, false), entities: [] });
  }
  return trimFormatted(builder.result());
}

/**
 * The HTML that Telegram (TDLib's parse_html) parses back into exactly `formatted`: every "&", "<" and ">" of
 * the text is escaped, so entity-like text inside code stays literal. Entities must nest (as the renderer and
 * `sliceFormatted` make them).
 */
export function formattedToHtml(formatted: FormattedText): string {
  const { text } = formatted;
  const entities = [...formatted.entities].sort((a, b) => a.offset - b.offset || b.length - a.length);
  const open: TelegramEntity[] = [];
  let html = '';
  let position = 0;
  const emitTo = (end: number): void => {
    html += escapeText(text.slice(position, end));
    position = end;
  };
  const closeUntil = (offset: number): void => {
    for (let top = open.at(-1); top && top.offset + top.length <= offset; top = open.at(-1)) {
      emitTo(top.offset + top.length);
      html += closingTag(top);
      open.pop();
    }
  };
  for (const entity of entities) {
    closeUntil(entity.offset);
    emitTo(entity.offset);
    html += openingTag(entity);
    open.push(entity);
  }
  closeUntil(text.length);
  emitTo(text.length);
  return html;
}

/** The part of `formatted` between two UTF-16 offsets, entities clipped to it. */
export function sliceFormatted(formatted: FormattedText, start: number, end: number): FormattedText {
  const entities: TelegramEntity[] = [];
  for (const entity of formatted.entities) {
    const from = Math.max(entity.offset, start);
    const to = Math.min(entity.offset + entity.length, end);
    if (to > from) entities.push({ ...entity, offset: from - start, length: to - from });
  }
  return { text: formatted.text.slice(start, end), entities };
}

/**
 * Trims spaces and line breaks the way Telegram does before it counts and shows a message: all at the end, and
 * at the start only before the first entity (so a code block's indentation survives).
 */
export function trimFormatted(formatted: FormattedText): FormattedText {
  const { text } = formatted;
  let end = text.length;
  while (end > 0 && (text[end - 1] === ' ' || text[end - 1] === '\n')) end -= 1;
  const firstEntity = formatted.entities.reduce((min, entity) => Math.min(min, entity.offset), end);
  let start = 0;
  while (start < firstEntity && (text[start] === ' ' || text[start] === '\n')) start += 1;
  return start === 0 && end === text.length ? formatted : sliceFormatted(formatted, start, end);
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttribute(text: string): string {
  return escapeText(text).replace(/"/g, '&quot;');
}

const TAGS = { bold: 'b', italic: 'i', strikethrough: 's', code: 'code', blockquote: 'blockquote' } as const;

function openingTag(entity: TelegramEntity): string {
  switch (entity.type) {
    case 'pre':
      return entity.language ? `<pre><code class="language-${escapeAttribute(entity.language)}">` : '<pre>';
    case 'text_link':
      return `<a href="${escapeAttribute(entity.url)}">`;
    default:
      return `<${TAGS[entity.type]}>`;
  }
}

function closingTag(entity: TelegramEntity): string {
  switch (entity.type) {
    case 'pre':
      return entity.language ? '</code></pre>' : '</pre>';
    case 'text_link':
      return '</a>';
    default:
      return `</${TAGS[entity.type]}>`;
  }
}

// What an entity is, before its offset and length are known.
type EntitySpec = TelegramEntity extends infer Entity ? (Entity extends TelegramEntity ? Omit<Entity, 'offset' | 'length'> : never) : never;

/** Appends cleaned text and records entities around what is appended between `open` and `close`. */
class Builder {
  /** `linksAsText`: a link is shown as "label (destination)", never linked (a table's cells are in a pre block). */
  constructor(readonly linksAsText = false) {}

  private current = '';
  private readonly entities: TelegramEntity[] = [];
  private quoteDepth = 0;

  get text(): string {
    return this.current;
  }

  append(raw: string, literal = false): void {
    this.current += cleanForTelegram(raw, literal);
  }

  /** Runs `body`, then records an entity over what it appended (nothing when it appended nothing). */
  wrap(entity: EntitySpec, body: () => void): void {
    const start = this.text.length;
    const isQuote = entity.type === 'blockquote';
    // Telegram refuses nested quotes; an inner quote is shown inside the outer one.
    const nested = isQuote && this.quoteDepth > 0;
    if (isQuote) this.quoteDepth += 1;
    try {
      body();
    } finally {
      if (isQuote) this.quoteDepth -= 1;
    }
    const length = this.text.length - start;
    if (length > 0 && !nested) this.entities.push({ ...entity, offset: start, length } as TelegramEntity);
  }

  /** Cuts the text back to `length` UTF-16 units, dropping or clipping entities past it. */
  truncate(length: number): void {
    this.current = this.current.slice(0, length);
    for (let index = this.entities.length - 1; index >= 0; index -= 1) {
      const entity = this.entities[index];
      if (!entity || entity.offset + entity.length <= length) continue;
      if (entity.offset >= length) this.entities.splice(index, 1);
      else entity.length = length - entity.offset;
    }
  }

  result(): FormattedText {
    return { text: this.text, entities: this.entities };
  }
}

function renderBlocks(out: Builder, tokens: readonly Token[], indent: string, tight: boolean): void {
  let first = true;
  for (const token of tokens) {
    if (token.type === 'space' || token.type === 'def') continue;
    const before = out.text.length;
    if (!first) out.append(tight ? '\n' : '\n\n');
    const mark = out.text.length;
    renderBlock(out, token, indent);
    if (out.text.length === mark) {
      // The block showed nothing (an empty code block): drop its separator too.
      out.truncate(before);
      continue;
    }
    first = false;
  }
}

function renderBlock(out: Builder, token: Token, indent: string): void {
  switch (token.type) {
    case 'code': {
      const code = token as Tokens.Code;
      const language = LANGUAGE.test(code.lang ?? '') ? code.lang : undefined;
      out.wrap({ type: 'pre', ...(language ? { language } : {}) }, () => out.append(code.text, true));
      return;
    }
    case 'heading':
      out.wrap({ type: 'bold' }, () => renderInline(out, (token as Tokens.Heading).tokens));
      return;
    case 'hr':
      out.append('———');
      return;
    case 'blockquote':
      out.wrap({ type: 'blockquote' }, () => renderBlocks(out, (token as Tokens.Blockquote).tokens, '', false));
      return;
    case 'list':
      renderList(out, token as Tokens.List, indent);
      return;
    case 'paragraph':
      renderInline(out, (token as Tokens.Paragraph).tokens);
      return;
    case 'table':
      out.wrap({ type: 'pre' }, () => out.append(tableText(token as Tokens.Table), true));
      return;
    case 'text': {
      const text = token as Tokens.Text;
      if (text.tokens) renderInline(out, text.tokens);
      else out.append(decodeHTMLStrict(text.text));
      return;
    }
    case 'html':
      // Raw HTML from the model is shown as typed, never interpreted.
      out.append(token.raw.replace(/\n+$/, ''), true);
      return;
    default:
      out.append(token.raw.trim(), true);
  }
}

function renderList(out: Builder, list: Tokens.List, indent: string): void {
  const start = typeof list.start === 'number' ? list.start : 1;
  list.items.forEach((item, index) => {
    if (index > 0) out.append(list.loose ? '\n\n' : '\n');
    out.append(`${indent}${list.ordered ? `${start + index}. ` : '• '}${item.task ? (item.checked ? '☑ ' : '☐ ') : ''}`);
    const children = item.tokens.filter((child) => child.type !== 'checkbox' && child.type !== 'space');
    children.forEach((child, position) => {
      if (position > 0) out.append('\n');
      if (child.type === 'list') renderList(out, child as Tokens.List, `${indent}  `);
      else renderBlock(out, child, `${indent}  `);
    });
  });
}

/** A table as aligned plain text (cells' Markdown reduced to their visible text, links' addresses written out). */
function tableText(table: Tokens.Table): string {
  const plain = (cell: Tokens.TableCell): string => {
    const builder = new Builder(true);
    renderInline(builder, cell.tokens);
    return builder.text.replace(/\n/g, ' ');
  };
  const rows = [table.header.map(plain), ...table.rows.map((row) => row.map(plain))];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => [...(row[column] ?? '')].length))) ?? [];
  const line = (row: string[]): string => row.map((cell, column) => cell + ' '.repeat((widths[column] ?? 0) - [...cell].length)).join(' │ ').trimEnd();
  const [header, ...body] = rows;
  return [line(header ?? []), widths.map((width) => '─'.repeat(width)).join('─┼─'), ...body.map(line)].join('\n');
}

function renderInline(out: Builder, tokens: readonly Token[] | undefined): void {
  for (const token of tokens ?? []) renderInlineToken(out, token);
}

function renderInlineToken(out: Builder, token: Token): void {
  switch (token.type) {
    case 'strong':
      out.wrap({ type: 'bold' }, () => renderInline(out, (token as Tokens.Strong).tokens));
      return;
    case 'em':
      out.wrap({ type: 'italic' }, () => renderInline(out, (token as Tokens.Em).tokens));
      return;
    case 'del':
      out.wrap({ type: 'strikethrough' }, () => renderInline(out, (token as Tokens.Del).tokens));
      return;
    case 'codespan':
      out.wrap({ type: 'code' }, () => out.append((token as Tokens.Codespan).text, true));
      return;
    case 'br':
      out.append('\n');
      return;
    case 'link': {
      const link = token as Tokens.Link;
      renderLink(out, decodeHTMLStrict(link.href), () => renderInline(out, link.tokens));
      return;
    }
    case 'image': {
      const image = token as Tokens.Image;
      const href = decodeHTMLStrict(image.href);
      renderLink(out, href, () => out.append(image.text !== '' ? decodeHTMLStrict(image.text) : href));
      return;
    }
    case 'escape':
      out.append((token as Tokens.Escape).text, true);
      return;
    case 'text': {
      const text = token as Tokens.Text;
      if (text.tokens) renderInline(out, text.tokens);
      // marked decodes only numeric references in `text`; the source decodes like CommonMark (named ones too).
      // Text inside raw HTML blocks (`escaped`) is shown as typed.
      else out.append(text.escaped ? text.raw : decodeHTMLStrict(text.raw), text.escaped);
      return;
    }
    default:
      // Raw HTML from the model is shown as typed, never interpreted.
      out.append(token.raw, true);
  }
}

/**
 * A link: its label, linked when Telegram will take the URL. Telegram links only http, https and tg (it turns any
 * other href into "http://<href>") and drops a link whose host it does not accept; such a link is shown as
 * "label (destination)" so the address is not lost (mailto: shows the bare address); so is every link where nothing
 * can be linked (a table cell). A label that shows nothing becomes the destination itself.
 */
function renderLink(out: Builder, href: string, label: () => void): void {
  const url = out.linksAsText ? undefined : telegramLinkUrl(href);
  const destination = href.trim().replace(/^mailto:/i, '');
  const body = (): void => {
    const start = out.text.length;
    label();
    const shown = out.text.slice(start);
    if (/^[\s\u200b-\u200d\ufeff]*$/.test(shown)) {
      out.truncate(start);
      out.append(destination);
    } else if (url === undefined && destination !== '' && shown.trim() !== destination) {
      out.append(` (${destination})`);
    }
  };
  if (url !== undefined) out.wrap({ type: 'text_link', url }, body);
  else body();
}

const HOST = /^(?:\[[0-9a-f:.]+\]|[a-z0-9_-]+(?:\.[a-z0-9_-]+)+)$/i;
const TG_LINK = /^tg:\/\/[a-z0-9_]+(?:[/?#][\x21-\x7e]*)?$/i;

/** The URL to link `href` to, or undefined when Telegram would not link it (checked against TDLib's check_link). */
export function telegramLinkUrl(href: string): string | undefined {
  const value = href.trim();
  if (TG_LINK.test(value)) return value;
  if (!/^https?:\/\//i.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  // TDLib wants a host with a dot in it (no "localhost", no bare names) or an IP address.
  return HOST.test(url.hostname) ? url.href : undefined;
}
