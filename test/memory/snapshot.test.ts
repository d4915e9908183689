import { describe, expect, it } from 'vitest';
import type { IndexedFile } from '../../src/memory/folder-index.js';
import { buildSnapshot } from '../../src/memory/snapshot.js';

const note = (index: number, text = `Note number ${index}.`): IndexedFile & { text: string } => ({
  path: `notes/n${String(index).padStart(4, '0')}.md`, size: Buffer.byteLength(text), mtimeMs: 10_000 - index, text,
});

describe('the memory section of the prompt', () => {
  it('reads no file that its size alone says cannot fit in what is left of the budget', () => {
    const files = Array.from({ length: 5000 }, (_, index) => note(index, 'x'.repeat(600)));
    const read: string[] = [];
    const snapshot = buildSnapshot({
      ordered: files, budget: 2000, keep: () => true,
      read: (file) => {
        read.push(file.path);
        return (file as IndexedFile & { text: string }).text;
      },
    });
    expect(snapshot.included).toHaveLength(3);
    expect(read.length).toBeLessThan(10);
    expect(snapshot.omitted).toHaveLength(50);
    expect(snapshot.text).toContain(`${files[52]?.path}, and 4947 more)`);
  });

  it('stops after 50 files it read that did not fit in what is left, and counts the rest', () => {
    // Each would fit an empty budget; after the first few none fits what is left.
    const files = Array.from({ length: 5000 }, (_, index) => note(index, 'z'.repeat(300)));
    const read: string[] = [];
    const snapshot = buildSnapshot({
      ordered: files, budget: 1100, keep: () => true,
      read: (file) => (read.push(file.path), (file as IndexedFile & { text: string }).text),
    });
    expect(snapshot.included).toHaveLength(3);
    expect(read).toHaveLength(53);
    expect(snapshot.text).toContain(`${files[52]?.path}, and 4947 more)`);
  });

  it('takes no more from a lazy list than it looks at, and counts the rest from the total it is given', () => {
    const files = Array.from({ length: 5000 }, (_, index) => note(index));
    let taken = 0;
    const lazy = { *[Symbol.iterator]() {
      for (const file of files) {
        taken += 1;
        yield file;
      }
    } };
    const snapshot = buildSnapshot({ ordered: lazy, total: files.length, budget: 300, keep: () => true, read: (file) => (file as IndexedFile & { text: string }).text });
    expect(taken).toBeLessThan(120);
    const named = snapshot.omitted.length;
    expect(snapshot.text).toContain(`and ${files.length - snapshot.included.length - named} more)`);
  });

  it('names at most 50 files it left out, then counts the rest', () => {
    const files = Array.from({ length: 300 }, (_, index) => note(index, 'y'.repeat(100)));
    const snapshot = buildSnapshot({ ordered: files, budget: 500, keep: () => true, read: (file) => (file as IndexedFile & { text: string }).text });
    expect(snapshot.text).toContain('and 246 more)');
    expect(snapshot.text).toContain(files[4]?.path);
    expect(snapshot.text).not.toContain(files[299]?.path);
  });

  it('still reads a file whose text is shorter than its size in bytes, and includes it when its text fits', () => {
    // 300 bytes of UTF-8 (two bytes a letter) are 150 characters: it fits in 200.
    const text = 'é'.repeat(150);
    const file = { path: 'accents.md', size: Buffer.byteLength(text), mtimeMs: 1 };
    const snapshot = buildSnapshot({ ordered: [file, note(1)], budget: 200, keep: () => true, read: (entry) => (entry === file ? text : 'short') });
    expect(snapshot.included[0]).toBe('accents.md');
  });
});
