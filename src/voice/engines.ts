import type { Config } from '../config/schema.js';
import { parseCommandLine } from '../lib/command-line.js';
import type { Result } from '../lib/result.js';

/** The job's private folder and the cancel signal, for one engine call. */
export interface EngineContext {
  workDir: string;
  signal?: AbortSignal | undefined;
}

/** Speech to text for one piece of at most `maxPieceSeconds` (16 kHz mono PCM, also written as a WAV file). */
export interface SttEngine {
  readonly kind: 'endpoint' | 'command';
  /** For doctor and logs: where it runs. */
  readonly label: string;
  readonly maxPieceSeconds: number;
  transcribe(piece: { wav: Buffer; wavPath: string; index: number }, context: EngineContext): Promise<Result<string>>;
}

/** Text to speech: the path of an audio file in the job's folder (any format ffmpeg reads). */
export interface TtsEngine {
  readonly kind: 'endpoint' | 'command';
  readonly label: string;
  synthesize(text: string, context: EngineContext): Promise<Result<string>>;
}

export type EndpointSettings = { kind: 'endpoint'; baseUrl: string; apiKey: string; model: string; timeoutS: number; maxRetries: number };
export type CommandSettings = { kind: 'command'; words: string[]; timeoutS: number };

export type SttSettings = (EndpointSettings & { language?: string; format: 'wav' | 'flac' | 'mp3' | 'ogg'; maxPieceS: number; maxUploadBytes: number }) | (CommandSettings & { maxPieceS: number });
export type TtsSettings = (EndpointSettings & { voice: string; format: 'mp3' | 'wav' | 'opus' | 'flac' | 'aac' }) | CommandSettings;

/** An engine that is configured, or the one line saying why it is off. */
export type Resolved<T> = { settings: T; off?: undefined } | { settings?: undefined; off: string };

/**
 * Which engines the config turns on. An endpoint without `base_url` is the LLM's server and uses the LLM's key; the
 * LLM key never goes to any other host. A hosted OpenAI endpoint without a key is off, with the reason.
 */
export function resolveEngines(config: Pick<Config, 'voice' | 'llm'>): { stt: Resolved<SttSettings>; tts: Resolved<TtsSettings> } {
  const { stt, tts } = config.voice;
  return {
    stt: stt === undefined
      ? { off: 'speech to text is off (no voice.stt section); voice notes are saved as files only' }
      : withCommonStt(stt),
    tts: tts === undefined
      ? { off: 'text to speech is off (no voice.tts section)' }
      : withCommonTts(tts),
  };

  function endpoint(section: { base_url?: string | undefined; api_key: string; model: string; timeout_s: number; max_retries: number }, key: string): Resolved<EndpointSettings> {
    const baseUrl = (section.base_url ?? config.llm.base_url).replace(/\/+$/, '');
    const apiKey = section.api_key !== '' ? section.api_key : section.base_url === undefined ? config.llm.api_key : '';
    if (apiKey === '' && /(^|\.)openai\.com$/i.test(hostOf(baseUrl))) {
      return { off: `${key} is off: ${baseUrl} needs an API key (set ${key}.api_key, or llm.api_key when ${key}.base_url is not set)` };
    }
    return { settings: { kind: 'endpoint', baseUrl, apiKey, model: section.model, timeoutS: section.timeout_s, maxRetries: section.max_retries } };
  }

  function command(value: string | readonly string[], timeoutS: number, key: string): Resolved<CommandSettings> {
    const parsed = parseCommandLine(value);
    // The schema refused such a command already; kept for configs built in code.
    if (!parsed.success) return { off: `${key}.command: ${parsed.error}` };
    return { settings: { kind: 'command', words: parsed.value, timeoutS } };
  }

  function withCommonStt(section: NonNullable<Config['voice']['stt']>): Resolved<SttSettings> {
    if (section.command !== undefined) {
      const resolved = command(section.command, section.timeout_s, 'voice.stt');
      return resolved.settings ? { settings: { ...resolved.settings, maxPieceS: section.max_piece_s } } : { off: resolved.off };
    }
    const resolved = endpoint(section, 'voice.stt');
    if (!resolved.settings) return { off: resolved.off };
    return {
      settings: {
        ...resolved.settings, format: section.format, maxPieceS: section.max_piece_s, maxUploadBytes: Math.floor(section.max_upload_mb * 1024 * 1024),
        ...(section.language !== undefined ? { language: section.language } : {}),
      },
    };
  }

  function withCommonTts(section: NonNullable<Config['voice']['tts']>): Resolved<TtsSettings> {
    if (section.command !== undefined) return command(section.command, section.timeout_s, 'voice.tts');
    const resolved = endpoint(section, 'voice.tts');
    if (!resolved.settings) return { off: resolved.off };
    return { settings: { ...resolved.settings, voice: section.voice, format: section.format } };
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
