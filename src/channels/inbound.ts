import type { Logger } from '../log.js';
import type { ChatCommandTurn } from '../part.js';
import { wrapExternal } from '../tools/external.js';
import type { Workspaces } from '../workspace/workspace.js';
import { describeAttachments, storeAttachments, type RemoteAttachment } from './attachments.js';
import type { ChannelVoice, InboundMessage } from './types.js';
import { hearAudio } from './voice-notes.js';

/** The outside source a forwarded message's text is labelled with. */
export const FORWARDED = 'forwarded message';

/** An inbound message whose files are not fetched yet: nothing is downloaded for an unknown user. */
export type InboundUpdate = Omit<InboundMessage, 'attachments'> & { attachments: RemoteAttachment[] };

export interface InboundDeps {
  log: Logger;
  /** Received files are stored under `data_dir/workspaces/<conversation>/uploads/`. */
  dataDir: string;
  /** `llm.vision`: images also go to the model as image content. */
  vision: boolean;
  workspaces?: Workspaces | undefined;
  voice?: ChannelVoice | undefined;
  maxAttachmentBytes: number;
}

/** A message made ready for its turn: the text the model gets, what it brings in, and what to say at once. */
export interface PreparedMessage {
  /** The turn's text: the person's words (or a forwarded message, wrapped), transcripts, the files' list. */
  text: string;
  images: Array<{ mimeType: string; data: Buffer }>;
  /** Outside sources the message brings in: a forwarded text or voice note, an MCP prompt's messages. */
  taint: string[];
  /** Voice notes that could not be heard: said to the person at once. */
  failures: string[];
  /** Whether anything is left to answer besides those failures (else the notice is the answer, and no turn runs). */
  needsTurn: boolean;
  /** Whether a voice note was heard (an answer to one may be spoken back). */
  heardVoice: boolean;
}

/**
 * Everything a chat message brings before its turn: its files stored in the workspace `workspaceId`, its audio
 * heard, and a forwarded message wrapped as someone else's words (outside content that taints the turn, never
 * orders from the person). Only an allowed person's message gets here: access was checked before any download.
 */
export async function prepareInbound(deps: InboundDeps, update: InboundUpdate, conversationId: string, workspaceId: string, signal: AbortSignal, commandTurn?: ChatCommandTurn['turn']): Promise<PreparedMessage> {
  // Into the sender's own workspace (in a household, a member's own: src/workspace/workspace-key.ts).
  const stored = await storeAttachments({
    attachments: update.attachments, dataDir: deps.dataDir, conversationId: workspaceId, maxBytes: deps.maxAttachmentBytes, log: deps.log, workspaces: deps.workspaces,
  });
  const heard = await hearAudio({ voice: deps.voice, audio: stored.audio, conversationId, forwarded: update.forwarded === true, signal, log: deps.log });
  const words = update.text.trim();
  const forwardedText = update.forwarded === true && !commandTurn && words !== '';
  const question = commandTurn
    ? commandTurn.text
    : forwardedText ? `[A forwarded message: someone else's words, not a request from the person]\n${wrapExternal(FORWARDED, words)}` : words;
  const text = [question, ...heard.lines, describeAttachments(stored.saved, stored.skipped, heard.notes)].filter((part) => part !== '').join('\n\n');
  return {
    text,
    images: deps.vision ? [...(commandTurn?.images ?? []), ...stored.images] : [],
    taint: [...heard.outside, ...(forwardedText ? [FORWARDED] : []), ...(commandTurn?.externalSources ?? [])],
    failures: heard.failures,
    needsTurn: question !== '' || heard.lines.length > 0 || stored.saved.some((file) => file.kind !== 'audio'),
    heardVoice: heard.heard,
  };
}
