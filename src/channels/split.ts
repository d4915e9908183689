import { graphemeBoundary } from './graphemes.js';

/**
 * Splits a Markdown reply into parts of at most `limit` characters: at paragraph breaks first, then at
 * line breaks, then hard. A part never ends inside a code block: the fence is closed at the end of the
 * part and reopened (with its language) at the start of the next, so every part renders on its own.
 * Contract: every returned part is non-empty and at most `limit` characters (for limit >= 64).
 */
export function splitMessage(text: string, limit: number): string[] {
  const trimmed = text.replace(/\s+$/, '');
  if (trimmed.length <= limit) return trimmed.trim() === '' ? [] : [trimmed];
  const lines = annotate(trimmed.split('\n'), limit);
  const parts: string[] = [];
  let start = skipBlank(lines, 0);
  while (start < lines.length) {
    let end = start + 1;
    while (end < lines.length && partLength(lines, start, end + 1) <= limit) end += 1;
    if (end < lines.length) end = preferParagraph(lines, start, end, limit);
    parts.push(render(lines, start, end));
    start = skipBlank(lines, end);
  }
  return parts.filter((part) => part.trim() !== '');
}

interface Fence {
  marker: string;
  /** The opening line, repeated to reopen the block in the next part. */
  opening: string;
}

interface Line {
  text: string;
  /** The code block this line is inside of (fence lines themselves included), if any. */
  fence: Fence | undefined;
  /** The code block still open after this line. */
  openAfter: Fence | undefined;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** Marks each line with its code block, and cuts lines too long to fit in one part. */
function annotate(raw: string[], limit: number): Line[] {
  const out: Line[] = [];
  let open: Fence | undefined;
  for (const text of raw) {
    const match = FENCE.exec(text);
    let inside = open;
    if (match) {
      const marker = match[1] ?? '```';
      if (!open) {
        open = { marker, opening: text.trimStart().slice(0, 80) };
        inside = open;
      } else if (marker[0] === open.marker[0] && marker.length >= open.marker.length && (match[2] ?? '').trim() === '') {
        open = undefined;
      }
    }
    // Room for the fence lines a part may need around a cut line.
    const room = limit - (inside ? inside.opening.length + inside.marker.length + 2 : 0);
    for (const piece of hardSplit(text, Math.max(16, room))) out.push({ text: piece, fence: inside, openAfter: open });
  }
  return out;
}

/** Cuts one over-long line, at a space when there is one in the last fifth, never inside a grapheme (an emoji). */
function hardSplit(text: string, size: number): string[] {
  if (text.length <= size) return [text];
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > size) {
    let cut = rest.lastIndexOf(' ', size);
    if (cut < size * 0.8) cut = graphemeBoundary(rest, size);
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^ /, '');
  }
  pieces.push(rest);
  return pieces;
}

function reopening(lines: Line[], start: number): string | undefined {
  const line = lines[start];
  if (!line?.fence) return undefined;
  // A part that starts on the opening fence line needs no extra opening.
  const previous = lines[start - 1];
  return previous?.openAfter === line.fence ? line.fence.opening : undefined;
}

function closing(lines: Line[], end: number): string | undefined {
  return lines[end - 1]?.openAfter?.marker;
}

function partLength(lines: Line[], start: number, end: number): number {
  let length = end - start - 1;
  for (let index = start; index < end; index += 1) length += lines[index]?.text.length ?? 0;
  const open = reopening(lines, start);
  const close = closing(lines, end);
  return length + (open ? open.length + 1 : 0) + (close ? close.length + 1 : 0);
}

/** Moves the cut back to the last blank line outside a code block when that keeps the part at least half full. */
function preferParagraph(lines: Line[], start: number, end: number, limit: number): number {
  for (let index = end - 1; index > start; index -= 1) {
    const line = lines[index];
    if (line && !line.fence && line.text.trim() === '') {
      return partLength(lines, start, index) >= limit / 2 ? index : end;
    }
  }
  return end;
}

function render(lines: Line[], start: number, end: number): string {
  const body = lines.slice(start, end).map((line) => line.text);
  const open = reopening(lines, start);
  const close = closing(lines, end);
  if (open) body.unshift(open);
  if (close) body.push(close);
  return body.join('\n').replace(/\s+$/, '');
}

function skipBlank(lines: Line[], index: number): number {
  let next = index;
  while (next < lines.length && !lines[next]?.fence && lines[next]?.text.trim() === '') next += 1;
  return next;
}
