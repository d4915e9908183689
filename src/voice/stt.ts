import type OpenAI from 'openai';
import { failure, succeed, type Result } from '../lib/result.js';
import type { EngineContext, SttEngine, SttSettings } from './engines.js';
import { describeEndpointFailure } from './failure.js';
import { UPLOAD_BYTES_PER_SECOND, type EncodeTarget, type Ffmpeg } from './ffmpeg.js';
import { commandArgs, describeRunFailure } from './command.js';
import { runProgram } from './run.js';

const UPLOAD_TARGET: Record<'flac' | 'mp3' | 'ogg', EncodeTarget> = { flac: 'flac', mp3: 'speech_mp3', ogg: 'ogg' };
const UPLOAD_TYPE: Record<'wav' | 'flac' | 'mp3' | 'ogg', string> = { wav: 'audio/wav', flac: 'audio/flac', mp3: 'audio/mpeg', ogg: 'audio/ogg' };
const MAX_TRANSCRIPT_BYTES = 1_000_000;

/** Speech to text through the engine the config names. */
export function createSttEngine(settings: SttSettings, ffmpeg: Ffmpeg): SttEngine {
  return settings.kind === 'endpoint' ? endpointEngine(settings, ffmpeg) : commandEngine(settings);
}

/**
 * An OpenAI-compatible `/audio/transcriptions` endpoint (OpenAI, Groq, a local Whisper server), through the
 * `openai` client: a multipart upload of one piece, the `json` response's `text`. The client retries 408/409/429/5xx
 * itself (honouring retry-after), up to `max_retries`.
 */
function endpointEngine(settings: Extract<SttSettings, { kind: 'endpoint' }>, ffmpeg: Ffmpeg): SttEngine {
  let client: Promise<{ openai: OpenAI; toFile: typeof import('openai').toFile }> | undefined;
  const connect = () => (client ??= import('openai').then(({ default: OpenAIClient, toFile }) => ({
    openai: new OpenAIClient({ baseURL: settings.baseUrl, apiKey: settings.apiKey || 'none', maxRetries: settings.maxRetries, timeout: settings.timeoutS * 1000 }),
    toFile,
  })));
  // A piece must fit the provider's upload limit in the format it is sent in (1 s of slack for headers).
  const byUpload = Math.floor(settings.maxUploadBytes / UPLOAD_BYTES_PER_SECOND[settings.format]) - 1;
  return {
    kind: 'endpoint',
    label: `${settings.baseUrl} (${settings.model})`,
    maxPieceSeconds: Math.max(5, Math.min(settings.maxPieceS, byUpload)),
    async transcribe(piece, context: EngineContext): Promise<Result<string>> {
      let data = piece.wav;
      let name = `voice-${piece.index + 1}.wav`;
      if (settings.format !== 'wav') {
        const encoded = await ffmpeg.encode(piece.wavPath, UPLOAD_TARGET[settings.format], { workDir: context.workDir, name: `upload-${piece.index + 1}`, signal: context.signal });
        if (!encoded.success) return encoded;
        data = encoded.value.data;
        name = `voice-${piece.index + 1}.${settings.format === 'mp3' ? 'mp3' : settings.format}`;
      }
      try {
        const { openai, toFile } = await connect();
        const result = await openai.audio.transcriptions.create(
          {
            file: await toFile(data, name, { type: UPLOAD_TYPE[settings.format] }),
            model: settings.model,
            response_format: 'json',
            ...(settings.language !== undefined ? { language: settings.language } : {}),
          },
          context.signal ? { signal: context.signal } : {},
        );
        return succeed(typeof result.text === 'string' ? result.text : '');
      } catch (error) {
        if (context.signal?.aborted) return failure('stopped');
        return failure(describeEndpointFailure(error, { key: 'voice.stt', baseUrl: settings.baseUrl, model: settings.model, timeoutS: settings.timeoutS }));
      }
    },
  };
}

/**
 * A local recogniser (whisper.cpp, pocketsphinx, vosk's script…): run once per piece with the piece's WAV file
 * (16 kHz mono) as `{input}` or as the last argument; what it prints on stdout is the text.
 */
function commandEngine(settings: Extract<SttSettings, { kind: 'command' }>): SttEngine {
  const [program = '', ...rest] = settings.words;
  return {
    kind: 'command',
    label: `command ${program}`,
    maxPieceSeconds: settings.maxPieceS,
    async transcribe(piece, context): Promise<Result<string>> {
      try {
        const outcome = await runProgram({
          program, args: commandArgs(rest, { input: piece.wavPath }, 'input'), cwd: context.workDir,
          timeoutMs: settings.timeoutS * 1000, signal: context.signal, maxStdoutBytes: MAX_TRANSCRIPT_BYTES,
        });
        const failed = describeRunFailure(outcome, program, 'voice.stt');
        if (failed !== undefined) return failure(failed);
        return succeed(outcome.stdout.toString('utf8'));
      } catch (error) {
        return failure(describeRunFailure(error, program, 'voice.stt') ?? 'the command failed');
      }
    },
  };
}
