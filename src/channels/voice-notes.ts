import path from 'node:path';
import type { Logger } from '../log.js';
import { wrapExternal } from '../tools/external.js';
import type { DownloadedAudio } from './attachments.js';
import type { ChannelVoice, SpokenReply } from './types.js';

/** What the person's audio became: lines for the turn, notes on the files, and what to tell the person. */
export interface HeardAudio {
  /** The transcripts, marked, in the order the files came (the message's own words). */
  lines: string[];
  /** By stored path: "transcribed above" / "not transcribed: why". */
  notes: Map<string, string>;
  /** Told to the person at once: a transcription that failed, and that the file is kept. */
  failures: string[];
  /** At least one transcript: the person spoke (for /voice auto). */
  heard: boolean;
  /** Outside sources among the transcripts (a forwarded voice note): the turn starts tainted by them. */
  outside: string[];
}

/** The mark a transcript carries in the turn, so the model (and the history) know the words were spoken. */
export const TRANSCRIBED = '🎤 (transcribed';

/**
 * Transcribes the audio an allowed person sent (the router checked access before anything was downloaded). The
 * transcript is their words — unless the message was forwarded: then it is someone else speaking, and it is
 * wrapped as outside content. A failure is told to the person, and the file stays in the workspace.
 * Without speech to text, the agent is told that the audio was not transcribed. Contract: never throws.
 */
export async function hearAudio(input: {
  voice: ChannelVoice | undefined;
  audio: readonly DownloadedAudio[];
  conversationId: string;
  forwarded: boolean;
  signal: AbortSignal;
  log: Logger;
}): Promise<HeardAudio> {
  const heard: HeardAudio = { lines: [], notes: new Map(), failures: [], heard: false, outside: [] };
  if (input.audio.length === 0) return heard;
  const { voice } = input;
  if (!voice?.hears) {
    for (const file of input.audio) if (file.saved) heard.notes.set(file.saved.path, 'not transcribed: speech to text is not set up (voice.stt)');
    return heard;
  }
  for (const file of input.audio) {
    let result;
    try {
      result = await voice.transcribe({ data: file.data, name: file.name, mimeType: file.mimeType }, { conversationId: input.conversationId, signal: input.signal });
    } catch (error) {
      input.log.error({ err: error }, 'voice: transcription threw');
      result = { success: false as const, error: 'something went wrong on my side' };
    }
    if (input.signal.aborted) return heard;
    if (result.success) {
      heard.heard = true;
      if (input.forwarded) {
        heard.lines.push(`${TRANSCRIBED} from a forwarded ${file.label}: someone else speaking, not a request from the person)\n${wrapExternal(`forwarded ${file.label}`, result.value.text)}`);
        // Not only marked for the model: the turn holds outside content, so its calls are gated as in any tainted turn.
        if (!heard.outside.includes(`forwarded ${file.label}`)) heard.outside.push(`forwarded ${file.label}`);
      } else {
        heard.lines.push(`${TRANSCRIBED} ${file.label}) ${result.value.text}`);
      }
      if (file.saved) heard.notes.set(file.saved.path, `the ${file.label} transcribed above`);
      continue;
    }
    input.log.warn({ file: file.name, reason: result.error }, 'voice: transcription failed');
    const kept = file.saved
      ? `It is kept in this conversation's workspace as uploads/${path.basename(file.saved.path)}.`
      : `It could not be kept either: ${file.notSaved ?? 'it was not stored'}.`;
    heard.failures.push(`I could not transcribe your ${file.label}: ${result.error}. ${kept}`);
    if (file.saved) heard.notes.set(file.saved.path, `not transcribed: ${result.error}`);
  }
  return heard;
}

/** How a chat plays a spoken answer: the format its platform shows inline, and how to send it there. */
export interface VoiceOut {
  format: 'ogg_opus' | 'mp3';
  send(audio: SpokenReply): Promise<void>;
  /** "recording a voice message…" while the answer is being spoken. */
  recording?(): Promise<void>;
}

/**
 * After a turn's text went out: speaks the answer when the chat's /voice mode or the turn ("say it") asks for it,
 * and sends it as the platform's voice message. A failure is said in one short line; the text was sent already.
 * Contract: never throws.
 */
export async function speakAnswer(input: {
  voice: ChannelVoice | undefined;
  out: VoiceOut | undefined;
  channel: string;
  chatId: string;
  turnId: string;
  answer: string;
  answered: boolean;
  heardVoice: boolean;
  conversationId: string;
  signal: AbortSignal;
  sendText(text: string): Promise<void>;
  log: Logger;
}): Promise<void> {
  const { voice, out } = input;
  if (!voice) return;
  try {
    // Asked even when nothing will be spoken, so a "say it" of a failed turn is forgotten.
    const wanted = voice.speechFor({ channel: input.channel, chatId: input.chatId, turnId: input.turnId, heardVoice: input.heardVoice });
    if (!wanted || !input.answered || !out || input.signal.aborted) return;
    out.recording?.().catch((error: unknown) => input.log.debug({ err: error }, 'voice: recording indicator failed'));
    const spoken = await voice.speak(wanted.text ?? input.answer, { format: out.format, conversationId: input.conversationId, signal: input.signal });
    if (!spoken.success) {
      if (!input.signal.aborted) await input.sendText(`(Not spoken: ${spoken.error}.)`);
      return;
    }
    await out.send(spoken.value);
  } catch (error) {
    input.log.warn({ err: error }, 'voice: the spoken answer could not be sent');
    await input.sendText('(The spoken answer could not be sent; the text above is the whole answer.)').catch(() => undefined);
  }
}
