import type { Artifact } from '../types.js';
import { decode, headerText } from '../../net/body-text.js';
import type { GuardedResponse } from '../../net/fetch-guarded.js';

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
