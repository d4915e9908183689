let segmenter: Intl.Segmenter | undefined;

/**
 * The last grapheme boundary at or before `limit` in `text` (so an emoji, a flag or a letter with its accents is
 * never cut in two); a code point boundary when one grapheme is longer than `limit`. Contract: 0 < result <= limit
 * for 0 < limit < text.length.
 */
export function graphemeBoundary(text: string, limit: number): number {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let best = 0;
  // Only the graphemes around the limit matter; a window keeps this linear in the part, not in the whole text.
  const windowStart = Math.max(0, limit - 256);
  for (const { index } of segmenter.segment(text.slice(windowStart, limit + 64))) {
    const absolute = windowStart + index;
    if (absolute > limit) break;
    if (absolute > 0) best = absolute;
  }
  if (best > 0) return best;
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}
