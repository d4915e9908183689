import type { Marked, Tokens } from 'marked';
import { requireOnUse } from './folded.js';
import { escapeHtml } from './html-escape.js';

/**
 * Markdown to HTML, safe whatever the text says: raw HTML is shown as text, links keep only http(s), mailto and
 * in-page targets, and images become links (nothing is loaded from elsewhere). The console shows answers and
 * memory files with it; mail the model writes in Markdown is sent with it as the HTML part. marked is loaded at the
 * first text rendered, not with every start or command that builds the console, Matrix or mail.
 */
let made: Marked | undefined;
const marked = (): Marked => (made ??= new (requireOnUse<{ Marked: typeof Marked }>('marked').Marked)({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(text);
    },
    link(this: { parser: { parseInline(tokens: Tokens.Link['tokens']): string } }, token: Tokens.Link) {
      const text = this.parser.parseInline(token.tokens);
      const href = safeHref(token.href);
      if (!href) return text;
      return `<a href="${escapeHtml(href)}" rel="noopener noreferrer nofollow" target="_blank">${text}</a>`;
    },
    image(token: Tokens.Image) {
      const href = safeHref(token.href);
      const label = `🖼 ${token.text || 'image'}`;
      return href ? `<a href="${escapeHtml(href)}" rel="noopener noreferrer nofollow" target="_blank">${escapeHtml(label)}</a>` : escapeHtml(label);
    },
  },
}));

export function markdownToHtml(text: string): string {
  return marked().parse(text, { async: false });
}

/**
 * The text as HTML when it uses Markdown beyond plain paragraphs (emphasis, links, lists, headings, code, tables,
 * quotes; raw HTML tags do not count), else undefined: what mail written by the model sends as its HTML part. The
 * text is read once, and the same tokens are rendered.
 */
export function markdownHtmlIfFormatted(text: string): string | undefined {
  const plain = new Set(['paragraph', 'space', 'text', 'escape', 'br', 'html']);
  const walk = (tokens: readonly Tokens.Generic[]): boolean => tokens.some((token) => !plain.has(token.type) || walk((token.tokens ?? []) as Tokens.Generic[]));
  const tokens = marked().lexer(text);
  return walk(tokens as unknown as Tokens.Generic[]) ? marked().parser(tokens) : undefined;
}

function safeHref(href: string): string | undefined {
  const value = href.trim();
  if (value.startsWith('#')) return value;
  try {
    const url = new URL(value);
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}
