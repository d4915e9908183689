import { Marked, type Tokens } from 'marked';
import { escapeHtml, trusted, type Html } from './html.js';

/**
 * Markdown to HTML for the console (answers, memory files), safe whatever the text says: raw HTML is shown as
 * text, links keep only http(s), mailto and in-page targets, and images become links (the page loads nothing
 * from elsewhere; the Content-Security-Policy would refuse it anyway).
 */
const marked = new Marked({
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
});

export function renderMarkdown(text: string): Html {
  return trusted(marked.parse(text, { async: false }));
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
