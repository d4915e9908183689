import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type OpenAI from 'openai';
import { failure, succeed, type Result } from '../lib/result.js';
import { commandArgs, describeRunFailure } from './command.js';
import type { EngineContext, TtsEngine, TtsSettings } from './engines.js';
import { describeEndpointFailure } from './failure.js';
import { runProgram } from './run.js';

const MAX_AUDIO_BYTES = 50 * 1024 * 1024;

/** Text to speech through the engine the config names. */
export function createTtsEngine(settings: TtsSettings): TtsEngine {
  return settings.kind === 'endpoint' ? endpointEngine(settings) : commandEngine(settings);
}

/** An OpenAI-compatible `/audio/speech` endpoint through the `openai` client: JSON in, audio bytes out. */
function endpointEngine(settings: Extract<TtsSettings, { kind: 'endpoint' }>): TtsEngine {
  let client: Promise<OpenAI> | undefined;
  const connect = () => (client ??= import('openai').then(({ default: OpenAIClient }) => new OpenAIClient({
    baseURL: settings.baseUrl, apiKey: settings.apiKey || 'none', maxRetries: settings.maxRetries, timeout: settings.timeoutS * 1000,
  })));
  return {
    kind: 'endpoint',
    label: `${settings.baseUrl} (${settings.model}, ${settings.voice})`,
    async synthesize(text, context: EngineContext): Promise<Result<string>> {
      try {
        const openai = await connect();
        const response = await openai.audio.speech.create(
          { model: settings.model, voice: settings.voice, input: text, response_format: settings.format },
          context.signal ? { signal: context.signal } : {},
        );
        const declared = Number(response.headers.get('content-length') ?? '0');
        if (declared > MAX_AUDIO_BYTES) return failure('the speech endpoint sent more audio than allowed (50 MB)');
        const data = Buffer.from(await response.arrayBuffer());
        if (data.length > MAX_AUDIO_BYTES) return failure('the speech endpoint sent more audio than allowed (50 MB)');
        if (data.length === 0) return failure('the speech endpoint sent no audio');
        const file = path.join(context.workDir, `speech.${settings.format}`);
        await writeFile(file, data);
        return succeed(file);
      } catch (error) {
        if (context.signal?.aborted) return failure('stopped');
        return failure(describeEndpointFailure(error, { key: 'voice.tts', baseUrl: settings.baseUrl, model: settings.model, timeoutS: settings.timeoutS }));
      }
    },
  };
}

/**
 * A local synthesiser (espeak-ng, piper, …): the text on its stdin — never on its command line —, the audio written
 * to `{output}` (a .wav path in the job's folder) or, without that placeholder, to stdout.
 */
function commandEngine(settings: Extract<TtsSettings, { kind: 'command' }>): TtsEngine {
  const [program = '', ...rest] = settings.words;
  const toFile = rest.some((word) => word.includes('{output}'));
  return {
    kind: 'command',
    label: `command ${program}`,
    async synthesize(text, context): Promise<Result<string>> {
      const output = path.join(context.workDir, 'speech.wav');
      try {
        const outcome = await runProgram({
          program, args: commandArgs(rest, { output }), cwd: context.workDir, stdin: `${text}\n`,
          timeoutMs: settings.timeoutS * 1000, signal: context.signal, maxStdoutBytes: MAX_AUDIO_BYTES,
        });
        const failed = describeRunFailure(outcome, program, 'voice.tts');
        if (failed !== undefined) return failure(failed);
        if (!toFile) {
          if (outcome.stdout.length === 0) return failure(`${program} printed no audio (write it to stdout, or put {output} in voice.tts.command)`);
          const file = path.join(context.workDir, 'speech.out');
          await writeFile(file, outcome.stdout);
          return succeed(file);
        }
        const size = await stat(output).then((info) => info.size, () => 0);
        if (size === 0) return failure(`${program} wrote no audio to {output}`);
        if (size > MAX_AUDIO_BYTES) return failure(`${program} wrote more audio than allowed (50 MB)`);
        return succeed(output);
      } catch (error) {
        return failure(describeRunFailure(error, program, 'voice.tts') ?? 'the command failed');
      }
    },
  };
}
