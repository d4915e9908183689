import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Result } from '../lib/result.js';
import { BYTES_PER_SECOND, SAMPLE_RATE } from './pcm.js';
import { lastLine, runProgram, type RunOutcome } from './run.js';

/** What ffmpeg makes: Telegram's voice notes (OGG/Opus), an MP3 every player plays, and the upload formats. */
export type EncodeTarget = 'ogg_opus' | 'mp3' | 'flac' | 'ogg' | 'speech_mp3';

const TARGETS: Record<EncodeTarget, { args: string[]; extension: string }> = {
  // Telegram plays OGG with Opus inline as a voice message; 48 kHz mono at 32 kbit/s is what its apps record.
  ogg_opus: { args: ['-ac', '1', '-ar', '48000', '-c:a', 'libopus', '-b:a', '32k', '-application', 'voip', '-f', 'ogg'], extension: 'ogg' },
  mp3: { args: ['-ac', '1', '-ar', '44100', '-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3'], extension: 'mp3' },
  // Upload formats for a recogniser: 16 kHz mono, as small as keeps the words.
  flac: { args: ['-ac', '1', '-ar', String(SAMPLE_RATE), '-c:a', 'flac', '-f', 'flac'], extension: 'flac' },
  ogg: { args: ['-ac', '1', '-ar', String(SAMPLE_RATE), '-c:a', 'libopus', '-b:a', '24k', '-application', 'voip', '-f', 'ogg'], extension: 'ogg' },
  speech_mp3: { args: ['-ac', '1', '-ar', String(SAMPLE_RATE), '-c:a', 'libmp3lame', '-b:a', '32k', '-f', 'mp3'], extension: 'mp3' },
};

/** The most bytes a second of each upload format can take (for cutting pieces under an upload limit). */
export const UPLOAD_BYTES_PER_SECOND: Record<'wav' | 'flac' | 'mp3' | 'ogg', number> = {
  wav: BYTES_PER_SECOND,
  flac: BYTES_PER_SECOND, // FLAC never exceeds the PCM it holds by more than its headers
  mp3: 4_500,
  ogg: 3_500,
};

const TIMEOUT_MS = 300_000;

/**
 * ffmpeg, run as a program (no library binding): decodes whatever arrives — OGG/Opus voice notes, MP3, M4A, a video
 * note's sound — to 16 kHz mono PCM, and encodes what is sent. Input and output are files in the job's private
 * folder; ffmpeg reads no stdin. Contract: never throws; failures say what to do.
 */
export class Ffmpeg {
  constructor(private readonly program: string) {}

  /** Decodes the first sound track of `input` to PCM, at most `maxSeconds` (+1 s, so "longer than" can be told). */
  async decode(input: string, options: { workDir: string; maxSeconds: number; signal?: AbortSignal | undefined }): Promise<Result<Buffer>> {
    const limit = options.maxSeconds + 1;
    const ran = await this.run(
      ['-i', input, '-map', '0:a:0', '-vn', '-ac', '1', '-ar', String(SAMPLE_RATE), '-t', String(limit), '-f', 's16le', 'pipe:1'],
      { workDir: options.workDir, signal: options.signal, maxStdoutBytes: Math.ceil(limit * BYTES_PER_SECOND) + BYTES_PER_SECOND },
    );
    if (!ran.success) return ran;
    const outcome = ran.value;
    if (outcome.code !== 0) return { success: false, error: readFailure(outcome.stderr) };
    return { success: true, value: outcome.stdout };
  }

  /**
   * Encodes `input` (any audio ffmpeg reads) to `target` in `workDir`, and measures its length from the same run
   * (a second output: 8 kHz PCM, counted, not kept in memory).
   */
  async encode(input: string, target: EncodeTarget, options: { workDir: string; name: string; signal?: AbortSignal | undefined; maxBytes?: number }): Promise<Result<{ data: Buffer; seconds: number; file: string }>> {
    const spec = TARGETS[target];
    const file = path.join(options.workDir, `${options.name}.${spec.extension}`);
    const counter = path.join(options.workDir, `${options.name}.count.raw`);
    const ran = await this.run(
      ['-i', input, '-map', '0:a:0', '-vn', ...spec.args, file, '-map', '0:a:0', '-vn', '-ac', '1', '-ar', '8000', '-f', 's16le', counter],
      { workDir: options.workDir, signal: options.signal, maxStdoutBytes: 65_536 },
    );
    if (!ran.success) return ran;
    if (ran.value.code !== 0) return { success: false, error: readFailure(ran.value.stderr) };
    try {
      const size = (await stat(file)).size;
      if (options.maxBytes !== undefined && size > options.maxBytes) return { success: false, error: `the encoded audio is ${Math.round(size / 1048576)} MB, more than allowed` };
      const seconds = (await stat(counter)).size / 16_000;
      return { success: true, value: { data: await readFile(file), seconds, file } };
    } catch (error) {
      return { success: false, error: `ffmpeg wrote no output (${(error as Error).message})` };
    }
  }

  /** `ffmpeg -version`'s first line, or why it cannot run. */
  async version(workDir: string): Promise<Result<string>> {
    const ran = await this.run(['-version'], { workDir, maxStdoutBytes: 1_000_000, bare: true });
    if (!ran.success) return ran;
    if (ran.value.code !== 0) return { success: false, error: `${this.program} -version failed: ${lastLine(ran.value.stderr)}` };
    return { success: true, value: (ran.value.stdout.toString('utf8').split('\n')[0] ?? '').trim() };
  }

  private async run(args: string[], options: { workDir: string; signal?: AbortSignal | undefined; maxStdoutBytes: number; bare?: boolean }): Promise<Result<RunOutcome>> {
    const common = options.bare ? [] : ['-nostdin', '-hide_banner', '-v', 'error', '-y'];
    let outcome: RunOutcome;
    try {
      outcome = await runProgram({ program: this.program, args: [...common, ...args], cwd: options.workDir, timeoutMs: TIMEOUT_MS, signal: options.signal, maxStdoutBytes: options.maxStdoutBytes });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return { success: false, error: code === 'ENOENT' ? `${this.program} is not installed here (Debian: apt-get install ffmpeg), or voice.ffmpeg names the wrong program` : `${this.program} cannot be started (${code ?? (error as Error).message})` };
    }
    if (outcome.cancelled) return { success: false, error: 'stopped' };
    if (outcome.timedOut) return { success: false, error: `ffmpeg took longer than ${TIMEOUT_MS / 1000} s` };
    if (outcome.overflow) return { success: false, error: 'ffmpeg produced more audio than allowed' };
    return { success: true, value: outcome };
  }
}

function readFailure(stderr: string): string {
  if (/matches no streams|does not contain any stream|Output file #0 does not contain/i.test(stderr)) return 'it has no sound to transcribe';
  return `ffmpeg cannot read it as audio (${lastLine(stderr) || 'no reason given'})`;
}
