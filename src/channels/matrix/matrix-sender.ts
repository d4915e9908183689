import { MatrixError, type MatrixClient } from 'matrix-js-sdk';
import type { ReplyButton } from '../../delivery/types.js';
import type { Logger } from '../../log.js';
import { splitMessage } from '../split.js';
import type { OutboundReply, SpokenReply } from '../types.js';
import {
  MATRIX_LIMIT, artifactFile, editContent, fileContent, reactionContent, textContent, voiceContent, withoutHtml, type EventContent,
} from './matrix-content.js';

/** The typing notice lasts this long unless renewed (the router renews it every 4 s while a turn runs). */
const TYPING_MS = 6000;
const DOWNLOAD_TIMEOUT_MS = 60_000;
/** Delivered messages with reaction buttons remembered (the oldest are forgotten first). */
const BUTTON_MESSAGES = 200;
/** Reaction keys for the buttons under a message, in order: keycaps one to nine. */
export const BUTTON_KEYS = ['1️⃣', '2️⃣', '3️⃣', '4️⃣', '5️⃣', '6️⃣', '7️⃣', '8️⃣', '9️⃣'];

/** A delivered message with buttons: a reaction with one of its keys presses that button. */
export interface ButtonMessage {
  roomId: string;
  text: string;
  buttons: readonly ReplyButton[];
  /** The bot's own reactions under it, removed once a press counted. */
  reactions: string[];
}

/**
 * Everything the bot sends to Matrix, through matrix-js-sdk (its send queue retries with the same transaction id,
 * which the homeserver answers idempotently). Text goes as `m.text` with Matrix HTML, and again without the HTML
 * when the homeserver refuses it; files are uploaded first (`/media/v3/upload`), then sent as events.
 */
export class MatrixSender {
  private readonly client: MatrixClient;
  private readonly log: Logger;
  /** Reply buttons are reactions: the messages that carry them, by event id. */
  readonly buttonMessages = new Map<string, ButtonMessage>();

  constructor(deps: { client: MatrixClient; log: Logger }) {
    this.client = deps.client;
    this.log = deps.log;
  }

  /** A reply: its text in parts (the first one a reply to `replyTo`), buttons as numbered reactions, then its files. */
  async reply(roomId: string, reply: OutboundReply, replyTo?: string): Promise<void> {
    const buttons = (reply.buttons ?? []).slice(0, BUTTON_KEYS.length);
    const legend = buttons.length > 0 ? `\n\n${buttons.map((button, index) => `${BUTTON_KEYS[index]} ${button.label}`).join('   ')}` : '';
    const parts = splitMessage(reply.text, MATRIX_LIMIT - legend.length);
    let last: string | undefined;
    for (const [index, part] of parts.entries()) {
      const text = index === parts.length - 1 ? `${part}${legend}` : part;
      last = await this.text(roomId, text, { replyTo: index === 0 ? replyTo : undefined });
    }
    if (last !== undefined && buttons.length > 0) await this.offerButtons(roomId, last, `${parts.at(-1) ?? ''}${legend}`, buttons);
    for (const artifact of reply.artifacts ?? []) {
      const file = artifactFile(artifact);
      const url = await this.upload(file.data, file.name, file.mimeType);
      await this.event(roomId, 'm.room.message', fileContent({ name: file.name, size: file.data.length, mimeType: file.mimeType }, url, artifact.type === 'image' || file.mimeType.startsWith('image/')));
    }
    // The answer is out: the typing notice goes now rather than when it times out.
    this.client.sendTyping(roomId, false, 0).catch((error: unknown) => this.log.debug({ err: error }, 'matrix: typing off failed'));
  }

  /**
   * One text message; its event id. Formatted (Markdown as Matrix HTML) unless `plain`; a homeserver that refuses the
   * formatted event (400, 413) gets the same text without the HTML.
   */
  async text(roomId: string, text: string, options: { replyTo?: string | undefined; notice?: boolean; plain?: boolean } = {}): Promise<string> {
    const content = textContent(text, options);
    try {
      return await this.event(roomId, 'm.room.message', content);
    } catch (error) {
      const refused = error instanceof MatrixError && (error.httpStatus === 400 || error.httpStatus === 413);
      if (!refused || content['formatted_body'] === undefined) throw error;
      this.log.warn({ err: error, roomId }, 'matrix: the homeserver refused the formatted message; sending it as plain text');
      return this.event(roomId, 'm.room.message', withoutHtml(content));
    }
  }

  /** Replaces the text of one of the bot's messages (`m.replace`). */
  async edit(roomId: string, eventId: string, text: string, notice = false): Promise<void> {
    await this.event(roomId, 'm.room.message', editContent(eventId, text, notice));
  }

  /** Puts a reaction on a message; the reaction's event id. */
  react(roomId: string, eventId: string, key: string): Promise<string> {
    return this.event(roomId, 'm.reaction', reactionContent(eventId, key));
  }

  /** Takes back one of the bot's events (its own reactions once a question is decided). Never throws. */
  async redact(roomId: string, eventId: string): Promise<void> {
    await this.client.redactEvent(roomId, eventId).catch((error: unknown) => this.log.debug({ err: error, eventId }, 'matrix: redaction failed'));
  }

  async typing(roomId: string): Promise<void> {
    await this.client.sendTyping(roomId, true, TYPING_MS);
  }

  /** A spoken answer as a voice message (OGG/Opus, played inline by Element and other apps). */
  async voice(roomId: string, audio: SpokenReply): Promise<void> {
    const url = await this.upload(audio.data, audio.fileName, audio.mimeType);
    await this.event(roomId, 'm.room.message', voiceContent(audio, url));
  }

  /**
   * A file a person sent, from the homeserver's authenticated media API (`/_matrix/client/v1/media/download`): the
   * token goes in the header, to the homeserver only, and redirects are not asked for.
   */
  async download(mxc: string): Promise<Buffer> {
    const url = this.client.mxcUrlToHttp(mxc, undefined, undefined, undefined, false, false, true);
    if (!url) throw new Error(`not a Matrix media address: ${mxc.slice(0, 100)}`);
    const token = this.client.getAccessToken() ?? '';
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` }, redirect: 'error', signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`the homeserver answered HTTP ${response.status} for the file`);
    return Buffer.from(await response.arrayBuffer());
  }

  private async upload(data: Buffer, name: string, type: string): Promise<string> {
    const uploaded = await this.client.uploadContent(data, { name, type, includeFilename: true });
    return uploaded.content_uri;
  }

  /** Sends one event; its id. The SDK's types list known contents only; these are built by matrix-content.ts. */
  private async event(roomId: string, type: 'm.room.message' | 'm.reaction', content: EventContent): Promise<string> {
    const send = this.client.sendEvent.bind(this.client) as (room: string, eventType: string, body: EventContent) => Promise<{ event_id: string }>;
    return (await send(roomId, type, content)).event_id;
  }

  /** Remembers a message's buttons and adds their keys as the bot's own reactions, so each is one tap. */
  private async offerButtons(roomId: string, eventId: string, text: string, buttons: readonly ReplyButton[]): Promise<void> {
    const message: ButtonMessage = { roomId, text, buttons, reactions: [] };
    this.buttonMessages.set(eventId, message);
    if (this.buttonMessages.size > BUTTON_MESSAGES) this.buttonMessages.delete(this.buttonMessages.keys().next().value ?? '');
    for (const key of BUTTON_KEYS.slice(0, buttons.length)) {
      try {
        message.reactions.push(await this.react(roomId, eventId, key));
      } catch (error) {
        // The legend still says which key is which: the person can add the reaction themselves.
        this.log.debug({ err: error }, 'matrix: a button reaction could not be added');
      }
    }
  }
}

/** A reaction key without variation selectors: "✅" and "✅\uFE0F" are the same answer. */
export function bareKey(key: string): string {
  return key.replace(/\uFE0F/g, '');
}
