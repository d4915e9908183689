// The voice part alone, with its real dependencies: a SQLite file, ffmpeg, espeak-ng and pocketsphinx as local
// engines, and the fake OpenAI audio server driven through the real `openai` client.
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configSchema, type Config } from '../../src/config/schema.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { createVoicePart } from '../../src/voice/part.js';
import type { VoiceService } from '../../src/voice/types.js';
import { startSpeechServer, type FakeSpeechServer } from '../fakes/speech-server.js';
import { captureLogger, tempDir } from '../helpers/app.js';
import { ESPEAK_COMMAND, PHRASES, decodedSeconds, describeVoice, ffmpegPipe, mp3, oggOpus, pocketsphinxCommand, probe, recognise, speak, videoNote } from '../helpers/audio.js';

interface Made {
  service: VoiceService;
  db: Database;
  logs: string[];
  doctor: () => Promise<Array<{ status: string; label: string; detail?: string }>>;
}

const opened: Database[] = [];

async function make(voice: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Made> {
  const dir = tempDir('familiar-voice-');
  const config: Config = configSchema().parse({ timezone: 'Europe/Paris', data_dir: dir, voice, ...extra });
  const db = openDatabase(dir);
  opened.push(db);
  const logs: string[] = [];
  const { service, part } = await createVoicePart({ config, db, log: captureLogger(logs, []) });
  if (!service) throw new Error('voice service not made');
  return { service, db, logs, doctor: () => part.doctor?.() ?? Promise.resolve([]) };
}

afterAll(() => {
  for (const db of opened) db.close();
});

/** A port nothing listens on (one the kernel just gave and took back). */
async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describeVoice('speech to text with a local recogniser (pocketsphinx as voice.stt.command)', () => {
  const work = tempDir('familiar-voice-work-');
  const stt = { command: pocketsphinxCommand(work) };

  it('hears the words of a Telegram-style voice note (OGG/Opus made by espeak-ng)', async () => {
    const { service } = await make({ stt });
    const note = oggOpus(speak(PHRASES[0]));
    const heard = await service.transcribe({ data: note, name: 'voice-1.ogg', mimeType: 'audio/ogg' });
    expect(heard).toMatchObject({ success: true, value: { text: PHRASES[0], pieces: 1, engine: 'command' } });
    if (heard.success) expect(heard.value.seconds).toBeGreaterThan(1.5);
  });

  it('hears the sound of a video note (MP4 with a picture)', async () => {
    const { service } = await make({ stt });
    const heard = await service.transcribe({ data: videoNote(speak(PHRASES[3]), path.join(work, 'video')), name: 'video-note-7.mp4', mimeType: 'video/mp4' });
    expect(heard).toMatchObject({ success: true, value: { text: PHRASES[3] } });
  });

  it('cuts long audio at the pauses into pieces no longer than max_piece_s and joins their words in order', async () => {
    const { service } = await make({ stt: { ...stt, max_piece_s: 5 } });
    const phrases = [PHRASES[1], PHRASES[4], PHRASES[7], PHRASES[2]];
    const audio = speak(phrases, { gapS: 1.2 });
    expect(decodedSeconds(audio)).toBeGreaterThan(10);
    const heard = await service.transcribe({ data: mp3(audio), name: 'long.mp3' });
    expect(heard.success).toBe(true);
    if (!heard.success) return;
    expect(heard.value.pieces).toBeGreaterThanOrEqual(3);
    // Every phrase whole and in order: no cut went through a word.
    expect(heard.value.text).toBe(phrases.join(' '));
  });

  it('refuses audio longer than voice.max_duration_s, and says so', async () => {
    const { service } = await make({ stt, max_duration_s: 2 });
    const heard = await service.transcribe({ data: speak(PHRASES[0]), name: 'a.wav' });
    expect(heard).toEqual({ success: false, error: 'it is longer than 2 s, the longest I transcribe (voice.max_duration_s)' });
  });

  it('refuses a file larger than voice.max_file_mb before decoding it', async () => {
    const { service } = await make({ stt, max_file_mb: 0.01 });
    const heard = await service.transcribe({ data: speak(PHRASES[0]), name: 'a.wav' });
    expect(heard.success).toBe(false);
    if (!heard.success) expect(heard.error).toMatch(/^it is 0\.\d MB; I transcribe files of at most 0\.01 MB \(voice\.max_file_mb\)$/);
  });

  it('says a file that is not audio cannot be read', async () => {
    const { service } = await make({ stt });
    const heard = await service.transcribe({ data: Buffer.from('%PDF-1.4 not a sound at all '.repeat(40)), name: 'invoice.pdf' });
    expect(heard.success).toBe(false);
    if (!heard.success) expect(heard.error).toMatch(/^ffmpeg cannot read it as audio \(/);
  });

  it('says when no words were recognised (a second and a half of silence)', async () => {
    const { service } = await make({ stt });
    const silence = ffmpegPipe(['-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '1.5', '-f', 'wav', 'pipe:1'], Buffer.alloc(0));
    expect(await service.transcribe({ data: silence, name: 'quiet.wav' })).toEqual({ success: false, error: 'no words were recognised in it' });
  });

  it('counts audio minutes per day and refuses past voice.daily_minutes, counting nothing for the refusal', async () => {
    const { service, db } = await make({ stt, daily_minutes: 0.1 }); // 6 s a day
    const note = oggOpus(speak(PHRASES[6])); // about 1.5 s
    for (let index = 0; index < 3; index += 1) expect((await service.transcribe({ data: note, name: 'n.ogg' })).success).toBe(true);
    const long = oggOpus(speak(PHRASES[0])); // about 3 s: over what is left
    const refused = await service.transcribe({ data: long, name: 'n.ogg' });
    expect(refused.success).toBe(false);
    if (!refused.success) expect(refused.error).toMatch(/^today's audio budget is used up \(0\.\d of 0\.1 min heard and spoken; this needs 0\.\d more\) — it starts again at midnight \(Europe\/Paris\), or raise voice\.daily_minutes$/);
    const rows = db.prepare('SELECT direction, status, COUNT(*) AS n FROM voice_usage GROUP BY direction, status').all();
    expect(rows).toEqual([{ direction: 'in', status: 'done', n: 3 }]);
  });

  it('a failing recogniser: the reason with its last stderr line, and the audio is not counted', async () => {
    const script = path.join(work, 'broken-stt.sh');
    const { writeFileSync, chmodSync } = await import('node:fs');
    writeFileSync(script, '#!/bin/sh\necho "loading model" >&2\necho "error: model file /models/ggml-base.bin not found" >&2\nexit 3\n');
    chmodSync(script, 0o755);
    const { service, db } = await make({ stt: { command: script } });
    const heard = await service.transcribe({ data: oggOpus(speak(PHRASES[1])), name: 'n.ogg' });
    expect(heard).toEqual({ success: false, error: 'the speech-to-text engine failed: broken-stt.sh failed (exit 3): error: model file /models/ggml-base.bin not found'.replace('broken-stt.sh', script) });
    expect(db.prepare('SELECT COUNT(*) AS n FROM voice_usage').get()).toEqual({ n: 0 });
  });

  it('a recogniser that is not installed: says so, naming the key', async () => {
    const { service } = await make({ stt: { command: 'whisper-cli-not-installed -m model.bin' } });
    const heard = await service.transcribe({ data: oggOpus(speak(PHRASES[1])), name: 'n.ogg' });
    expect(heard).toEqual({ success: false, error: 'the speech-to-text engine failed: whisper-cli-not-installed is not installed here or not on PATH (voice.stt.command; give its full path)' });
  });
});

describeVoice('text to speech with a local synthesiser (espeak-ng as voice.tts.command)', () => {
  const work = tempDir('familiar-voice-tts-');

  it('speaks an answer as a Telegram voice note: OGG with Opus, mono, 48 kHz, with the words in it', async () => {
    const { service } = await make({ tts: { command: ESPEAK_COMMAND } });
    const spoken = await service.speak('**Good morning**, how are you?', { format: 'ogg_opus' });
    expect(spoken.success).toBe(true);
    if (!spoken.success) return;
    expect(spoken.value).toMatchObject({ format: 'ogg_opus', mimeType: 'audio/ogg', fileName: 'answer.ogg', truncated: false });
    expect(probe(spoken.value.data)).toMatchObject({ formatName: 'ogg', codec: 'opus', channels: 1, sampleRate: 48000 });
    expect(spoken.value.seconds).toBeGreaterThan(1);
    expect(Math.abs(decodedSeconds(spoken.value.data) - spoken.value.seconds)).toBeLessThan(0.2);
    expect(recognise(spoken.value.data, work)).toBe('good morning how are you');
  });

  it('speaks an answer as MP3 for Discord', async () => {
    const { service } = await make({ tts: { command: ESPEAK_COMMAND } });
    const spoken = await service.speak('What time is it?', { format: 'mp3' });
    expect(spoken.success).toBe(true);
    if (spoken.success) expect(probe(spoken.value.data)).toMatchObject({ formatName: 'mp3', codec: 'mp3' });
  });

  it('leaves code blocks and tables to the written reply', async () => {
    const { service } = await make({ tts: { command: ['/bin/sh', '-c', 'cat > said.txt; espeak-ng --stdout < said.txt'] } });
    const spoken = await service.speak('Run this:\n\n```sh\nrm -rf build\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nThen [see the docs](https://example.com/docs).', { format: 'mp3' });
    expect(spoken.success).toBe(true);
  });

  it('writes audio to {output} when the command asks for a file', async () => {
    const { service } = await make({ tts: { command: ['espeak-ng', '-v', 'en-us', '-w', '{output}'] } });
    const spoken = await service.speak('Turn off the lights.', { format: 'ogg_opus' });
    expect(spoken.success).toBe(true);
    if (spoken.success) expect(recognise(spoken.value.data, work)).toBe('turn off the lights');
  });

  it('speaks at most voice.tts.max_chars and says the rest is in the text', async () => {
    const { service } = await make({ tts: { command: ['/bin/sh', '-c', 'cat > said.txt; espeak-ng --stdout < said.txt'], max_chars: 80 } });
    const spoken = await service.speak('First sentence here. Second sentence there. Third sentence is long enough to pass the limit of eighty.', { format: 'mp3' });
    expect(spoken).toMatchObject({ success: true, value: { truncated: true } });
  });

  it('counts spoken minutes too, and refuses to speak past the cap', async () => {
    const { service, db } = await make({ tts: { command: ESPEAK_COMMAND }, daily_minutes: 0.02 }); // 1.2 s
    const refused = await service.speak('This answer is much too long to be spoken within a budget of one second and a bit.', { format: 'mp3' });
    expect(refused.success).toBe(false);
    if (!refused.success) expect(refused.error).toMatch(/^today's audio budget is used up/);
    expect(db.prepare('SELECT COUNT(*) AS n FROM voice_usage').get()).toEqual({ n: 0 });
  });
});

describeVoice('the OpenAI-compatible endpoints (the fake audio API through the real openai client)', () => {
  let fake: FakeSpeechServer;
  const work = tempDir('familiar-voice-endpoint-');

  beforeAll(async () => {
    fake = await startSpeechServer();
  });
  afterAll(async () => {
    await fake.close();
  });
  afterEach(() => {
    fake.transcriptions.length = 0;
    fake.speeches.length = 0;
  });

  const sttConfig = (extra: Record<string, unknown> = {}) => ({ stt: { base_url: fake.baseUrl, api_key: fake.apiKey, model: 'whisper-1', max_retries: 0, ...extra } });

  it('uploads a piece as multipart with the model and language, and takes the text of the json response', async () => {
    fake.script('remind me to call the dentist');
    const { service } = await make(sttConfig({ language: 'en' }));
    const heard = await service.transcribe({ data: oggOpus(speak(PHRASES[3])), name: 'voice-3.ogg' });
    expect(heard).toMatchObject({ success: true, value: { text: 'remind me to call the dentist', engine: 'endpoint' } });
    const [request] = fake.transcriptions;
    expect(request).toMatchObject({ model: 'whisper-1', language: 'en', responseFormat: 'json', fileName: 'voice-1.wav', contentType: 'audio/wav', authorization: `Bearer ${fake.apiKey}` });
    expect(probe(request?.bytes ?? Buffer.alloc(0))).toMatchObject({ formatName: 'wav', codec: 'pcm_s16le', channels: 1, sampleRate: 16000 });
  });

  it('cuts long audio into pieces under the upload limit, each a playable file, transcribed in order', async () => {
    // The fake hands each uploaded piece to pocketsphinx: real words through the endpoint path.
    fake.transcribeWith((request) => recognise(request.bytes, work));
    const phrases = [PHRASES[6], PHRASES[5], PHRASES[8], PHRASES[0]];
    // 16 kHz 16-bit WAV is 32 000 bytes a second: 0.2 MB allows about 5.5 s a piece.
    const { service } = await make(sttConfig({ max_upload_mb: 0.2 }));
    const heard = await service.transcribe({ data: oggOpus(speak(phrases, { gapS: 1.2 })), name: 'long.ogg' });
    expect(heard).toMatchObject({ success: true, value: { text: phrases.join(' ') } });
    expect(fake.transcriptions.length).toBeGreaterThanOrEqual(3);
    for (const request of fake.transcriptions) {
      expect(request.bytes.length).toBeLessThanOrEqual(0.2 * 1024 * 1024);
      expect(decodedSeconds(request.bytes)).toBeLessThanOrEqual(5.6);
    }
    fake.transcribeWith(() => 'hello from the fake');
  });

  it('uploads FLAC pieces when voice.stt.format says so', async () => {
    const { service } = await make(sttConfig({ format: 'flac' }));
    expect((await service.transcribe({ data: oggOpus(speak(PHRASES[1])), name: 'n.ogg' })).success).toBe(true);
    expect(fake.transcriptions[0]).toMatchObject({ fileName: 'voice-1.flac', contentType: 'audio/flac' });
    expect(probe(fake.transcriptions[0]?.bytes ?? Buffer.alloc(0))).toMatchObject({ formatName: 'flac', sampleRate: 16000 });
  });

  it('a refused key says which key to check, and counts nothing', async () => {
    const { service, db } = await make({ stt: { base_url: fake.baseUrl, api_key: 'sk-wrong-key', max_retries: 0 } });
    const heard = await service.transcribe({ data: oggOpus(speak(PHRASES[1])), name: 'n.ogg' });
    expect(heard).toEqual({ success: false, error: `the speech-to-text engine failed: the speech endpoint at ${fake.baseUrl} refused the API key (401): check voice.stt.api_key` });
    expect(db.prepare('SELECT COUNT(*) AS n FROM voice_usage').get()).toEqual({ n: 0 });
  });

  it('an unknown model says to check the model, and a server error says to try again', async () => {
    const unknown = await (await make(sttConfig({ model: 'whisper-9' }))).service.transcribe({ data: oggOpus(speak(PHRASES[1])), name: 'n.ogg' });
    expect(unknown.success ? '' : unknown.error).toMatch(/answered 404 \(The model `whisper-9` does not exist or you do not have access to it\.\): check voice\.stt\.base_url .* and voice\.stt\.model \(whisper-9\)$/);
    fake.failNext('transcriptions', { status: 503, message: 'overloaded', type: 'server_error' });
    const busy = await (await make(sttConfig())).service.transcribe({ data: oggOpus(speak(PHRASES[1])), name: 'n.ogg' });
    expect(busy).toEqual({ success: false, error: 'the speech-to-text engine failed: the speech endpoint had a server error (503); try again in a moment' });
  });

  it('retries a 429 as the client does (max_retries), then succeeds', async () => {
    fake.failNext('transcriptions', { status: 429, message: 'Rate limit reached', type: 'requests', retryAfterS: 0 });
    const heard = await (await make(sttConfig({ max_retries: 1 }))).service.transcribe({ data: oggOpus(speak(PHRASES[1])), name: 'n.ogg' });
    expect(heard.success).toBe(true);
  });

  it('nothing listening: says the URL to check', async () => {
    const port = await closedPort();
    const heard = await (await make({ stt: { base_url: `http://127.0.0.1:${port}/v1`, api_key: 'x', max_retries: 0 } })).service.transcribe({ data: oggOpus(speak(PHRASES[1])), name: 'n.ogg' });
    expect(heard).toEqual({ success: false, error: `the speech-to-text engine failed: nothing answers at http://127.0.0.1:${port}/v1 (connection refused): check voice.stt.base_url and that the server runs` });
  });

  it('speech: sends model, voice, input and format as JSON, and converts the audio for the platform', async () => {
    const { service } = await make({ tts: { base_url: fake.baseUrl, api_key: fake.apiKey, voice: 'nova', max_retries: 0 } });
    const spoken = await service.speak('# Today\n\n- Buy **milk**\n- Call mum 📞', { format: 'ogg_opus' });
    expect(spoken.success).toBe(true);
    expect(fake.speeches).toEqual([{ model: 'tts-1', voice: 'nova', input: 'Today.\nBuy milk.\nCall mum.', responseFormat: 'mp3', authorization: `Bearer ${fake.apiKey}` }]);
    if (spoken.success) expect(probe(spoken.value.data)).toMatchObject({ formatName: 'ogg', codec: 'opus' });
  });

  it('speech: never sends more than max_chars (OpenAI refuses over 4096)', async () => {
    const { service } = await make({ tts: { base_url: fake.baseUrl, api_key: fake.apiKey, max_retries: 0 }, daily_minutes: 0 });
    const long = Array.from({ length: 300 }, (_, index) => `Sentence number ${index} of a very long answer.`).join(' ');
    const spoken = await service.speak(long, { format: 'mp3' });
    expect(spoken).toMatchObject({ success: true, value: { truncated: true } });
    expect(fake.speeches[0]?.input.length).toBeLessThanOrEqual(4000);
    expect(fake.speeches[0]?.input).toMatch(/\. The rest is in the written reply\.$/);
  });

  it('doctor: checks ffmpeg and both engines for real', async () => {
    const { doctor } = await make({ stt: { base_url: fake.baseUrl, api_key: fake.apiKey, max_retries: 0 }, tts: { command: ESPEAK_COMMAND } });
    const lines = await doctor();
    expect(lines.map((line) => [line.status, line.label])).toEqual([
      ['ok', 'voice: ffmpeg'],
      ['ok', `voice.stt: ${fake.baseUrl} (whisper-1)`],
      ['ok', 'voice.tts: command espeak-ng'],
    ]);
  });

  it('doctor: a refused key and a missing command are failures that say what to fix', async () => {
    const { doctor } = await make({ stt: { base_url: fake.baseUrl, api_key: 'sk-wrong', max_retries: 0 }, tts: { command: 'piper-not-here --model x' } });
    const lines = await doctor();
    expect(lines[1]).toMatchObject({ status: 'fail', detail: `the speech endpoint at ${fake.baseUrl} refused the API key (401): check voice.stt.api_key` });
    expect(lines[2]).toMatchObject({ status: 'fail', label: 'voice.tts: command piper-not-here', detail: 'piper-not-here is not installed here or not on PATH (voice.tts.command; give its full path)' });
  });
});

describe('which engines the config turns on', () => {
  it('an endpoint without base_url is the LLM server with the LLM key; with its own base_url it never gets the LLM key', async () => {
    const { resolveEngines } = await import('../../src/voice/engines.js');
    const config = configSchema().parse({ llm: { base_url: 'https://llm.example/v1', api_key: 'sk-llm-secret' }, voice: { stt: {}, tts: { base_url: 'http://127.0.0.1:8880/v1' } } });
    const engines = resolveEngines(config);
    expect(engines.stt.settings).toMatchObject({ kind: 'endpoint', baseUrl: 'https://llm.example/v1', apiKey: 'sk-llm-secret' });
    expect(engines.tts.settings).toMatchObject({ kind: 'endpoint', baseUrl: 'http://127.0.0.1:8880/v1', apiKey: '' });
  });

  it('OpenAI without a key is off, with the reason', async () => {
    const { resolveEngines } = await import('../../src/voice/engines.js');
    const engines = resolveEngines(configSchema().parse({ voice: { stt: {} } }));
    expect(engines.stt.off).toBe('voice.stt is off: https://api.openai.com/v1 needs an API key (set voice.stt.api_key, or llm.api_key when voice.stt.base_url is not set)');
  });

  it('refuses a command that needs a shell, and both a command and a base_url', () => {
    const bad = configSchema().safeParse({ voice: { stt: { command: 'whisper-cli -f {input} | tr a-z A-Z' }, tts: { command: 'espeak-ng --stdout', base_url: 'http://x/v1' } } });
    expect(bad.success).toBe(false);
    const messages = bad.success ? [] : bad.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(messages).toEqual([
      'voice.stt.command: "|": the command runs without a shell, so pipes, redirections and ; are not available; put them in a script and name the script',
      'voice.tts.command: give either command (a local engine) or base_url (an endpoint), not both',
    ]);
    const variable = configSchema().safeParse({ voice: { stt: { command: 'whisper-cli -m $HOME/model.bin' } } });
    expect(variable.success ? '' : variable.error.issues[0]?.message).toMatch(/^\$HOME: variables are not expanded/);
  });
});
