const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// Characters Telegram deletes from a message (TDLib's clean_input_string): U+202A–U+202E, and three combining marks.
const DELETED = /[\u202a-\u202e\u030a\u0333\u033f]/g;
// Control characters Telegram shows as a space (all but \n; \t is handled apart).
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;

/**
 * Text as Telegram will show it, so what is counted and sent is what the person sees: Telegram deletes
 * U+202A–U+202E and the combining marks U+030A, U+0333, U+033F, deletes \r and U+2028/U+2029, and shows
 * other control characters (tabs too) as a space. Here line and paragraph separators and \r become line
 * breaks, combining marks are composed first (a + U+030A is å, not a), tabs in code become four spaces (their
 * indentation survives), and lone surrogates become U+FFFD (Telegram refuses invalid UTF-8).
 */
export function cleanForTelegram(text: string, literal: boolean): string {
  let clean = text.replace(LONE_SURROGATE, '\ufffd').replace(/\r\n?|[\u2028\u2029]/g, '\n');
  if (/[\u030a\u0333\u033f]/.test(clean)) clean = clean.normalize('NFC');
  return clean.replace(DELETED, '').replace(/\t/g, literal ? '    ' : ' ').replace(CONTROL, ' ');
}
