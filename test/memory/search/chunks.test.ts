import { describe, expect, it } from 'vitest';
import { chunkMarkdown } from '../../../src/memory/search/chunks.js';

describe('memory entries (chunks)', () => {
  it('makes each list item and paragraph one entry with its lines and heading', () => {
    const text = ['---', 'title: x', '---', '# Health', '', '- sleeps 8 hours', '  on weekdays', '- no coffee after 2 pm', '', 'A paragraph', 'on two lines.', '## Car', 'Tyres changed in May.'].join('\n');
    expect(chunkMarkdown(text)).toEqual([
      { startLine: 6, endLine: 7, heading: 'Health', text: '- sleeps 8 hours\n  on weekdays' },
      { startLine: 8, endLine: 8, heading: 'Health', text: '- no coffee after 2 pm' },
      { startLine: 10, endLine: 11, heading: 'Health', text: 'A paragraph\non two lines.' },
      { startLine: 13, endLine: 13, heading: 'Car', text: 'Tyres changed in May.' },
    ]);
  });

  it('keeps a fenced code block whole, blank lines and # lines included', () => {
    const text = ['```sh', '# not a heading', '', 'echo hi', '```', 'after'].join('\n');
    expect(chunkMarkdown(text).map((chunk) => [chunk.startLine, chunk.endLine])).toEqual([[1, 5], [6, 6]]);
  });
});
