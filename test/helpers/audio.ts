// Real local speech engines for tests: espeak-ng makes speech, ffmpeg encodes it as the platforms send it (OGG/Opus
// voice notes, MP4 video notes), ffprobe says what a file is, and pocketsphinx (Debian's offline recogniser, with
// its US English model) is the speech-to-text command. A `describeVoice` skips (or, in CI, fails) without them.
//
// Set-up: `npm test` does it (test/setup/global-setup.ts runs scripts/setup-voice.sh).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, inject, it } from 'vitest';
import { VOICE_FILES } from '../setup/parts.js';

export type VoiceStatus = { available: true } | { available: false; reason: string };

export function voiceStatus(): VoiceStatus {
  const missing = VOICE_FILES.filter((file) => !existsSync(file));
  if (missing.length > 0) return { available: false, reason: `ffmpeg, espeak-ng or pocketsphinx is not installed (missing ${missing.join(', ')}); run: sudo bash scripts/setup-voice.sh` };
  return { available: true };
}

export const voice: VoiceStatus = voiceStatus();
const inCI = process.env.CI === 'true';
let warned = false;

/** `describe` for tests that run the real engines; skipped without them, failing in CI. */
export function describeVoice(name: string, fn: () => void): void {
  if (!voice.available && inCI) {
    const reason = voice.reason;
    describe(name, () => {
      it('needs ffmpeg, espeak-ng and pocketsphinx', () => {
        throw new Error(`the voice engines are required in CI but unavailable: ${reason}`);
      });
    });
    return;
  }
  if (!voice.available && !warned && inject('familiarSetupSkipped').length === 0) {
    warned = true;
    console.warn(`[voice tests skipped] ${voice.reason}`);
  }
  describe.skipIf(!voice.available)(name, fn);
}

/**
 * The phrases the recogniser listens for. pocketsphinx's general English model hears espeak-ng's synthetic voice
 * badly (measured: "please remind me to buy milk tomorrow morning" came back as "the minute we took on to argue"),
 * so the tests give it a phrase grammar, as a command-style set-up would: it still has to pick the right phrases,
 * in the right order, out of the audio.
 */
export const PHRASES = [
  'please remind me to buy milk tomorrow morning',
  'what is the weather today',
  'good morning how are you',
  'call my mother tomorrow',
  'add eggs and bread to my shopping list',
  'turn off the lights',
  'what time is it',
  'send a message to my brother',
  'play some music',
] as const;

/** Writes the JSGF grammar into `dir` and returns voice.stt.command for pocketsphinx (the WAV file as {input}). */
export function pocketsphinxCommand(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const grammar = path.join(dir, 'phrases.gram');
  writeFileSync(grammar, `#JSGF V1.0;\ngrammar familiar;\npublic <utterance> = <phrase>+;\n<phrase> = ${PHRASES.join('\n  | ')};\n`);
  return ['pocketsphinx_continuous', '-infile', '{input}', '-jsgf', grammar, '-logfn', '/dev/null'];
}

/** espeak-ng as voice.tts.command: the text on stdin, WAV on stdout. */
export const ESPEAK_COMMAND = ['espeak-ng', '-v', 'en-us', '-s', '140', '--stdout'];

/** Speech made by espeak-ng (WAV, 22 kHz mono); the text goes on stdin. Several phrases get `gapS` of silence after each. */
export function speak(text: string | readonly string[], options: { gapS?: number } = {}): Buffer {
  const phrases = typeof text === 'string' ? [text] : text;
  const pcm: Buffer[] = [];
  for (const phrase of phrases) {
    const wav = made(['espeak-ng', phrase], () => execFileSync('espeak-ng', ['-v', 'en-us', '-s', '140', '--stdout'], { input: phrase, maxBuffer: 64 * 1024 * 1024 }));
    pcm.push(ffmpegPipe(['-f', 'wav', '-i', 'pipe:0', '-ac', '1', '-ar', '22050', '-f', 's16le', 'pipe:1'], wav));
    if (phrases.length > 1) pcm.push(Buffer.alloc(Math.round((options.gapS ?? 1) * 22050) * 2));
  }
  return ffmpegPipe(['-f', 's16le', '-ar', '22050', '-ac', '1', '-i', 'pipe:0', '-f', 'wav', 'pipe:1'], Buffer.concat(pcm));
}

/** Runs ffmpeg on `input` (stdin) and returns stdout. */
export function ffmpegPipe(args: readonly string[], input: Buffer): Buffer {
  return made(['ffmpeg', ...args, createHash('sha256').update(input).digest('hex')], () => execFileSync('ffmpeg', ['-v', 'error', '-nostdin', ...args], { input, maxBuffer: 256 * 1024 * 1024 }));
}

// The same phrase is spoken and encoded in many tests; espeak-ng and ffmpeg give the same bytes for the same input,
// so each is made once per worker (a copy each time: a test may change what it gets).
const madeBefore = new Map<string, Buffer>();
function made(key: readonly string[], make: () => Buffer): Buffer {
  const id = key.join('\u0000');
  let bytes = madeBefore.get(id);
  if (!bytes) {
    bytes = make();
    madeBefore.set(id, bytes);
  }
  return Buffer.from(bytes);
}

/** A Telegram-style voice note: OGG/Opus, mono 48 kHz. */
export function oggOpus(wav: Buffer): Buffer {
  return ffmpegPipe(['-i', 'pipe:0', '-ac', '1', '-ar', '48000', '-c:a', 'libopus', '-b:a', '32k', '-f', 'ogg', 'pipe:1'], wav);
}

/** An MP3 (what Discord's apps record and play). */
export function mp3(wav: Buffer): Buffer {
  return ffmpegPipe(['-i', 'pipe:0', '-ac', '1', '-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3', 'pipe:1'], wav);
}

/** A round video note: a black square video with the speech as its sound (MP4 needs a seekable output file). */
export function videoNote(wav: Buffer, dir: string): Buffer {
  mkdirSync(dir, { recursive: true });
  const audio = path.join(dir, 'note-sound.wav');
  const out = path.join(dir, 'note.mp4');
  writeFileSync(audio, wav);
  execFileSync('ffmpeg', ['-v', 'error', '-nostdin', '-y', '-f', 'lavfi', '-i', 'color=c=black:s=240x240:r=10', '-i', audio, '-shortest', '-c:v', 'mpeg4', '-c:a', 'aac', '-movflags', '+faststart', out]);
  return readFileSync(out);
}

export interface Probed {
  formatName: string;
  codec: string;
  channels: number;
  sampleRate: number;
  seconds: number;
}

/** What ffprobe says of a file: its container, its first audio stream's codec, and its length. */
export function probe(data: Buffer): Probed {
  const out = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=format_name,duration:stream=codec_name,codec_type,channels,sample_rate', '-of', 'json', '-i', 'pipe:0'], { input: data, maxBuffer: 16 * 1024 * 1024 });
  const json = JSON.parse(out.toString('utf8')) as { format?: { format_name?: string; duration?: string }; streams?: Array<{ codec_name?: string; codec_type?: string; channels?: number; sample_rate?: string }> };
  const stream = json.streams?.find((entry) => entry.codec_type === 'audio');
  return {
    formatName: json.format?.format_name ?? '',
    codec: stream?.codec_name ?? '',
    channels: stream?.channels ?? 0,
    sampleRate: Number(stream?.sample_rate ?? 0),
    seconds: Number(json.format?.duration ?? Number.NaN),
  };
}

/** The length of decodable audio, by decoding it all (an OGG stream piped to ffprobe has no duration header). */
export function decodedSeconds(data: Buffer): number {
  const pcm = ffmpegPipe(['-i', 'pipe:0', '-ac', '1', '-ar', '8000', '-f', 's16le', 'pipe:1'], data);
  return pcm.length / 16_000;
}

/** What pocketsphinx hears in any audio ffmpeg reads (for checking a spoken answer's words). */
export function recognise(data: Buffer, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const wav = path.join(dir, 'recognise.wav');
  writeFileSync(wav, ffmpegPipe(['-i', 'pipe:0', '-ac', '1', '-ar', '16000', '-f', 'wav', 'pipe:1'], data));
  const [program = '', ...args] = pocketsphinxCommand(dir).map((word) => word.replace('{input}', wav));
  return execFileSync(program, args, { stdio: ['ignore', 'pipe', 'ignore'] }).toString('utf8').replace(/\s+/g, ' ').trim();
}
