import { describe, expect, it } from 'vitest';
import { markdownToTelegramHtml, visibleLength } from '../../src/channels/telegram-format.js';
import { parseHtml } from '../fakes/telegram-server.js';

describe('markdownToTelegramHtml', () => {
  it('renders emphasis, code and links as Telegram tags', () => {
    const html = markdownToTelegramHtml('Some **bold**, *italic*, ~~gone~~, `a<b` and [a link](https://example.org/?a=1&b=2).');
    expect(html).toBe('Some <b>bold</b>, <i>italic</i>, <s>gone</s>, <code>a&lt;b</code> and <a href="https://example.org/?a=1&amp;b=2">a link</a>.');
  });

  it('renders a fenced block as pre/code with its language, escaped', () => {
    expect(markdownToTelegramHtml('```js\nif (a < b && c) {}\n```')).toBe('<pre><code class="language-js">if (a &lt; b &amp;&amp; c) {}</code></pre>');
  });

  it('shows raw HTML from the model as text', () => {
    expect(markdownToTelegramHtml('click <script>alert(1)</script> & go')).toBe('click &lt;script&gt;alert(1)&lt;/script&gt; &amp; go');
  });

  it('turns headings, lists, quotes and tables into what Telegram can show', () => {
    const html = markdownToTelegramHtml('# Title\n\n- one\n- two\n\n1. first\n2. second\n\n> said\n\n| a | b |\n|---|---|\n| 1 | 2 |');
    expect(html).toContain('<b>Title</b>');
    expect(html).toContain('• one\n• two');
    expect(html).toContain('1. first\n2. second');
    expect(html).toContain('<blockquote>said</blockquote>');
    expect(html).toContain('<pre>| a | b |');
  });

  it('drops links with schemes Telegram would refuse, keeping the text', () => {
    expect(markdownToTelegramHtml('[x](javascript:alert(1))')).toBe('x');
  });

  it('produces HTML that Telegram parses, and no more visible text than the source', () => {
    const samples = [
      '**a** _b_ `c` ~~d~~ [e](http://f) <g> & h',
      '- [ ] task\n- [x] done\n  - nested *em*\n\n---\n\n> quote with **bold**',
      '```\nunclosed fence & <tags>',
      'Text with a \\*literal\\* star and 5 > 3 &amp; more',
      '![image](https://example.org/i.png) and ![local](file.png)',
    ];
    for (const sample of samples) {
      const html = markdownToTelegramHtml(sample);
      const parsed = parseHtml(html);
      expect(parsed.text.length).toBe(visibleLength(html));
      expect(visibleLength(html)).toBeLessThanOrEqual(sample.length);
    }
  });
});
