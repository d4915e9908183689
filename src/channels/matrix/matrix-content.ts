import path from 'node:path';
import { markdownHtmlIfFormatted } from '../../lib/markdown-html.js';
import type { Artifact } from '../../tools/types.js';
import type { SpokenReply } from '../types.js';

/** The content of a Matrix event, as sent (the SDK's own types do not know every field used here). */
export type EventContent = Record<string, unknown>;

/**
 * The longest part of a reply, in characters. The spec caps a whole event at 65,536 bytes of JSON, and a part goes
 * twice (the Markdown as `body`, its HTML as `formatted_body`), with multi-byte characters and escaping on top:
 * 16,000 characters stay under the cap for ordinary text, and are still far more than a screen.
 */
export const MATRIX_LIMIT = 16_000;

/** Past this many bytes the HTML is dropped and the part goes as plain text: a homeserver refuses larger events. */
const EVENT_BYTES = 60_000;

/**
 * A text part of a reply: the Markdown as `body` (what Element itself sends as the plain fallback), and, when it uses
 * any formatting, its HTML (the project's safe renderer: raw HTML shown as text, only http(s)/mailto links) as
 * `formatted_body`. `m.mentions` is empty: words the model wrote ("@room", a user id) never notify anyone.
 */
export function textContent(text: string, options: { replyTo?: string | undefined; notice?: boolean; plain?: boolean } = {}): EventContent {
  const html = options.plain ? undefined : markdownHtmlIfFormatted(text)?.trim();
  const content: EventContent = {
    msgtype: options.notice ? 'm.notice' : 'm.text',
    body: text,
    'm.mentions': {},
    ...(options.replyTo ? { 'm.relates_to': { 'm.in_reply_to': { event_id: options.replyTo } } } : {}),
  };
  if (html !== undefined && Buffer.byteLength(JSON.stringify({ ...content, formatted_body: html })) <= EVENT_BYTES) {
    content['format'] = 'org.matrix.custom.html';
    content['formatted_body'] = html;
  }
  return content;
}

/** The same content without its HTML: what is sent again when a homeserver refuses the formatted one. */
export function withoutHtml(content: EventContent): EventContent {
  const { format: _format, formatted_body: _html, ...plain } = content;
  return plain;
}

/** An edit (`m.replace`) of one of the bot's messages: the new text whole, plain. */
export function editContent(eventId: string, text: string, notice = false): EventContent {
  const msgtype = notice ? 'm.notice' : 'm.text';
  return {
    msgtype, body: `* ${text}`, 'm.mentions': {},
    'm.new_content': { msgtype, body: text, 'm.mentions': {} },
    'm.relates_to': { rel_type: 'm.replace', event_id: eventId },
  };
}

/** A reaction (`m.annotation`) to an event. */
export function reactionContent(eventId: string, key: string): EventContent {
  return { 'm.relates_to': { rel_type: 'm.annotation', event_id: eventId, key } };
}

/** The file of an artifact: its name (a JSON artifact gets `.json`), bytes and type. */
export function artifactFile(artifact: Artifact): { name: string; data: Buffer; mimeType: string } {
  const name = artifact.type === 'json' && !/\.json$/i.test(artifact.name) ? `${artifact.name}.json` : artifact.name;
  const data = typeof artifact.content === 'string' ? Buffer.from(artifact.content, 'utf8') : artifact.content;
  return { name, data, mimeType: artifact.mimeType ?? mimeTypeOf(name, artifact.type) };
}

/** An uploaded file as an `m.image` (shown inline) or `m.file` event. */
export function fileContent(file: { name: string; size: number; mimeType: string }, url: string, image: boolean): EventContent {
  return { msgtype: image ? 'm.image' : 'm.file', body: file.name, filename: file.name, url, info: { mimetype: file.mimeType, size: file.size }, 'm.mentions': {} };
}

/**
 * A spoken answer as a voice message: `m.audio` marked with MSC3245's voice flag (and MSC1767's audio block with the
 * duration), which Element and other apps show as a voice message with its play button rather than as a file.
 */
export function voiceContent(audio: SpokenReply, url: string): EventContent {
  const duration = Math.max(1, Math.round(audio.seconds * 1000));
  return {
    msgtype: 'm.audio', body: 'Voice message', filename: audio.fileName, url,
    info: { mimetype: audio.mimeType, size: audio.data.length, duration },
    'org.matrix.msc1767.audio': { duration, waveform: [] },
    'org.matrix.msc3245.voice': {},
    'm.mentions': {},
  };
}

const TYPES = new Map([
  ['.png', 'image/png'], ['.jpg', 'image/jpeg'], ['.jpeg', 'image/jpeg'], ['.gif', 'image/gif'], ['.webp', 'image/webp'],
  ['.svg', 'image/svg+xml'], ['.pdf', 'application/pdf'], ['.txt', 'text/plain'], ['.md', 'text/markdown'], ['.csv', 'text/csv'],
  ['.json', 'application/json'], ['.html', 'text/html'], ['.zip', 'application/zip'], ['.mp3', 'audio/mpeg'], ['.ogg', 'audio/ogg'],
]);

/** Enough types for the files the tools make; anything else is octet-stream (the person's app still saves it). */
function mimeTypeOf(name: string, type: Artifact['type']): string {
  const known = TYPES.get(path.extname(name).toLowerCase());
  if (known) return known;
  return type === 'image' ? 'image/png' : 'application/octet-stream';
}
