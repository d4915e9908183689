import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cleanForTelegram } from '../../src/channels/telegram-clean.js';
import type { TelegramEntity } from '../../src/channels/telegram-format.js';
import { markdownToFormatted } from '../../src/channels/telegram-format.js';
import { renderTelegramParts, TELEGRAM_TEXT_LIMIT, type TelegramPart } from '../../src/channels/telegram-text.js';
import { renderOutside } from '../../src/delivery/outside.js';
import { tdCleanPlain, tdParseHtml, type TdEntity } from '../helpers/tdlib.js';

// Every assertion here is made against Telegram's own parser (TDLib), not against a reimplementation.

const TD_TYPES: Record<string, TelegramEntity['type']> = {
  textEntityTypeBold: 'bold', textEntityTypeItalic: 'italic', textEntityTypeStrikethrough: 'strikethrough',
  textEntityTypeCode: 'code', textEntityTypePre: 'pre', textEntityTypePreCode: 'pre', textEntityTypeTextUrl: 'text_link',
  textEntityTypeMentionName: 'text_link', textEntityTypeBlockQuote: 'blockquote',
};

interface Key { type: string; offset: number; length: number; extra: string }
/** Entities as "type@offset+length[:language]", in offset order (longer first), for comparison. */
function keys(entities: Key[]): string[] {
  return entities
    .sort((a, b) => a.offset - b.offset || b.length - a.length || a.type.localeCompare(b.type))
    .map((entity) => `${entity.type}@${entity.offset}+${entity.length}${entity.extra}`);
}
const ours = (entities: readonly TelegramEntity[]): string[] =>
  keys(entities.map((entity) => ({ ...entity, extra: entity.type === 'pre' && entity.language ? `:${entity.language}` : '' })));
const theirs = (entities: readonly TdEntity[]): string[] =>
  keys(entities.map((entity) => ({ type: TD_TYPES[entity.type._] ?? entity.type._, offset: entity.offset, length: entity.length, extra: entity.type.language ? `:${entity.type.language}` : '' })));

/** Telegram parses the part, shows exactly its text with the entities meant, and counts it within the limit. */
function expectTelegramShows(part: TelegramPart, limit: number): void {
  const parsed = tdParseHtml(part.html);
  if (!parsed.success) throw new Error(`TDLib refused ${JSON.stringify(part.html)}: ${parsed.error}`);
  expect(parsed.value.text).toBe(part.text);
  expect(part.text.length).toBeGreaterThan(0);
  expect(part.text.length).toBeLessThanOrEqual(limit);
  // Telegram trims trailing spaces and line breaks before it counts: a part must not rely on them.
  expect(part.text).toBe(part.text.replace(/[ \n]+$/, ''));
}

function expectEntities(markdown: string): void {
  const formatted = markdownToFormatted(markdown);
  const [part] = renderTelegramParts(markdown, 1_000_000);
  if (!part) return;
  const parsed = tdParseHtml(part.html);
  if (!parsed.success) throw new Error(parsed.error);
  expect(theirs(parsed.value.entities)).toEqual(ours(formatted.entities));
}

/** The single part Telegram shows for `markdown`. */
function shown(markdown: string): { text: string; entities: string[] } {
  const parts = renderTelegramParts(markdown);
  expect(parts).toHaveLength(1);
  const part = parts[0] as TelegramPart;
  expectTelegramShows(part, TELEGRAM_TEXT_LIMIT);
  const parsed = tdParseHtml(part.html);
  return { text: part.text, entities: parsed.success ? theirs(parsed.value.entities) : [] };
}

describe('Telegram text, checked with TDLib: hand-written cases', () => {
  it('keeps HTML entities inside inline code literal', () => {
    expect(shown('use `&amp;` and `&lt;b&gt;`')).toEqual({ text: 'use &amp; and &lt;b&gt;', entities: ['code@4+5', 'code@14+9'] });
  });

  it('keeps HTML and XML inside a fenced block literal, with its language', () => {
    const markdown = '```xml\n<tag a="1">&lt;tag&gt; &amp;amp; &#65;</tag>\n```';
    expect(shown(markdown)).toEqual({ text: '<tag a="1">&lt;tag&gt; &amp;amp; &#65;</tag>', entities: ['pre@0+44:xml'] });
  });

  it('decodes character references outside code, as CommonMark does', () => {
    expect(shown('Tom &amp; Jerry &copy; 2026 &#128512; &#x41; &lt;b&gt; AT&T &nosuch;').text).toBe('Tom & Jerry © 2026 😀 A <b> AT&T &nosuch;');
  });

  it('shows raw HTML as typed', () => {
    expect(shown('click <script>alert(1)</script> & <b>go</b>').text).toBe('click <script>alert(1)</script> & <b>go</b>');
    expect(shown('<div>\n<p>block &amp; html</p>\n</div>').text).toBe('<div>\n<p>block &amp; html</p>\n</div>');
  });

  it('links only http, https and tg; other schemes keep their label as text', () => {
    expect(shown('[site](https://example.org/?a=1&b=2) [app](tg://resolve?domain=familiar)').entities).toEqual(['text_link@0+4', 'text_link@5+3']);
    const unlinked = new Map([
      ['[mail me](mailto:joe@example.org)', 'mail me (joe@example.org)'], ['[x](javascript:alert(1))', 'x (javascript:alert(1))'],
      ['[f](ftp://example.org/f)', 'f (ftp://example.org/f)'], ['[r](relative/path)', 'r (relative/path)'],
      ['[local](http://localhost:8080/x)', 'local (http://localhost:8080/x)'], ['[https://example.org](https://example)', 'https://example.org (https://example)'],
    ]);
    for (const [markdown, text] of unlinked) expect(shown(markdown)).toEqual({ text, entities: [] });
  });

  it('shows auto-linked e-mail addresses as text, never as http://mailto: links', () => {
    expect(shown('write to joe@example.org or <joe@example.org>')).toEqual({ text: 'write to joe@example.org or joe@example.org', entities: [] });
  });

  it('gives a link with an empty label its URL as label instead of an empty message', () => {
    expect(shown('[](https://example.org/page)')).toEqual({ text: 'https://example.org/page', entities: ['text_link@0+24'] });
    expect(shown('[](mailto:joe@example.org)').text).toBe('joe@example.org');
    expect(shown('![](https://example.org/cat.png)').text).toBe('https://example.org/cat.png');
    expect(shown('[` `](https://example.org)').text).toBe('https://example.org');
  });

  it('never sends an empty message for Markdown that renders to nothing', () => {
    for (const markdown of ['[]()', '[x]: https://example.org', '```\n```', '<!-- -->']) {
      const parts = renderTelegramParts(markdown);
      expect(parts.length).toBeGreaterThan(0);
      for (const part of parts) expectTelegramShows(part, TELEGRAM_TEXT_LIMIT);
    }
  });

  it('handles nested and broken emphasis', () => {
    expect(shown('***both*** and **bold *italic* bold**').entities).toEqual(['bold@0+4', 'italic@0+4', 'bold@9+16', 'italic@14+6']);
    for (const markdown of ['**unclosed bold', '*a **b* c**', '_a **b_ c**', '~~strike *em~~ x*', '** **', '*', '__init__.py and snake_case_name']) {
      const parts = renderTelegramParts(markdown);
      for (const part of parts) expectTelegramShows(part, TELEGRAM_TEXT_LIMIT);
    }
    expect(shown('__init__.py and snake_case_name').text).toBe('init.py and snake_case_name');
  });

  it('renders lists, numbered from their start, and tasks', () => {
    expect(shown('3. three\n4. four\n\n- [ ] todo\n- [x] done\n  - nested').text).toBe('3. three\n4. four\n\n• ☐ todo\n• ☑ done\n  • nested');
  });

  it('renders a table as aligned text in a pre block', () => {
    expect(shown('| a | **b** |\n|---|---|\n| 1 | `x&y` |').text).toBe('a │ b\n──┼────\n1 │ x&y');
  });

  it('keeps the address of a link inside a table cell visible, since a pre block cannot link', () => {
    const table = shown('| site | note |\n|---|---|\n| [l](https://x.org) | [https://y.org](https://y.org) and [](https://z.org/p) |');
    const [first, second] = ['l (https://x.org)', 'https://y.org and https://z.org/p'];
    expect(table.text).toBe(`${'site'.padEnd(first.length)} │ note\n${'─'.repeat(first.length)}─┼─${'─'.repeat(second.length)}\n${first} │ ${second}`);
    expect(table.entities).toEqual([`pre@0+${table.text.length}`]);
  });

  it('keeps a link inert in a table made from outside content', () => {
    const table = shown(renderOutside('| site |\n|---|\n| [l](https://evil.example/x) |', ['http:https://evil.example']));
    expect(table.text.split('\n').at(-1)).toBe('l (hxxps://evil[.]example/x)');
    expect(table.entities.filter((entity) => entity.startsWith('text_link'))).toEqual([]);
  });

  it('turns controls, tabs, separators and bidi overrides into what Telegram shows', () => {
    expect(shown('a\u0001b\u2028c\u202ed a\u030a').text).toBe('a b\ncd å');
    expect(shown('```\n\tindented\n```').text).toBe('    indented');
  });

  it('replaces a lone surrogate instead of sending invalid UTF-8', () => {
    expect(shown('bad \ud800 half').text).toBe('bad \ufffd half');
  });

  it('cleans text exactly as Telegram does', () => {
    fc.assert(fc.property(
      fc.array(fc.constantFrom('a', 'é', ' ', '\n', '\t', '\u0000', '\u0001', '\u000b', '\u001f', '\u007f', '\u2028', '\u2029', '\u202a', '\u202e', '\u200b', '😀', 'x\u0333', 'y\u033f', 'e\u0301'), { maxLength: 40 }),
      (pieces) => {
        const text = pieces.join('');
        const cleaned = cleanForTelegram(text, false);
        // TDLib answers an empty text for one made only of spaces and line breaks: nothing to compare.
        fc.pre(/[^ \n]/.test(cleaned));
        const parsed = tdCleanPlain(cleaned);
        if (!parsed.success) throw new Error(parsed.error);
        // What we send is already what Telegram keeps: its own cleaning changes nothing more.
        expect(parsed.value.text).toBe(cleaned);
      },
    ), { numRuns: 500 });
  });

  it('counts numeric character references and expanded list numbers so no part is too long', () => {
    const references = '&#128512;'.repeat(3000);
    const numbered = Array.from({ length: 1500 }, () => '1. x').join('\n');
    for (const markdown of [references, numbered, `${numbered}\n\n${references}`]) {
      const parts = renderTelegramParts(markdown);
      expect(parts.length).toBeGreaterThan(1);
      for (const part of parts) expectTelegramShows(part, TELEGRAM_TEXT_LIMIT);
    }
    const texts = renderTelegramParts(numbered).map((part) => part.text).join('\n');
    expect(texts.split('\n').at(-1)).toBe('1500. x');
  });

  it('never cuts an emoji, a family emoji or an accented letter at a split point', () => {
    const family = '👨‍👩‍👧‍👦';
    for (const unit of ['😀', family, 'e\u0301', '🇫🇷', 'a']) {
      for (const offset of [0, 1, 2, 3]) {
        const markdown = 'x'.repeat(offset) + unit.repeat(Math.ceil(9000 / unit.length));
        const parts = renderTelegramParts(markdown);
        for (const part of parts) expectTelegramShows(part, TELEGRAM_TEXT_LIMIT);
        expect(parts.map((part) => part.text).join('')).toBe(cleanForTelegram(markdown, false));
        // Every cut falls between two whole units (after the x's), where the graphemes meet.
        let position = 0;
        for (const part of parts.slice(0, -1)) {
          position += part.text.length;
          if (position > offset) expect((position - offset) % unit.length, `cut at ${position}`).toBe(0);
        }
      }
    }
  });

  it('cuts a long code block into parts that each keep the block and its language', () => {
    const code = Array.from({ length: 400 }, (_, index) => `print("line ${index} <&>")`).join('\n');
    const parts = renderTelegramParts(`Intro\n\n\`\`\`python\n${code}\n\`\`\`\n\nDone.`);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expectTelegramShows(part, TELEGRAM_TEXT_LIMIT);
    const lines = parts.flatMap((part) => part.text.split('\n')).filter((line) => line.startsWith('print('));
    expect(lines).toEqual(code.split('\n'));
    for (const part of parts.slice(1, -1)) expect(part.html.startsWith('<pre><code class="language-python">')).toBe(true);
  });

  it('sends the entities it means (TDLib reads back the same entities)', () => {
    for (const markdown of ['**a** _b_ `c` ~~d~~ [e](http://f.org) > q', '> quote **bold** `code`\n> > inner', '# Head\n\n```js\nx\n```', '[**bold link**](https://example.org)']) {
      expectEntities(markdown);
    }
  });
});

// ---- Generated documents whose meaning is known: each is built from a small tree, and the tree says what
// Telegram must show. The Markdown escapes every ASCII punctuation mark of plain words, as CommonMark allows.

type Inline = { kind: 'word'; text: string } | { kind: 'ref'; source: string; shows: string } | { kind: 'bold' | 'italic' | 'strike'; words: string[] }
  | { kind: 'code'; text: string } | { kind: 'link'; words: string[]; url: string };
type Block = { kind: 'paragraph' | 'heading'; inlines: Inline[] } | { kind: 'fence'; language: string; lines: string[] } | { kind: 'list'; items: Inline[][] };

const escapeWord = (word: string): string => word.replace(/[!-/:-@[-`{-~]/g, (mark) => `\\${mark}`);
const wordArb = fc.string({ unit: fc.constantFrom('a', 'b', 'Z', '7', 'é', 'ß', '中', '😀', '👍🏽', '*', '_', '&', '<', '>', '#', '`', '[', ']', '\\', '|', '~', '.', '-', '!', '@', ':', '/', '"', "'"), minLength: 1, maxLength: 12 });
const codeTextArb = fc.string({ unit: fc.constantFrom('a', '1', ' ', '&', 'amp;', '&lt;', '<', '>', '<b>', '</b>', '&#65;', '"', '*', '_', '\\', 'é', '😀'), minLength: 1, maxLength: 16 })
  .map((text) => text.trim()).filter((text) => text !== '');
const refArb = fc.constantFrom(
  { source: '&amp;', shows: '&' }, { source: '&lt;', shows: '<' }, { source: '&gt;', shows: '>' }, { source: '&quot;', shows: '"' },
  { source: '&copy;', shows: '©' }, { source: '&#128512;', shows: '😀' }, { source: '&#x1F44D;', shows: '👍' }, { source: '&#65;', shows: 'A' },
  { source: '&amp;amp;', shows: '&amp;' },
);
const inlineArb: fc.Arbitrary<Inline> = fc.oneof(
  { weight: 5, arbitrary: wordArb.map((text) => ({ kind: 'word' as const, text })) },
  refArb.map((ref) => ({ kind: 'ref' as const, ...ref })),
  fc.record({ kind: fc.constantFrom('bold' as const, 'italic' as const, 'strike' as const), words: fc.array(wordArb.filter((word) => /^[a-zé中]/i.test(word)), { minLength: 1, maxLength: 4 }) }),
  codeTextArb.map((text) => ({ kind: 'code' as const, text })),
  fc.record({ kind: fc.constant('link' as const), words: fc.array(wordArb, { minLength: 1, maxLength: 3 }), url: fc.constantFrom('https://example.org/a?b=1&c=2', 'http://example.org', 'tg://resolve?domain=x', 'mailto:joe@example.org', 'ftp://example.org/f') }),
);
const blockArb: fc.Arbitrary<Block> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('paragraph' as const), inlines: fc.array(inlineArb, { minLength: 1, maxLength: 12 }) }) },
  fc.record({ kind: fc.constant('heading' as const), inlines: fc.array(inlineArb, { minLength: 1, maxLength: 4 }) }),
  fc.record({ kind: fc.constant('fence' as const), language: fc.constantFrom('', 'js', 'xml', 'c++'), lines: fc.array(codeTextArb, { minLength: 1, maxLength: 6 }) }),
  fc.record({ kind: fc.constant('list' as const), items: fc.array(fc.array(inlineArb, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 }) }),
);

function inlineMarkdown(inline: Inline): string {
  switch (inline.kind) {
    case 'word': return escapeWord(inline.text);
    case 'ref': return inline.source;
    case 'bold': return `**${inline.words.map(escapeWord).join(' ')}**`;
    case 'italic': return `*${inline.words.map(escapeWord).join(' ')}*`;
    case 'strike': return `~~${inline.words.map(escapeWord).join(' ')}~~`;
    case 'code': return `\`${inline.text}\``;
    case 'link': return `[${inline.words.map(escapeWord).join(' ')}](${inline.url})`;
  }
}
function inlineShows(inline: Inline): string {
  switch (inline.kind) {
    case 'word': case 'code': return inline.text;
    case 'ref': return inline.shows;
    case 'link': return /^(https?|tg):/.test(inline.url) ? inline.words.join(' ') : `${inline.words.join(' ')} (${inline.url.replace(/^mailto:/, '')})`;
    default: return inline.words.join(' ');
  }
}
const markdownOf = (blocks: Block[]): string => blocks.map((block, index) => {
  switch (block.kind) {
    case 'paragraph': return block.inlines.map(inlineMarkdown).join(' ');
    case 'heading': return `## ${block.inlines.map(inlineMarkdown).join(' ')}`;
    case 'fence': return `\`\`\`${block.language}\n${block.lines.join('\n')}\n\`\`\``;
    // Another bullet character starts a new list (two lists with the same one would merge into one).
    case 'list': return block.items.map((item) => `${index % 2 === 0 ? '-' : '+'} ${item.map(inlineMarkdown).join(' ')}`).join('\n');
  }
}).join('\n\n');
const meaningOf = (blocks: Block[]): string => blocks.map((block) => {
  switch (block.kind) {
    case 'paragraph': case 'heading': return block.inlines.map(inlineShows).join(' ');
    case 'fence': return block.lines.join('\n');
    case 'list': return block.items.map((item) => `• ${item.map(inlineShows).join(' ')}`).join('\n');
  }
}).join('\n\n');

describe('Telegram text, checked with TDLib: generated corpora', () => {
  it('shows exactly what generated documents mean, in parts Telegram accepts', () => {
    fc.assert(fc.property(fc.array(blockArb, { minLength: 1, maxLength: 8 }), fc.integer({ min: 64, max: 600 }), (blocks, limit) => {
      const markdown = markdownOf(blocks);
      const meant = meaningOf(blocks);
      const whole = renderTelegramParts(markdown, 1_000_000);
      expect(whole.map((part) => part.text)).toEqual([meant]);
      for (const part of whole) expectTelegramShows(part, 1_000_000);
      const parts = renderTelegramParts(markdown, limit);
      for (const part of parts) expectTelegramShows(part, limit);
      // Cut points drop only the spaces and line breaks they replace.
      expect(parts.map((part) => part.text).join('').replace(/[ \n]/g, '')).toBe(meant.replace(/[ \n]/g, ''));
    }), { numRuns: 1500 });
  });

  const hostile = fc.constantFrom(
    '**', '*', '_', '__', '~~', '~', '`', '``', '```', '```js\n', '~~~\n', '\n', '\n\n', '[', ']', '(', ')', '](https://example.org/x)', '](mailto:a@b.co)',
    '](javascript:x)', ']()', '![', '<', '>', '<b>', '</b>', '<i>x</i>', '<pre>', '<code class="language-x">', '<!--', '-->', '<a href="x">', '&', '&amp;', '&lt;',
    '&gt;', '&quot;', '&#128512;', '&#x1F600;', '&#0;', '&#xD800;', '&#1114112;', '&copy;', '&nosuch;', '&#', '\\', '# ', '### ', '- ', '* ', '+ ', '1. ', '99999. ',
    '1) ', '> ', '>> ', '|', '| a | b |\n|---|---|\n| 1 | 2 |\n', '---\n', '===\n', '    code\n', '- [ ] ', '- [x] ', '😀', '👨‍👩‍👧', '🇫🇷', 'e\u0301', 'a\u030a', '\t',
    '\r', '\r\n', '\u2028', '\u202e', '\u0000', '\u0007', '\u200b', '\ufeff', '\ud800', '\udc00', 'x', 'word ', ' ', '  \n', 'https://example.org', 'www.example.org',
    'joe@example.org', '<https://example.org>', '<joe@example.org>', '@user', '#tag', '/start', '$USD', 'tg://user?id=1', '[^1]', '\\*', '\\`', '\\&amp;',
  );

  it('keeps every part of hostile Markdown parseable, true to its text, and within the limit', () => {
    fc.assert(fc.property(fc.array(hostile, { maxLength: 120 }), fc.integer({ min: 64, max: 4096 }), (pieces, limit) => {
      const markdown = pieces.join('');
      const parts = renderTelegramParts(markdown, limit);
      // Something visible is never dropped (a text of control characters alone shows nothing on Telegram either).
      if (/[^ \n]/.test(cleanForTelegram(markdown, true))) expect(parts.length).toBeGreaterThan(0);
      for (const part of parts) expectTelegramShows(part, limit);
      const formatted = markdownToFormatted(markdown);
      const [whole] = renderTelegramParts(markdown, 1_000_000);
      if (whole && formatted.text !== '') {
        const parsed = tdParseHtml(whole.html);
        if (parsed.success) expect(theirs(parsed.value.entities)).toEqual(ours(formatted.entities));
      }
    }), { numRuns: 3000 });
  });

  it('splits long hostile documents into parts of at most 4096 UTF-16 units that Telegram accepts', () => {
    fc.assert(fc.property(fc.array(hostile, { minLength: 2000, maxLength: 4000 }), (pieces) => {
      for (const part of renderTelegramParts(pieces.join(''))) expectTelegramShows(part, TELEGRAM_TEXT_LIMIT);
    }), { numRuns: 40 });
  });
});
