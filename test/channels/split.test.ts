import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitMessage } from '../../src/channels/split.js';

/** Counts fence lines; a part renders on its own only when they pair up. */
function fencesBalanced(part: string): boolean {
  return part.split('\n').filter((line) => /^ {0,3}```/.test(line)).length % 2 === 0;
}

describe('splitMessage', () => {
  it('keeps a short message whole', () => {
    expect(splitMessage('hello\n\nworld', 4096)).toEqual(['hello\n\nworld']);
  });

  it('returns nothing for blank text', () => {
    expect(splitMessage('  \n\n ', 100)).toEqual([]);
  });

  it('cuts at a paragraph break before a line break', () => {
    const first = 'a'.repeat(60);
    const text = `${first}\n\n${'b'.repeat(30)}\n${'c'.repeat(30)}`;
    const parts = splitMessage(text, 100);
    expect(parts).toEqual([first, `${'b'.repeat(30)}\n${'c'.repeat(30)}`]);
  });

  it('cuts at a line break when there is no paragraph break', () => {
    const lines = Array.from({ length: 10 }, (_, index) => `${index}`.repeat(30));
    const parts = splitMessage(lines.join('\n'), 100);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(100);
    expect(parts.join('\n')).toBe(lines.join('\n'));
    expect(parts[0]).toBe(lines.slice(0, 3).join('\n'));
  });

  it('hard-cuts a line with no breaks and loses no character', () => {
    const text = 'x'.repeat(250);
    const parts = splitMessage(text, 100);
    expect(parts.map((part) => part.length)).toEqual([100, 100, 50]);
    expect(parts.join('')).toBe(text);
  });

  it('prefers a space near the end of a long line', () => {
    const words = Array.from({ length: 40 }, () => 'word').join(' ');
    const parts = splitMessage(words, 64);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(64);
      expect(part.startsWith('word') && part.endsWith('word')).toBe(true);
    }
  });

  it('never cuts a surrogate pair', () => {
    const text = '😀'.repeat(100);
    const parts = splitMessage(text, 65);
    for (const part of parts) expect(part).not.toMatch(/[\ud800-\udbff]$|^[\udc00-\udfff]/);
    expect(parts.join('')).toBe(text);
  });

  it('closes and reopens a code block cut across parts, with its language', () => {
    const code = Array.from({ length: 200 }, (_, index) => `print(${index})  # line`).join('\n');
    const text = `Here is the script:\n\n\`\`\`python\n${code}\n\`\`\`\n\nThat is all.`;
    const parts = splitMessage(text, 1000);
    expect(parts.length).toBeGreaterThan(3);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(1000);
      expect(fencesBalanced(part)).toBe(true);
    }
    expect(parts[1]?.startsWith('```python\n')).toBe(true);
    expect(parts.at(-1)?.endsWith('That is all.')).toBe(true);
    // Nothing of the code is lost or duplicated.
    const body = parts.join('\n').split('\n').filter((line) => line.startsWith('print('));
    expect(body).toEqual(code.split('\n'));
  });

  it('splits a 10 000-character answer with a code block into parts within the limit, fences balanced', () => {
    const prose = Array.from({ length: 30 }, (_, index) => `Paragraph ${index}: ${'lorem ipsum '.repeat(12)}`).join('\n\n');
    const code = '```ts\n' + Array.from({ length: 150 }, (_, index) => `const value${index} = ${index} * 2; // comment`).join('\n') + '\n```';
    const text = `${prose.slice(0, 3000)}\n\n${code}\n\n${prose.slice(0, 2000)}`;
    expect(text.length).toBeGreaterThan(10_000);
    for (const limit of [4096, 2000]) {
      const parts = splitMessage(text, limit);
      for (const part of parts) {
        expect(part.length).toBeLessThanOrEqual(limit);
        expect(fencesBalanced(part)).toBe(true);
      }
    }
  });

  it('cuts an over-long line inside a code block and keeps the fences', () => {
    const text = '```\n' + 'y'.repeat(300) + '\n```';
    const parts = splitMessage(text, 100);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(100);
      expect(part.startsWith('```')).toBe(true);
      expect(fencesBalanced(part)).toBe(true);
    }
    expect(parts.join('').replace(/```\n?/g, '').replace(/\n/g, '')).toBe('y'.repeat(300));
  });

  it('treats ~~~ fences like backtick fences', () => {
    const text = '~~~\n' + Array.from({ length: 50 }, () => 'z'.repeat(20)).join('\n') + '\n~~~';
    for (const part of splitMessage(text, 200)) {
      expect(part.split('\n').filter((line) => line.startsWith('~~~')).length).toBe(2);
    }
  });

  it('never cuts a family emoji, a flag or an accented letter', () => {
    for (const unit of ['👨‍👩‍👧‍👦', '🇫🇷', 'e\u0301\u0302']) {
      const text = unit.repeat(500);
      const parts = splitMessage(text, 100);
      for (const part of parts) {
        expect(part.length).toBeLessThanOrEqual(100);
        expect(part.length % unit.length).toBe(0);
      }
      expect(parts.join('')).toBe(text);
    }
  });

  it('keeps hostile Markdown within Discord\'s 2000, fences balanced, nothing blank, nothing lost', () => {
    const piece = fc.constantFrom('```', '```js\n', '~~~\n', '\n', '\n\n', 'word ', 'x', '😀', '👨‍👩‍👧', ' ', '    ', '`', '**', '@everyone ', '<@123> ', '> ', '- ', '\t', 'y'.repeat(300), ' z'.repeat(200));
    fc.assert(fc.property(fc.array(piece, { maxLength: 400 }), (pieces) => {
      const text = pieces.join('');
      const parts = splitMessage(text, 2000);
      for (const part of parts) {
        expect(part.length).toBeLessThanOrEqual(2000);
        expect(part.trim()).not.toBe('');
        expect(part).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
      }
      // Every non-blank character arrives, in order; only fence lines are added to close and reopen blocks.
      const visible = (value: string): string => value.replace(/^ {0,3}(?:`{3,}|~{3,}).*$/gm, '').replace(/\s+/g, '');
      expect(visible(parts.join('\n'))).toBe(visible(text));
    }), { numRuns: 400 });
  });
});
