/**
 * The voice part's service, as the channels and the console use it: `transcribe` turns audio into the words spoken,
 * `speak` turns an answer into a voice message the platform plays inline. Both never throw.
 */
import type { Config } from '../config/schema.js';
import type { Database } from '../db/database.js';
import type { Result } from '../lib/result.js';
import type { Logger } from '../log.js';

/** An audio file as it arrived (a voice note, an audio file, a video note, an upload in the console). */
export interface AudioFile {
  data: Buffer;
  /** The file's name, for the reason of a failure only (it is never a command-line argument). */
  name: string;
  mimeType?: string | undefined;
}

export interface Transcript {
  /** The words, pieces joined in order. */
  text: string;
  /** The audio's length. */
  seconds: number;
  pieces: number;
  /** `endpoint` or `command`. */
  engine: string;
}

/** What a platform plays inline: Telegram's voice notes are OGG/Opus; Discord (and browsers) play MP3 everywhere. */
export type VoiceFormat = 'ogg_opus' | 'mp3';

export interface SpokenAudio {
  data: Buffer;
  format: VoiceFormat;
  mimeType: string;
  fileName: string;
  seconds: number;
  /** The text was longer than voice.tts.max_chars: only its beginning is spoken. */
  truncated: boolean;
}

export interface TranscribeOptions {
  /** For the usage record. */
  conversationId?: string | undefined;
  signal?: AbortSignal | undefined;
}

export interface SpeakOptions {
  format: VoiceFormat;
  conversationId?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** /voice per chat: `on` speaks every answer, `auto` the answers to voice notes, `off` none (unless asked). */
export type ChatVoiceMode = 'off' | 'on' | 'auto';

export interface VoiceService {
  /** Speech to text is configured (voice.stt). */
  readonly hears: boolean;
  /** Text to speech is configured (voice.tts). */
  readonly speaks: boolean;
  /** Contract: never throws; a failure says what went wrong and what to do, in words for the person. */
  transcribe(file: AudioFile, options?: TranscribeOptions): Promise<Result<Transcript>>;
  /** Markdown in, speech out (code blocks and tables are left to the text). Contract: never throws. */
  speak(text: string, options: SpeakOptions): Promise<Result<SpokenAudio>>;
  /**
   * Whether a turn's answer should also be spoken, and what to say: the chat's /voice mode, or the `voice_reply`
   * tool called in that turn (with its own text, or the answer). Forgets the turn's request.
   */
  speechFor(input: { channel: string; chatId: string; turnId: string; heardVoice: boolean }): { text?: string } | undefined;
}

/** What `createVoicePart` is given (part.ts), and the engines with it when a voice section is set (engines-part.ts). */
export interface VoicePartDeps {
  config: Pick<Config, 'voice' | 'llm' | 'timezone'>;
  db: Database;
  log: Logger;
  now?: () => Date;
  /** Where private job folders go (tests); default the system's temporary folder. */
  tempRoot?: string;
}
