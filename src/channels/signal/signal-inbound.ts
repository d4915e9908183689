import type { RemoteAttachment } from '../attachments.js';
import { cleanName } from '../display-name.js';
import type { InboundUpdate } from '../router.js';
import type { AttachmentKind } from '../types.js';
import { isRecord } from './signal-rpc.js';

/** Who the bot is on Signal: its number (the config's account) and its UUID (learnt from signal-cli at start). */
export interface SignalSelf {
  number: string;
  uuid: string | undefined;
}

/** A reaction someone sent: to which message (its sent timestamp), in which chat. */
export interface SignalReaction {
  chatId: string;
  userId: string;
  userName: string;
  emoji: string;
  targetTimestamp: number;
  /** The reacted message was the bot's. */
  targetIsSelf: boolean;
  isRemove: boolean;
}

/** What an envelope is, for the channel: a message to hand to the router, a reaction, or nothing to act on. */
export type SignalInbound =
  | { kind: 'message'; update: InboundUpdate; addressed: boolean; target: SignalTarget }
  | { kind: 'reaction'; reaction: SignalReaction }
  | { kind: 'none' };

/** Where a chat's messages go: a person (number or UUID) or a group (base64 id). */
export type SignalTarget = { recipient: string } | { groupId: string };

const GROUP = 'group:';
/** signal-cli reads a long text's attachment into `message` itself; the attachment is not a file the person sent. */
const LONG_TEXT = 'text/x-signal-plain';

/** `+4917…` or a UUID: a person; `group:<base64 id>`: a group. */
export function targetOf(chatId: string): SignalTarget {
  return chatId.startsWith(GROUP) ? { groupId: chatId.slice(GROUP.length) } : { recipient: chatId };
}

/** A message's id across restarts: its author and its sent timestamp (what a quote or a reaction names it by). */
export function messageId(author: string, timestamp: number): string {
  return `${author}:${timestamp}`;
}

export function parseMessageId(id: string): { author: string; timestamp: number } | undefined {
  const cut = id.lastIndexOf(':');
  const timestamp = Number(id.slice(cut + 1));
  return cut > 0 && Number.isSafeInteger(timestamp) ? { author: id.slice(0, cut), timestamp } : undefined;
}

/**
 * The id the router sees for a person: their number when `allowed_users` lists that number, else their UUID (stable,
 * and the only id when the person hides their number), else their number. So the owner may list either, and a
 * person paired by code is kept by UUID.
 */
export function personId(number: string | undefined, uuid: string | undefined, allowed: readonly string[]): string | undefined {
  if (number !== undefined && allowed.includes(number)) return number;
  return uuid ?? number;
}

/**
 * Reads one `receive` envelope (signal-cli's JsonMessageEnvelope). Only data messages from someone else count:
 * sync messages (the bot's own sends, seen from its linked devices), receipts, typing and calls are nothing to act
 * on. Contract: never throws on any JSON.
 */
export function readEnvelope(envelope: Record<string, unknown>, self: SignalSelf, allowed: readonly string[], fetchAttachment: (id: string, target: SignalTarget) => Promise<Buffer>): SignalInbound {
  const number = text(envelope['sourceNumber']);
  const uuid = text(envelope['sourceUuid'])?.toLowerCase();
  const data = envelope['dataMessage'];
  if (!isRecord(data) || (number === undefined && uuid === undefined)) return { kind: 'none' };
  if ((number !== undefined && number === self.number) || (uuid !== undefined && uuid === self.uuid)) return { kind: 'none' };
  const userId = personId(number, uuid, allowed);
  if (userId === undefined) return { kind: 'none' };
  const group = isRecord(data['groupInfo']) ? data['groupInfo'] : undefined;
  const groupId = text(group?.['groupId']);
  // A group's change (name, members) comes as a data message too: nothing to answer.
  if (group && (groupId === undefined || group['type'] === 'UPDATE')) return { kind: 'none' };
  const chatId = groupId !== undefined ? `${GROUP}${groupId}` : userId;
  const target: SignalTarget = groupId !== undefined ? { groupId } : { recipient: uuid ?? userId };
  const userName = cleanName(text(envelope['sourceName'])) || userId;
  const reaction = data['reaction'];
  if (isRecord(reaction)) {
    const targetTimestamp = reaction['targetSentTimestamp'];
    if (typeof targetTimestamp !== 'number' || typeof reaction['emoji'] !== 'string') return { kind: 'none' };
    return {
      kind: 'reaction',
      reaction: {
        chatId, userId, userName, emoji: reaction['emoji'], targetTimestamp, isRemove: reaction['isRemove'] === true,
        targetIsSelf: isSelf(text(reaction['targetAuthorNumber']), text(reaction['targetAuthorUuid']), self),
      },
    };
  }
  const timestamp = typeof data['timestamp'] === 'number' ? data['timestamp'] : Number(envelope['timestamp']);
  const mentions = Array.isArray(data['mentions']) ? data['mentions'].filter(isRecord) : [];
  const mentioned = mentions.some((mention) => isSelf(text(mention['number']), text(mention['uuid']), self));
  const quote = isRecord(data['quote']) ? data['quote'] : undefined;
  const quotedSelf = quote !== undefined && isSelf(text(quote['authorNumber']), text(quote['authorUuid']), self);
  const files = (Array.isArray(data['attachments']) ? data['attachments'] : []).filter(isRecord)
    .filter((attachment) => text(attachment['id']) !== undefined && attachment['contentType'] !== LONG_TEXT)
    .map((attachment, index) => remoteAttachment(attachment, `${timestamp}-${index + 1}`, (id) => fetchAttachment(id, target)));
  const body = withMentions(text(data['message']) ?? '', mentions, self);
  if (body === '' && files.length === 0) return { kind: 'none' }; // a sticker, a poll vote, a deletion
  const quoteAuthor = quote ? text(quote['authorUuid']) ?? text(quote['authorNumber']) : undefined;
  const update: InboundUpdate = {
    channel: 'signal', chatId, userId, userName, text: body, attachments: files,
    platformMessageId: messageId(uuid ?? userId, timestamp),
    ...(quote && quoteAuthor !== undefined && typeof quote['id'] === 'number' ? { replyTo: messageId(quoteAuthor, quote['id']) } : {}),
    isDirect: groupId === undefined,
  };
  return { kind: 'message', update, addressed: groupId === undefined || mentioned || quotedSelf, target };
}

function isSelf(number: string | undefined, uuid: string | undefined, self: SignalSelf): boolean {
  return (number !== undefined && number === self.number) || (uuid !== undefined && uuid.toLowerCase() === self.uuid);
}

/** Signal puts U+FFFC where a mention is. The text with the bot's own mentions taken out and other people's written as @number (or @name when hidden). */
function withMentions(body: string, mentions: readonly Record<string, unknown>[], self: SignalSelf): string {
  let result = body;
  const ordered = [...mentions].sort((a, b) => Number(b['start']) - Number(a['start']));
  for (const mention of ordered) {
    const start = Number(mention['start']);
    const length = Number(mention['length']);
    if (!Number.isInteger(start) || !Number.isInteger(length) || start < 0 || start + length > result.length) continue;
    const shown = isSelf(text(mention['number']), text(mention['uuid']), self) ? '' : `@${cleanName(text(mention['number']) ?? text(mention['name'])) || 'someone'}`;
    result = `${result.slice(0, start)}${shown}${result.slice(start + length)}`;
  }
  return result.replace(/[ \t]{2,}/g, ' ').trim();
}

function remoteAttachment(attachment: Record<string, unknown>, stamp: string, fetch: (id: string) => Promise<Buffer>): RemoteAttachment {
  const mimeType = text(attachment['contentType']) ?? 'application/octet-stream';
  const kind: AttachmentKind = mimeType.startsWith('image/') ? 'image' : mimeType.startsWith('audio/') ? 'audio' : 'file';
  const filename = text(attachment['filename']);
  // A voice note recorded in the app has no file name (signal-cli's JSON does not carry the voice-note flag).
  const label = kind === 'audio' ? (filename === undefined ? 'voice note' : 'audio file') : undefined;
  const id = text(attachment['id']) ?? '';
  return {
    kind, mimeType, size: typeof attachment['size'] === 'number' ? attachment['size'] : 0,
    name: filename ?? `${label === 'voice note' ? 'voice' : kind}-${stamp}.${extension(mimeType)}`,
    ...(label !== undefined ? { label } : {}),
    fetch: () => fetch(id),
  };
}

function extension(mimeType: string): string {
  const sub = mimeType.split('/')[1]?.split(/[;+]/)[0] ?? 'bin';
  return sub === 'jpeg' ? 'jpg' : sub === 'mpeg' ? 'mp3' : /^[a-z0-9-]{1,10}$/.test(sub) ? sub : 'bin';
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
