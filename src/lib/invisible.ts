/**
 * Characters that change how text is shown without being seen: C0 and C1 controls (terminal escapes start with
 * ESC or the 8-bit CSI), DEL, bidirectional overrides, embeddings, isolates and marks (they reorder what follows:
 * "exe.txt" shown for "txt.exe"), zero-width and other invisible format characters, line and paragraph separators,
 * variation selectors and Unicode tag characters.
 */
const INVISIBLE_SOURCE =
  '[\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b-\\u200f' +
  '\\u2028-\\u202e\\u2060-\\u206f\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0\\ufff9-\\ufffb\\u{e0000}-\\u{e007f}]';

const INVISIBLE = new RegExp(INVISIBLE_SOURCE, 'u');
const INVISIBLE_ALL = new RegExp(INVISIBLE_SOURCE, 'gu');

export function hasInvisible(text: string): boolean {
  return INVISIBLE.test(text);
}

/** Shows each invisible character as its code (`\u202e`), so what is displayed is what is there. */
export function escapeInvisible(text: string): string {
  if (!INVISIBLE.test(text)) return text;
  return text.replace(INVISIBLE_ALL, (char) => {
    const code = char.codePointAt(0) ?? 0;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Removes every invisible character (line breaks and tabs become spaces first). */
export function stripInvisible(text: string): string {
  if (!INVISIBLE.test(text)) return text;
  return text.replace(/[\n\r\t\v\f\u2028\u2029\u0085]/g, ' ').replace(INVISIBLE_ALL, '');
}
