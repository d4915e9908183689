import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import type { DoctorLine } from '../part.js';
import type { Resolved, SttEngine, SttSettings, TtsEngine, TtsSettings } from './engines.js';
import type { Ffmpeg } from './ffmpeg.js';
import { silentWav } from './pcm.js';

const CHECK_TIMEOUT_MS = 30_000;

/**
 * `familiar doctor`'s voice lines: ffmpeg runs; each configured engine answers for real — the recogniser is given
 * one second of silence (a hosted endpoint bills that second), the synthesiser says two words, and what it returns
 * must decode. Contract: never throws.
 */
export async function voiceDoctor(deps: {
  voice: Config['voice'];
  engines: { stt: Resolved<SttSettings>; tts: Resolved<TtsSettings> };
  ffmpeg: Ffmpeg;
  stt: SttEngine | undefined;
  tts: TtsEngine | undefined;
  tempRoot?: string;
}): Promise<DoctorLine[]> {
  const { voice, engines } = deps;
  if (!voice.stt && !voice.tts) return [{ status: 'skip', label: 'voice', detail: 'off (no voice.stt or voice.tts section)' }];
  const dir = await mkdtemp(path.join(deps.tempRoot ?? tmpdir(), 'familiar-voice-check-'));
  const signal = AbortSignal.timeout(CHECK_TIMEOUT_MS);
  try {
    const lines: DoctorLine[] = [];
    const version = await deps.ffmpeg.version(dir);
    lines.push(version.success
      ? { status: 'ok', label: 'voice: ffmpeg', detail: version.value.replace(/ Copyright.*$/, '') }
      : { status: 'fail', label: 'voice: ffmpeg', detail: version.error, fix: 'install ffmpeg (Debian: apt-get install ffmpeg) or set voice.ffmpeg to its path' });

    if (voice.stt) {
      if (!deps.stt) lines.push({ status: 'fail', label: 'voice.stt', detail: engines.stt.off ?? 'off', fix: 'set voice.stt.api_key, or point voice.stt.base_url at a local server, or use voice.stt.command' });
      else {
        const wavPath = path.join(dir, 'check.wav');
        const wav = silentWav(1);
        await writeFile(wavPath, wav);
        const heard = await deps.stt.transcribe({ wav, wavPath, index: 0 }, { workDir: dir, signal });
        lines.push(heard.success
          ? { status: 'ok', label: `voice.stt: ${deps.stt.label}`, detail: 'transcribed one second of silence' }
          : { status: 'fail', label: `voice.stt: ${deps.stt.label}`, detail: heard.error, fix: deps.stt.kind === 'command' ? 'check voice.stt.command (it is given a 16 kHz mono WAV file and must print the text)' : 'check voice.stt.base_url, model and api_key' });
      }
    }
    if (voice.tts) {
      if (!deps.tts) lines.push({ status: 'fail', label: 'voice.tts', detail: engines.tts.off ?? 'off', fix: 'set voice.tts.api_key, or point voice.tts.base_url at a local server, or use voice.tts.command' });
      else {
        const made = await deps.tts.synthesize('Voice check.', { workDir: dir, signal });
        const encoded = made.success && version.success ? await deps.ffmpeg.encode(made.value, 'ogg_opus', { workDir: dir, name: 'check', signal }) : undefined;
        if (!made.success) lines.push({ status: 'fail', label: `voice.tts: ${deps.tts.label}`, detail: made.error, fix: deps.tts.kind === 'command' ? 'check voice.tts.command (it reads the text on stdin and writes audio to {output} or stdout)' : 'check voice.tts.base_url, model, voice and api_key' });
        else if (encoded && !encoded.success) lines.push({ status: 'fail', label: `voice.tts: ${deps.tts.label}`, detail: `its audio cannot be decoded: ${encoded.error}` });
        else lines.push({ status: 'ok', label: `voice.tts: ${deps.tts.label}`, detail: encoded?.success ? `said two words (${encoded.value.seconds.toFixed(1)} s)` : 'made audio' });
      }
    }
    return lines;
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
