import type { RemoteAttachment } from '../attachments.js';
import type { AttachmentKind } from '../types.js';

/** What the channel needs of a received `m.room.message` content, read defensively (it is the sender's JSON). */
export interface ReadMessage {
  /** The person's words (a caption for a file), reply fallback removed. */
  text: string;
  /** The event replied to (`m.relates_to.m.in_reply_to`). */
  replyTo?: string;
  /** Users named in `m.mentions` (intentional mentions), and whether the whole room was. */
  mentions: string[];
  formattedBody: string;
  file?: { kind: AttachmentKind; label?: string; name: string; mimeType: string; size: number; mxc: string };
}

const TEXT_TYPES = new Set(['m.text', 'm.emote']);
const FILE_TYPES = new Set(['m.image', 'm.file', 'm.audio', 'm.video']);

/**
 * A message's content as the channel uses it, or undefined for what is not a person's message: notices (other bots
 * speak in `m.notice`, and answering them makes loops), edits (`m.replace`: the first version was answered),
 * encrypted files (only in encrypted rooms, which are refused) and unknown message types.
 */
export function readMessage(content: Record<string, unknown>): ReadMessage | undefined {
  const msgtype = typeof content['msgtype'] === 'string' ? content['msgtype'] : '';
  const relation = record(content['m.relates_to']);
  if (relation['rel_type'] === 'm.replace') return undefined;
  const replyTo = stringOf(record(relation['m.in_reply_to'])['event_id']);
  const body = stringOf(content['body']) ?? '';
  const mentions = (Array.isArray(record(content['m.mentions'])['user_ids']) ? record(content['m.mentions'])['user_ids'] as unknown[] : []).filter((id): id is string => typeof id === 'string');
  const formattedBody = content['format'] === 'org.matrix.custom.html' ? stringOf(content['formatted_body']) ?? '' : '';
  const base = { mentions, formattedBody, ...(replyTo ? { replyTo } : {}) };
  if (TEXT_TYPES.has(msgtype)) return { ...base, text: replyTo ? stripReplyFallback(body) : body };
  if (!FILE_TYPES.has(msgtype)) return undefined;
  const mxc = stringOf(content['url']);
  if (!mxc?.startsWith('mxc://')) return undefined;
  const info = record(content['info']);
  // MSC2530: with `filename` set, `body` is a caption; without it, `body` is the file's name.
  const fileName = stringOf(content['filename']);
  const caption = fileName !== undefined && body !== fileName ? body : '';
  const mimeType = stringOf(info['mimetype']) ?? 'application/octet-stream';
  const voice = msgtype === 'm.audio' && content['org.matrix.msc3245.voice'] !== undefined;
  const kind: AttachmentKind = msgtype === 'm.image' ? 'image' : msgtype === 'm.audio' || mimeType.startsWith('audio/') ? 'audio' : 'file';
  const name = fileName ?? (body || `${msgtype.slice(2)}-file`);
  return {
    ...base, text: caption,
    file: {
      kind, name: voice && !/\.\w+$/.test(name) ? `${name}.ogg` : name, mimeType, size: typeof info['size'] === 'number' ? info['size'] : 0, mxc,
      ...(kind === 'audio' ? { label: voice ? 'voice note' : 'audio file' } : {}),
    },
  };
}

/** The file of a message, downloaded (with the access token, as authenticated media requires) only when asked. */
export function remoteFile(file: NonNullable<ReadMessage['file']>, download: (mxc: string) => Promise<Buffer>): RemoteAttachment {
  return {
    kind: file.kind, name: file.name, mimeType: file.mimeType, size: file.size, ...(file.label !== undefined ? { label: file.label } : {}),
    fetch: () => download(file.mxc),
  };
}

/**
 * Whether a group message is for the bot: it names the bot in `m.mentions`, links to it (a pill), or says its user
 * id or display name as a word.
 */
export function mentions(message: ReadMessage, me: { userId: string; displayName: string | undefined }): boolean {
  if (message.mentions.includes(me.userId)) return true;
  if (message.text.includes(me.userId)) return true;
  if (message.formattedBody.includes(`matrix.to/#/${me.userId}`) || message.formattedBody.includes(`matrix.to/#/${encodeURIComponent(me.userId)}`)) return true;
  const name = me.displayName?.trim();
  return name !== undefined && name !== '' && namePattern(name).test(message.text);
}

/** The text without the bot's name at its start ("Familiar: what time is it?", as a pill's plain text reads). */
export function stripMention(text: string, me: { userId: string; displayName: string | undefined }): string {
  let rest = text.split(me.userId).join('');
  const name = me.displayName?.trim();
  if (name) rest = rest.replace(new RegExp(`^\\s*${escapeRegExp(name)}\\s*[:,]?`, 'i'), '');
  return rest.replace(/^\s*[:,]\s*/, '').trim();
}

/** Older clients quote the message replied to at the top of `body` ("> <@bob:x> text" lines, then a blank line). */
function stripReplyFallback(body: string): string {
  const lines = body.split('\n');
  if (!lines[0]?.startsWith('> ')) return body;
  let index = 0;
  while (index < lines.length && lines[index]?.startsWith('>')) index += 1;
  if (lines[index] === '') index += 1;
  return lines.slice(index).join('\n');
}

function namePattern(name: string): RegExp {
  return new RegExp(`(^|[^\\p{L}\\p{N}_])${escapeRegExp(name)}($|[^\\p{L}\\p{N}_])`, 'iu');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {};
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
