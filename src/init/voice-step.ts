import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { configSchema } from '../config/schema.js';
import { parseCommandLine } from '../lib/command-line.js';
import type { DoctorLine } from '../part.js';
import { voiceDoctor } from '../voice/doctor.js';
import { resolveEngines } from '../voice/engines.js';
import { Ffmpeg } from '../voice/ffmpeg.js';
import { createSttEngine } from '../voice/stt.js';
import { createTtsEngine } from '../voice/tts.js';
import type { SetupFlags } from './flags.js';
import { SetupFailed } from './llm-step.js';
import type { SetupUi } from './ui.js';

/** One engine as init writes it: the LLM's own server (OpenAI), another endpoint, or a local command. */
export type EngineChoice =
  | { kind: 'llm' }
  | { kind: 'endpoint'; baseUrl: string; model: string; keyVariable?: string; voice?: string }
  | { kind: 'command'; command: string[] };

/** `off` removes the voice section; undefined leaves it as it is. */
export type VoiceChoice = { stt?: EngineChoice; tts?: EngineChoice } | 'off';

const OPENAI = /^https:\/\/api\.openai\.com\/v1\/?$/;

/**
 * Voice notes and spoken answers: with OpenAI as the LLM, its audio endpoints with the same key; otherwise another
 * OpenAI-compatible server (a local Whisper or Kokoro server) or a command on this machine (espeak-ng, piper,
 * whisper.cpp). The engines are tried once (as `familiar doctor` does); a failure is a warning, not a stop: voice
 * is optional and the rest of the set-up stands. Returns the choice and the secrets for `.env`.
 */
export async function chooseVoice(ui: SetupUi, flags: SetupFlags, context: { llmBaseUrl: string; llmKey: string; existing: boolean }): Promise<{ choice: VoiceChoice | undefined; env: Record<string, string> }> {
  const env: Record<string, string> = {};
  if (flags.voice === false) return { choice: 'off', env };
  const openai = OPENAI.test(context.llmBaseUrl);
  let stt = fromFlags(flags, 'stt', env);
  let tts = fromFlags(flags, 'tts', env);
  if (!ui.interactive) {
    if (stt === undefined && tts === undefined) {
      if (flags.voice !== true) return { choice: undefined, env };
      // --voice alone: the LLM's audio endpoints when it is OpenAI; else espeak-ng for speech if it is installed.
      if (openai) {
        stt = { kind: 'llm' };
        tts = { kind: 'llm' };
      } else {
        const espeak = onPath('espeak-ng');
        if (espeak) tts = { kind: 'command', command: ['espeak-ng', '--stdout'] };
        ui.warn(`--voice: ${context.llmBaseUrl} is not OpenAI, so speech to text needs --stt-url or --stt-command${espeak ? '' : '; and text to speech --tts-url or --tts-command (espeak-ng is not installed)'}.`);
      }
    }
  } else if (stt === undefined && tts === undefined && flags.voice !== true) {
    const wanted = await ui.confirm({ message: 'Voice: transcribe your voice notes, and speak answers when you ask?', initialValue: context.existing || openai });
    if (!wanted) return { choice: context.existing ? 'off' : undefined, env };
    stt = await askEngine(ui, 'stt', openai, env);
    tts = await askEngine(ui, 'tts', openai, env);
  } else if (stt === undefined && tts === undefined) {
    stt = await askEngine(ui, 'stt', openai, env);
    tts = await askEngine(ui, 'tts', openai, env);
  }
  if (stt === undefined && tts === undefined) return { choice: 'off', env };
  const choice = { ...(stt ? { stt } : {}), ...(tts ? { tts } : {}) };
  await check(ui, choice, context, env);
  return { choice, env };
}

function fromFlags(flags: SetupFlags, which: 'stt' | 'tts', env: Record<string, string>): EngineChoice | undefined {
  const given: { url?: string; key?: string; model?: string; voice?: string; command?: string } = flags[which];
  if (given.command !== undefined) {
    const parsed = parseCommandLine(given.command);
    if (!parsed.success) throw new SetupFailed(`--${which}-command: ${parsed.error}`);
    return { kind: 'command', command: parsed.value };
  }
  if (given.url === undefined) return undefined;
  const keyVariable = which === 'stt' ? 'STT_API_KEY' : 'TTS_API_KEY';
  if (given.key !== undefined && given.key !== '') env[keyVariable] = given.key;
  return {
    kind: 'endpoint', baseUrl: given.url.replace(/\/+$/, ''), model: given.model ?? (which === 'stt' ? 'whisper-1' : 'tts-1'),
    ...(env[keyVariable] !== undefined ? { keyVariable } : {}),
    ...(given.voice !== undefined ? { voice: given.voice } : {}),
  };
}

async function askEngine(ui: SetupUi, which: 'stt' | 'tts', openai: boolean, env: Record<string, string>): Promise<EngineChoice | undefined> {
  const stt = which === 'stt';
  const found = stt ? ['whisper-cli', 'pocketsphinx_continuous'].find(onPath) : ['piper', 'espeak-ng'].find(onPath);
  const kind = await ui.select<'llm' | 'endpoint' | 'command' | 'off'>({
    message: stt ? 'Speech to text (your voice notes):' : 'Text to speech (spoken answers):',
    options: [
      ...(openai ? [{ value: 'llm' as const, label: `OpenAI, with the same key (${stt ? 'whisper-1' : 'tts-1'})` }] : []),
      { value: 'endpoint' as const, label: 'An OpenAI-compatible server', hint: stt ? 'a local Whisper server (faster-whisper, whisper.cpp), Groq…' : 'Kokoro-FastAPI, openedai-speech, LocalAI…' },
      { value: 'command' as const, label: 'A command on this machine', hint: found ? `${found} is installed` : stt ? 'whisper.cpp, pocketsphinx, vosk…' : 'espeak-ng, piper…' },
      { value: 'off' as const, label: 'No' },
    ],
    initialValue: openai ? 'llm' : found ? 'command' : 'off',
  });
  if (kind === 'off') return undefined;
  if (kind === 'llm') return { kind: 'llm' };
  if (kind === 'command') {
    const example = stt
      ? (found === 'pocketsphinx_continuous' ? 'pocketsphinx_continuous -infile {input} -logfn /dev/null' : 'whisper-cli -m /path/to/ggml-base.bin -nt -np -f {input}')
      : (found === 'piper' ? 'piper --model /path/to/voice.onnx --output_file {output}' : 'espeak-ng --stdout');
    const line = await ui.text({
      message: stt ? 'The command ({input} = a 16 kHz mono WAV file; it prints the text)' : 'The command (reads the text on stdin; writes audio to {output} or stdout)',
      initialValue: example,
      validate: (value) => {
        const parsed = parseCommandLine(value);
        return parsed.success ? undefined : parsed.error;
      },
    });
    const parsed = parseCommandLine(line);
    return parsed.success ? { kind: 'command', command: parsed.value } : undefined;
  }
  const baseUrl = await ui.text({
    message: 'Its base URL (the API root, e.g. ending in /v1)',
    initialValue: stt ? 'http://127.0.0.1:8000/v1' : 'http://127.0.0.1:8880/v1',
    validate: (value) => (/^https?:\/\/\S+$/.test(value.trim()) ? undefined : 'an http:// or https:// URL'),
  });
  const model = await ui.text({ message: 'The model', initialValue: stt ? 'whisper-1' : 'tts-1' });
  const voice = stt ? undefined : await ui.text({ message: 'The voice', initialValue: 'alloy' });
  const key = await ui.password({ message: 'Its API key (empty for none)' });
  const keyVariable = stt ? 'STT_API_KEY' : 'TTS_API_KEY';
  if (key.trim() !== '') env[keyVariable] = key.trim();
  return { kind: 'endpoint', baseUrl: baseUrl.trim().replace(/\/+$/, ''), model: model.trim(), ...(key.trim() !== '' ? { keyVariable } : {}), ...(voice ? { voice: voice.trim() } : {}) };
}

/** Tries the engines as doctor does; says what failed, and that the files are written anyway. */
async function check(ui: SetupUi, choice: { stt?: EngineChoice; tts?: EngineChoice }, context: { llmBaseUrl: string; llmKey: string }, env: Record<string, string>): Promise<void> {
  const section = (engine: EngineChoice | undefined, variable: string) => {
    if (!engine) return undefined;
    if (engine.kind === 'llm') return {};
    if (engine.kind === 'command') return { command: engine.command };
    return { base_url: engine.baseUrl, model: engine.model, api_key: env[variable] ?? '', ...(engine.voice !== undefined ? { voice: engine.voice } : {}) };
  };
  const parsed = configSchema().safeParse({
    llm: { base_url: context.llmBaseUrl, api_key: context.llmKey },
    voice: { ...(choice.stt ? { stt: section(choice.stt, 'STT_API_KEY') } : {}), ...(choice.tts ? { tts: section(choice.tts, 'TTS_API_KEY') } : {}) },
  });
  if (!parsed.success) throw new SetupFailed(`voice: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  const config = parsed.data;
  const engines = resolveEngines(config);
  const ffmpeg = new Ffmpeg(config.voice.ffmpeg);
  const lines: DoctorLine[] = await ui.progress('Trying the voice engines', () => voiceDoctor({
    voice: config.voice, engines, ffmpeg,
    stt: engines.stt.settings ? createSttEngine(engines.stt.settings, ffmpeg) : undefined,
    tts: engines.tts.settings ? createTtsEngine(engines.tts.settings) : undefined,
  }));
  for (const line of lines) {
    const text = `${line.label}${line.detail ? `: ${line.detail}` : ''}`;
    if (line.status === 'ok') ui.success(text);
    else ui.warn(`${text}${line.fix ? ` — ${line.fix}` : ''}. Written anyway; familiar doctor checks it again.`);
  }
}

/** Whether `program` is an executable on PATH. */
function onPath(program: string): boolean {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(path.join(dir, program), constants.X_OK);
      return true;
    } catch {
      // not here
    }
  }
  return false;
}
