import { describe, expect, it } from 'vitest';
import { formattedToHtml, markdownToFormatted, sliceFormatted, telegramLinkUrl, trimFormatted } from '../../src/channels/telegram-format.js';
import { renderTelegramParts } from '../../src/channels/telegram-text.js';
import { parseHtml } from '../fakes/telegram-server.js';

const html = (markdown: string): string => formattedToHtml(markdownToFormatted(markdown));

describe('markdownToFormatted and formattedToHtml', () => {
  it('renders emphasis, code and links as Telegram tags', () => {
    expect(html('Some **bold**, *italic*, ~~gone~~, `a<b` and [a link](https://example.org/?a=1&b=2).')).toBe(
      'Some <b>bold</b>, <i>italic</i>, <s>gone</s>, <code>a&lt;b</code> and <a href="https://example.org/?a=1&amp;b=2">a link</a>.',
    );
  });

  it('renders a fenced block as pre/code with its language, every "&" escaped', () => {
    expect(html('```js\nif (a < b && c) {} // &amp;\n```')).toBe('<pre><code class="language-js">if (a &lt; b &amp;&amp; c) {} // &amp;amp;</code></pre>');
  });

  it('shows raw HTML from the model as text', () => {
    expect(html('click <script>alert(1)</script> & go')).toBe('click &lt;script&gt;alert(1)&lt;/script&gt; &amp; go');
  });

  it('turns headings, lists, quotes and tables into what Telegram can show', () => {
    const text = markdownToFormatted('# Title\n\n- one\n- two\n\n1. first\n2. second\n\n> said\n\n| a | b |\n|---|---|\n| 1 | 2 |').text;
    expect(text).toBe('Title\n\n• one\n• two\n\n1. first\n2. second\n\nsaid\n\na │ b\n──┼──\n1 │ 2');
  });

  it('keeps a quote inside a quote within the one quote Telegram allows', () => {
    expect(markdownToFormatted('> outer\n> > inner').entities).toEqual([{ type: 'blockquote', offset: 0, length: 12 }]);
  });

  it('links only URLs Telegram accepts', () => {
    expect(telegramLinkUrl('https://example.org/a b')).toBe('https://example.org/a%20b');
    expect(telegramLinkUrl('https://例え.jp/')).toBe('https://xn--r8jz45g.jp/');
    expect(telegramLinkUrl('tg://resolve?domain=x')).toBe('tg://resolve?domain=x');
    for (const href of ['mailto:a@b.co', 'javascript:x', 'http://localhost/', 'https://example', 'ftp://a.org', 'tg://x y', '']) expect(telegramLinkUrl(href)).toBeUndefined();
  });

  it('slices and trims like Telegram: entities clipped, leading blanks kept inside the first entity', () => {
    const formatted = markdownToFormatted('**bold** and `code`');
    expect(sliceFormatted(formatted, 2, 11)).toEqual({ text: 'ld and co', entities: [{ type: 'bold', offset: 0, length: 2 }, { type: 'code', offset: 7, length: 2 }] });
    expect(trimFormatted({ text: '\n  x  \n', entities: [] }).text).toBe('x');
    expect(trimFormatted({ text: '\n  x  \n', entities: [{ type: 'pre', offset: 1, length: 4 }] })).toEqual({ text: '  x', entities: [{ type: 'pre', offset: 0, length: 3 }] });
  });

  it('produces parts whose HTML the fake Bot API (TDLib) reads back as the same text', () => {
    for (const sample of ['**a** _b_ `c` ~~d~~ [e](http://f.org) <g> & h', '- [ ] task\n- [x] done\n  - nested *em*\n\n---\n\n> quote with **bold**', '```\nunclosed fence & <tags>']) {
      for (const part of renderTelegramParts(sample)) expect(parseHtml(part.html).text).toBe(part.text);
    }
  });
});
