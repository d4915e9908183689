import type { Artifact } from '../tools/types.js';

/** A file that came with a message, already stored under the conversation's workspace. */
export interface InboundAttachment {
  kind: 'image' | 'file';
  name: string;
  mimeType: string;
  size: number;
  /** Host path of the stored copy. */
  path: string;
}

/** The one shape every adapter turns platform updates into. */
export interface InboundMessage {
  channel: string;
  chatId: string;
  userId: string;
  userName: string;
  text: string;
  attachments: InboundAttachment[];
  platformMessageId: string;
  replyTo?: string;
  /** A direct (private) chat rather than a group or guild channel. */
  isDirect: boolean;
}

export interface OutboundReply {
  text: string;
  artifacts?: Artifact[];
}

export interface ChannelAdapter {
  readonly name: string;
  /** Send a reply to a chat (splitting, formatting and retries are the adapter's job). */
  send(chatId: string, reply: OutboundReply): Promise<void>;
}
