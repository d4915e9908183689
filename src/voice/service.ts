import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { failure, succeed, type Result } from '../lib/result.js';
import type { VoiceChats } from './chats.js';
import type { SttEngine, TtsEngine } from './engines.js';
import type { Ffmpeg } from './ffmpeg.js';
import { pieceBounds, secondsOf, wavFile } from './pcm.js';
import type { AudioFile, SpeakOptions, SpokenAudio, Transcript, TranscribeOptions, VoiceService } from './types.js';
import { formatSeconds, type VoiceUsage } from './usage.js';

export interface VoiceServiceDeps {
  voice: Config['voice'];
  log: Logger;
  ffmpeg: Ffmpeg;
  stt: SttEngine | undefined;
  tts: TtsEngine | undefined;
  usage: VoiceUsage;
  chats: VoiceChats;
  /** Private job folders are made here (default: the system's temporary folder). */
  tempRoot?: string;
}

/** Spoken English runs at about 15 characters a second: the estimate reserved against the cap before speaking. */
const CHARS_PER_SECOND = 15;
const REQUEST_TTL_MS = 3600_000;

/** voice_reply calls remembered per turn until the channel asks (`speechFor`), or an hour. */
export class SpeechRequests {
  private readonly requests = new Map<string, { text?: string; at: number }>();

  add(turnId: string, text: string | undefined, now = Date.now()): void {
    for (const [id, request] of this.requests) if (now - request.at > REQUEST_TTL_MS) this.requests.delete(id);
    this.requests.set(turnId, { ...(text !== undefined ? { text } : {}), at: now });
  }

  take(turnId: string): { text?: string } | undefined {
    const request = this.requests.get(turnId);
    if (!request) return undefined;
    this.requests.delete(turnId);
    return request.text !== undefined ? { text: request.text } : {};
  }
}

/**
 * Speech to text and text to speech for every channel (and the console): audio is decoded by ffmpeg, checked
 * against the size, length and daily limits, cut into pieces within the engine's limits, and the pieces' words
 * joined in order; answers are made speakable, synthesised and encoded for the platform. Each job works in its own
 * private temporary folder (0700), removed afterwards. Nothing here logs what was said.
 */
export function createVoiceService(deps: VoiceServiceDeps, requests: SpeechRequests): VoiceService {
  const { stt, tts, chats } = deps;
  return {
    hears: stt !== undefined,
    speaks: tts !== undefined,
    transcribe: (file, options = {}) => transcribe(deps, file, options),
    speak: (markdown, options) => speak(deps, markdown, options),
    speechFor({ channel, chatId, turnId, heardVoice }) {
      const asked = requests.take(turnId);
      if (!tts) return undefined;
      if (asked) return asked;
      const mode = chats.mode(channel, chatId);
      return mode === 'on' || (mode === 'auto' && heardVoice) ? {} : undefined;
    },
  };
}

/** Runs `work` in a private temporary folder (0700), removed afterwards; a throw is logged and said plainly. */
async function inJobFolder<T>(deps: VoiceServiceDeps, work: (dir: string) => Promise<Result<T>>): Promise<Result<T>> {
  let dir: string | undefined;
  try {
    dir = await mkdtemp(path.join(deps.tempRoot ?? tmpdir(), 'familiar-voice-'));
    return await work(dir);
  } catch (error) {
    deps.log.error({ err: error }, 'voice: job failed');
    return failure(`something went wrong on my side (${errorMessage(error).slice(0, 200)})`);
  } finally {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Audio decoded, checked against the limits, cut into pieces within the engine's limit, their words joined in order. */
async function transcribe(deps: VoiceServiceDeps, file: AudioFile, options: TranscribeOptions): Promise<Result<Transcript>> {
  const { voice, ffmpeg, stt, usage, log } = deps;
  const maxFileBytes = Math.floor(voice.max_file_mb * 1024 * 1024);
  if (!stt) return failure('speech to text is not set up here (voice.stt in the config)');
  if (file.data.length > maxFileBytes) {
    return failure(`it is ${(file.data.length / 1048576).toFixed(1)} MB; I transcribe files of at most ${voice.max_file_mb} MB (voice.max_file_mb)`);
  }
  const started = performance.now();
  return inJobFolder(deps, async (dir) => {
    const input = path.join(dir, `input${extensionOf(file.name)}`);
    await writeFile(input, file.data);
    const decoded = await ffmpeg.decode(input, { workDir: dir, maxSeconds: voice.max_duration_s, signal: options.signal });
    if (!decoded.success) return decoded;
    const pcm = decoded.value;
    const seconds = secondsOf(pcm);
    if (seconds > voice.max_duration_s) return failure(`it is longer than ${formatSeconds(voice.max_duration_s)}, the longest I transcribe (voice.max_duration_s)`);
    if (seconds < 0.1) return failure('it has no sound');
    const reserved = usage.reserve({ direction: 'in', seconds, engine: stt.kind, conversationId: options.conversationId });
    if (!reserved.success) return reserved;
    const bounds = pieceBounds(pcm, stt.maxPieceSeconds);
    const texts: string[] = [];
    for (let index = 0; index + 1 < bounds.length; index += 1) {
      const wav = wavFile(pcm.subarray(bounds[index], bounds[index + 1]));
      const wavPath = path.join(dir, `piece-${String(index + 1).padStart(3, '0')}.wav`);
      await writeFile(wavPath, wav);
      const heard = await stt.transcribe({ wav, wavPath, index }, { workDir: dir, signal: options.signal });
      if (!heard.success) {
        usage.release(reserved.value);
        const where = bounds.length > 2 ? ` (piece ${index + 1} of ${bounds.length - 1})` : '';
        return failure(`the speech-to-text engine failed${where}: ${heard.error}`);
      }
      texts.push(heard.value);
    }
    usage.commit(reserved.value, seconds);
    const text = texts.map((piece) => piece.replace(/\s+/g, ' ').trim()).filter((piece) => piece !== '').join(' ');
    log.info({ seconds: Math.round(seconds * 10) / 10, pieces: bounds.length - 1, engine: stt.kind, ms: Math.round(performance.now() - started) }, 'voice: transcribed');
    if (text === '') return failure('no words were recognised in it');
    return succeed({ text, seconds, pieces: bounds.length - 1, engine: stt.kind });
  });
}

/** An answer made speakable, synthesised and encoded for the platform, within the daily limit. */
async function speak(deps: VoiceServiceDeps, markdown: string, options: SpeakOptions): Promise<Result<SpokenAudio>> {
  const { voice, ffmpeg, tts, usage, log } = deps;
  if (!tts || !voice.tts) return failure('text to speech is not set up here (voice.tts in the config)');
  // marked is loaded on the first answer spoken, not at start.
  const { speakableText } = await import('./speech-text.js');
  const { text, truncated } = speakableText(markdown, voice.tts.max_chars);
  if (text === '') return failure('there are no words to say in this answer');
  const started = performance.now();
  return inJobFolder(deps, async (dir) => {
    const reserved = usage.reserve({ direction: 'out', seconds: text.length / CHARS_PER_SECOND, engine: tts.kind, conversationId: options.conversationId });
    if (!reserved.success) return reserved;
    const made = await tts.synthesize(text, { workDir: dir, signal: options.signal });
    if (!made.success) {
      usage.release(reserved.value);
      return failure(`the text-to-speech engine failed: ${made.error}`);
    }
    const encoded = await ffmpeg.encode(made.value, options.format, { workDir: dir, name: 'reply', signal: options.signal });
    if (!encoded.success) {
      usage.release(reserved.value);
      return failure(`the spoken answer could not be encoded: ${encoded.error}`);
    }
    usage.commit(reserved.value, encoded.value.seconds);
    log.info({ seconds: Math.round(encoded.value.seconds * 10) / 10, chars: text.length, engine: tts.kind, ms: Math.round(performance.now() - started) }, 'voice: spoke');
    const ogg = options.format === 'ogg_opus';
    return succeed({
      data: encoded.value.data, format: options.format, mimeType: ogg ? 'audio/ogg' : 'audio/mpeg', fileName: ogg ? 'answer.ogg' : 'answer.mp3',
      seconds: encoded.value.seconds, truncated,
    });
  });
}

/** A short, safe extension for ffmpeg's format guess (the name itself is never used). */
function extensionOf(name: string): string {
  const match = /\.([A-Za-z0-9]{1,5})$/.exec(name);
  return match ? `.${(match[1] ?? '').toLowerCase()}` : '';
}
