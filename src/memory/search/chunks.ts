import { createHash } from 'node:crypto';

/**
 * A memory file cut into the pieces search ranks and consolidation keeps: each list item and each paragraph is one
 * entry, with its lines (1-based, inclusive) and the heading it sits under. Headings themselves are not entries (they
 * name a section, they hold no fact), nor is a YAML front matter block. A fenced code block is one entry whole.
 */
export interface Chunk {
  startLine: number;
  endLine: number;
  /** The nearest heading above, without its #s ('' at the top of the file). */
  heading: string;
  text: string;
}

const HEADING = /^#{1,6}\s+(.*?)\s*#*\s*$/;
const LIST_ITEM = /^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s+/;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
/** A paragraph this long is cut at its next line end: one entry should stay one idea, and one embedding input. */
const MAX_CHUNK_CHARS = 2000;

export function chunkMarkdown(content: string): Chunk[] {
  const lines = content.split(/\r?\n/);
  const chunks: Chunk[] = [];
  let heading = '';
  let current: { start: number; lines: string[] } | undefined;
  let fence: string | undefined;

  const flush = (endIndex: number) => {
    if (!current) return;
    const text = current.lines.join('\n').trim();
    if (text !== '') chunks.push({ startLine: current.start + 1, endLine: endIndex + 1, heading, text });
    current = undefined;
  };

  let index = skipFrontMatter(lines);
  for (; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    if (fence !== undefined) {
      current?.lines.push(line);
      if (line.trim().startsWith(fence)) {
        fence = undefined;
        flush(index);
      }
      continue;
    }
    const opening = FENCE.exec(line);
    if (opening?.[1]) {
      flush(index - 1);
      current = { start: index, lines: [line] };
      fence = opening[1];
      continue;
    }
    const headingMatch = HEADING.exec(line);
    if (headingMatch) {
      flush(index - 1);
      heading = headingMatch[1] ?? '';
      continue;
    }
    if (line.trim() === '') {
      flush(index - 1);
      continue;
    }
    // A new list item starts a new entry; an indented line under an item continues it.
    const length = current ? current.lines.reduce((sum, text) => sum + text.length + 1, 0) : 0;
    if (current && (LIST_ITEM.test(line) || length > MAX_CHUNK_CHARS)) flush(index - 1);
    if (current) current.lines.push(line);
    else current = { start: index, lines: [line] };
  }
  flush(lines.length - 1);
  return chunks;
}

/** The index of the first line after a front matter block (`---` … `---` at the very top), else 0. */
function skipFrontMatter(lines: readonly string[]): number {
  if (lines[0]?.trim() !== '---') return 0;
  for (let index = 1; index < lines.length; index += 1) if (/^(---|\.\.\.)\s*$/.test(lines[index] ?? '')) return index + 1;
  return 0;
}

/** An entry's text hash: its vectors are kept under it, so an entry unchanged (or repeated) is embedded once. */
export function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}
