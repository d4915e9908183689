let segmenter: Intl.Segmenter | undefined;

/**
 * The last grapheme boundary at or before `limit` in `text` (so an emoji, a flag or a letter with its accents is
 * never cut in two); a code point boundary when one grapheme is longer than `limit`. Contract: 0 < result <= limit
 * for 0 < limit < text.length.
 */
export function graphemeBoundary(text: string, limit: number): number {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let best = 0;
  // Segmented from the start (a flag's two halves pair up only counted from there); the walk stops at the limit,
  // so a cut costs the length of one part. The text ends a little after the limit so a long tail is not scanned.
  for (const { index } of segmenter.segment(text.slice(0, limit + 64))) {
    if (index > limit) break;
    best = index;
  }
  if (best > 0) return best;
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}
