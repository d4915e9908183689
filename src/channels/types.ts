import type { ReplyButton } from '../delivery/types.js';
import type { Result } from '../lib/result.js';
import type { Artifact } from '../tools/types.js';

/** `audio`: a voice note, an audio file or a video note: its words are transcribed when voice.stt is set. */
export type AttachmentKind = 'image' | 'file' | 'audio';

/** A file that came with a message, already stored under the conversation's workspace. */
export interface InboundAttachment {
  kind: AttachmentKind;
  /** What the person sent, in words ("voice note", "video note", "audio file"), for audio. */
  label?: string;
  name: string;
  mimeType: string;
  size: number;
  /** Where the stored copy is, relative to the conversation's workspace (`uploads/<stamp>-<name>`). */
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
  /** Forwarded from elsewhere: its words (a voice note's too) are someone else's, not the sender's request. */
  forwarded?: boolean;
}

export interface OutboundReply {
  text: string;
  artifacts?: Artifact[];
  /** Buttons under the text (a delivered reminder's); a press goes to the part that made them (a platform's listenForButtons, platform.ts). */
  buttons?: readonly ReplyButton[];
}

export interface ChannelAdapter {
  readonly name: string;
  /** Send a reply to a chat (splitting, formatting and retries are the adapter's job). */
  send(chatId: string, reply: OutboundReply): Promise<void>;
  /**
   * The chat id of a direct chat with this user, opened through the platform when its client can (Discord's DM
   * channel, Slack's IM); undefined when the platform cannot open one. Where a direct chat's id is the user's own
   * (Telegram, Signal), that id. Contract: never throws.
   */
  directChat?(userId: string): Promise<string | undefined>;
}

/** A spoken answer, encoded the way the platform plays it inline. */
export interface SpokenReply {
  data: Buffer;
  mimeType: string;
  fileName: string;
  seconds: number;
}

/**
 * What the channels use of the voice part (the root passes its service): transcripts of the audio an allowed person
 * sent, and spoken answers when the chat or the turn asks for them. Contract: none of these throws.
 */
export interface ChannelVoice {
  /** Speech to text is set up. */
  readonly hears: boolean;
  transcribe(file: { data: Buffer; name: string; mimeType?: string | undefined }, options: { conversationId: string; signal?: AbortSignal | undefined }): Promise<Result<{ text: string; seconds: number }>>;
  speak(text: string, options: { format: 'ogg_opus' | 'mp3'; conversationId: string; signal?: AbortSignal | undefined }): Promise<Result<SpokenReply & { truncated: boolean }>>;
  /** Whether (and what) to speak after a turn's answer: the chat's /voice mode, or "say it" in the turn. */
  speechFor(input: { channel: string; chatId: string; turnId: string; heardVoice: boolean }): { text?: string } | undefined;
}
