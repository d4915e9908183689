import { Lexer, type Token, type Tokens } from 'marked';

/**
 * Renders the model's Markdown as Telegram HTML (the subset Telegram accepts: b, i, s, code, pre, a,
 * blockquote). Everything else becomes plain text: headings bold, lists with bullets, tables in a pre
 * block, raw HTML escaped. Contract: never throws; the visible text is never longer than the Markdown
 * source, so a part split to 4096 source characters fits Telegram's limit once rendered.
 */
export function markdownToTelegramHtml(markdown: string): string {
  try {
    return renderBlocks(Lexer.lex(markdown), '').replace(/\n{3,}/g, '\n\n').trim();
  } catch {
    return escapeHtml(markdown);
  }
}

/** The text Telegram shows for an HTML message (tags removed, entities decoded): what its limit counts. */
export function visibleLength(html: string): number {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(lt|gt|amp|quot|#\d+|#x[0-9a-f]+);/gi, '_').length;
}

export function escapeHtml(text: string): string {
  return text.replace(/&(?!(?:lt|gt|amp|quot|#\d{1,7}|#x[0-9a-f]{1,6});)/gi, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttribute(text: string): string {
  return escapeHtml(text).replace(/"/g, '&quot;');
}

function renderBlocks(tokens: readonly Token[], indent: string): string {
  const out: string[] = [];
  for (const token of tokens) {
    const block = renderBlock(token, indent);
    if (block !== undefined) out.push(block);
  }
  return out.join('\n\n');
}

function renderBlock(token: Token, indent: string): string | undefined {
  switch (token.type) {
    case 'space':
    case 'def':
      return undefined;
    case 'code': {
      const code = token as Tokens.Code;
      const language = /^[\w#+.-]{1,32}$/.test(code.lang ?? '') ? code.lang : undefined;
      const body = escapeHtml(code.text);
      return language ? `<pre><code class="language-${language}">${body}</code></pre>` : `<pre>${body}</pre>`;
    }
    case 'heading':
      return `<b>${renderInline((token as Tokens.Heading).tokens)}</b>`;
    case 'hr':
      return '———';
    case 'blockquote':
      return `<blockquote>${renderBlocks((token as Tokens.Blockquote).tokens, '')}</blockquote>`;
    case 'list':
      return renderList(token as Tokens.List, indent);
    case 'paragraph':
      return renderInline((token as Tokens.Paragraph).tokens);
    case 'table':
      return `<pre>${escapeHtml(token.raw.trim())}</pre>`;
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? renderInline(text.tokens) : escapeHtml(text.text);
    }
    default:
      return escapeHtml(token.raw.trim());
  }
}

function renderList(list: Tokens.List, indent: string): string {
  const start = typeof list.start === 'number' ? list.start : 1;
  const items = list.items.map((item, index) => {
    const bullet = list.ordered ? `${start + index}. ` : '• ';
    const check = item.task ? (item.checked ? '☑ ' : '☐ ') : '';
    const nested = indent + '  ';
    const body = item.tokens
      .filter((child) => child.type !== 'checkbox')
      .map((child) => (child.type === 'list' ? `\n${renderList(child as Tokens.List, nested)}` : renderBlock(child, nested) ?? ''))
      .join('')
      .trim();
    return `${indent}${bullet}${check}${body}`;
  });
  return items.join(list.loose ? '\n\n' : '\n');
}

function renderInline(tokens: readonly Token[] | undefined): string {
  if (!tokens) return '';
  let out = '';
  for (const token of tokens) out += renderInlineToken(token);
  return out;
}

function renderInlineToken(token: Token): string {
  switch (token.type) {
    case 'strong':
      return `<b>${renderInline((token as Tokens.Strong).tokens)}</b>`;
    case 'em':
      return `<i>${renderInline((token as Tokens.Em).tokens)}</i>`;
    case 'del':
      return `<s>${renderInline((token as Tokens.Del).tokens)}</s>`;
    case 'codespan':
      return `<code>${escapeHtml((token as Tokens.Codespan).text)}</code>`;
    case 'br':
      return '\n';
    case 'link': {
      const link = token as Tokens.Link;
      const label = renderInline(link.tokens);
      return /^(https?:|tg:|mailto:)/i.test(link.href) ? `<a href="${escapeAttribute(link.href)}">${label}</a>` : label;
    }
    case 'image': {
      const image = token as Tokens.Image;
      return /^https?:/i.test(image.href) ? `<a href="${escapeAttribute(image.href)}">${escapeHtml(image.text || image.href)}</a>` : escapeHtml(image.text);
    }
    case 'escape':
      return escapeHtml((token as Tokens.Escape).text);
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? renderInline(text.tokens) : escapeHtml(text.text);
    }
    default:
      // Raw HTML from the model is shown as typed, never interpreted.
      return escapeHtml(token.raw);
  }
}
