import type { Artifact } from '../types.js';
import type { GuardedResponse } from './fetch-guarded.js';

/** How a response body reaches the model: readable text, or a summary (and optionally a file) for binary data. */
export interface FormattedBody {
  kind: 'json' | 'html' | 'text' | 'binary' | 'empty';
  /** Text for the model (outside content: the caller wraps it). Empty for binary bodies. */
  text: string;
  /** A one-line description ("application/json, 1 234 bytes"). */
  summary: string;
  artifact?: Artifact;
}

const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript|ecmascript|x-www-form-urlencoded|yaml|x-yaml|toml|graphql|x-ndjson|ld\+json|problem\+json|rss\+xml|atom\+xml|xhtml\+xml|sql|csv)\b)|\+(json|xml)\b/i;
type Convert = (typeof import('html-to-text'))['convert'];
let converter: Promise<Convert> | undefined;
/** html-to-text (about thirty modules) is loaded with the first HTML page, not at start. */
function loadConverter(): Promise<Convert> {
  converter ??= import('html-to-text').then((module) => module.convert);
  return converter;
}

const HEADING_SELECTORS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } }));

export async function formatBody(response: GuardedResponse, options: { asFile: boolean; maxBytes: number }): Promise<FormattedBody> {
  const contentType = headerText(response.headers['content-type']);
  const mime = contentType.split(';')[0]?.trim().toLowerCase() || '';
  const size = `${response.body.length} bytes${response.truncated ? ` (cut at tools.http.max_bytes = ${options.maxBytes})` : ''}`;
  const summary = `${mime || 'no content type'}, ${size}`;
  if (response.body.length === 0) return { kind: 'empty', text: '', summary: `${mime || 'no content type'}, empty body` };

  if (options.asFile) {
    if (response.truncated) {
      return { kind: 'binary', text: '', summary: `${summary}; not attached: the body is larger than tools.http.max_bytes (${options.maxBytes} bytes)` };
    }
    const artifact: Artifact = {
      type: mime.startsWith('image/') ? 'image' : 'file',
      name: fileName(response),
      content: response.body,
      ...(mime ? { mimeType: mime } : {}),
    };
    return { kind: 'binary', text: '', summary: `${summary}; attached as file "${artifact.name}"`, artifact };
  }

  const textual = mime ? TEXT_TYPES.test(mime) : looksLikeText(response.body);
  if (!textual) {
    return { kind: 'binary', text: '', summary: `${summary}; binary content not shown (call again with as_file: true to receive it as a file)` };
  }
  const html = mime === 'text/html' || mime === 'application/xhtml+xml';
  const text = decode(response.body, contentType, html);
  if (html) {
    return { kind: 'html', text: htmlToText(await loadConverter(), text, response.url.href), summary: `${summary}, shown as text` };
  }
  if (/json/.test(mime) || (!mime && /^\s*[[{]/.test(text))) {
    try {
      return { kind: 'json', text: JSON.stringify(JSON.parse(text), null, 2), summary };
    } catch {
      // Cut or malformed JSON: show it as it came.
    }
  }
  return { kind: 'text', text, summary };
}

export function htmlToText(convert: Convert, html: string, baseUrl: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.replace(/\s+/g, ' ').trim();
  const body = convert(html, {
    wordwrap: false,
    baseElements: { selectors: ['body'], returnDomByDefault: true },
    selectors: [
      { selector: 'a', options: { baseUrl, hideLinkHrefIfSameAsText: true } },
      { selector: 'img', format: 'skip' },
      { selector: 'script', format: 'skip' },
      { selector: 'style', format: 'skip' },
      { selector: 'noscript', format: 'skip' },
      { selector: 'svg', format: 'skip' },
      { selector: 'table', format: 'dataTable' },
      ...HEADING_SELECTORS,
    ],
  }).replace(/\n{3,}/g, '\n\n').trim();
  return title ? `Title: ${convert(title, { wordwrap: false })}\n\n${body}` : body;
}

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

function looksLikeText(body: Buffer): boolean {
  const sample = body.subarray(0, 4096);
  if (sample.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample.subarray(0, lastCompleteUtf8(sample)));
    return true;
  } catch {
    return false;
  }
}

// A sample cut mid-character must not make valid UTF-8 look binary.
function lastCompleteUtf8(sample: Buffer): number {
  let end = sample.length;
  for (let back = 1; back <= 3 && end - back >= 0; back += 1) {
    const byte = sample[end - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue;
    if (byte >= 0xc0) end -= back;
    break;
  }
  return end;
}

function fileName(response: GuardedResponse): string {
  const disposition = headerText(response.headers['content-disposition']);
  const fromHeader = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition)?.[1];
  let name = fromHeader ? safeDecode(fromHeader) : safeDecode(response.url.pathname.split('/').pop() ?? '');
  name = name.replace(/[/\\\0-\x1f]/g, '_').trim();
  return name && name !== '.' && name !== '..' ? name.slice(0, 120) : 'download';
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function headerText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}
