/**
 * The text of an HTTP response body, as a browser would read it: the charset of the header or of the page's
 * `<meta>`, windows-1252 done the WHATWG way. Shared by the http tool and web_scrape.
 */

/**
 * The body as text, in the charset the header names; for HTML without one, the charset its first 1024 bytes
 * declare (`<meta charset>` or `<meta http-equiv="Content-Type">`, as browsers look for it); else UTF-8.
 */
export function decode(body: Buffer, contentType: string, html: boolean): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1] ?? (html ? metaCharset(body) : undefined);
  if (charset) {
    try {
      const decoder = new TextDecoder(charset);
      if (decoder.encoding === 'windows-1252') return decodeWindows1252(body);
      return decoder.decode(body);
    } catch {
      // Unknown charset label: fall back to UTF-8.
    }
  }
  return new TextDecoder('utf-8').decode(body);
}

// Bytes 0x80–0x9F in windows-1252 (the WHATWG index), which Node 20's TextDecoder decodes as C1 controls.
const WINDOWS_1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

/** windows-1252, which the web also means by latin1, iso-8859-1 and us-ascii. */
function decodeWindows1252(body: Buffer): string {
  return body.toString('latin1').replace(/[\x80-\x9f]/g, (char) => String.fromCharCode(WINDOWS_1252_HIGH[char.charCodeAt(0) - 0x80] ?? char.charCodeAt(0)));
}

function metaCharset(body: Buffer): string | undefined {
  const head = body.subarray(0, 1024).toString('latin1');
  return /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1];
}

export function headerText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}
