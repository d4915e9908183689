// Latency that voice adds, per second of audio. Speech to text: an OGG/Opus voice note of 5-60 s (espeak-ng speech,
// as Telegram sends them) through `service.transcribe` — (a) against the fake OpenAI audio API, which answers at
// once, so the figure is Familiar's own part (ffmpeg decode, pieces at pauses, WAV, multipart upload over loopback,
// temp files); (b) with pocketsphinx as the local command, beside pocketsphinx alone on the same 16 kHz WAV (the
// difference is Familiar's part). Text to speech: answers of 50-800 characters through `service.speak` to an
// OGG/Opus voice message — espeak-ng as the command, beside espeak-ng alone; and the fake endpoint (WAV, instant).
// Needs ffmpeg, espeak-ng and pocketsphinx (bash scripts/setup-voice.sh).
// Usage: npm run build && node bench/voice.mjs [--json] [--repeats N] [--lengths 5,15,30,60] [--texts 50,200,800]
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { configSchema } from '../dist/config/schema.js';
import { openDatabase } from '../dist/db/database.js';
import { createLogger } from '../dist/log.js';
import { createVoicePart } from '../dist/voice/part.js';
import { importFake, percentile, sized, table, tempDir } from './lib.mjs';

const json = process.argv.includes('--json');
const REPEATS = Number(process.argv[process.argv.indexOf('--repeats') + 1]) || sized(3, 1);
const listed = (flag, fallback) => (process.argv.includes(flag) ? process.argv[process.argv.indexOf(flag) + 1].split(',').map(Number).filter((n) => n > 0) : fallback);
// pocketsphinx's full English model runs at about real time on a loaded 2-core VM: --lengths 5,15 keeps a run short.
const LENGTHS = listed('--lengths', sized([5, 15, 30, 60], [2]));
const TEXTS = listed('--texts', sized([50, 200, 800], [50]));
const log = createLogger({ level: 'silent', format: 'json', secrets: [] });

for (const program of ['ffmpeg', 'espeak-ng', 'pocketsphinx_continuous']) {
  try {
    execFileSync(program, program === 'ffmpeg' ? ['-version'] : ['--help'], { stdio: 'ignore' });
  } catch (error) {
    if (error.code === 'ENOENT') {
      process.stderr.write(`${program} is not installed: bash scripts/setup-voice.sh\n`);
      process.exit(1);
    }
  }
}

const SENTENCE = 'Please remind me to buy milk tomorrow morning, and add eggs and bread to my shopping list. ';
const dir = tempDir('familiar-bench-voice-');

/** `seconds` of espeak-ng speech as an OGG/Opus voice note, and as the 16 kHz WAV a recogniser reads. */
function voiceNote(seconds) {
  const text = SENTENCE.repeat(Math.ceil(seconds / 4));
  const source = path.join(dir, `speech-${seconds}.wav`);
  writeFileSync(source, execFileSync('espeak-ng', ['-v', 'en-us', '-s', '150', '--stdout'], { input: text, maxBuffer: 256 * 1024 * 1024 }));
  const ogg = execFileSync('ffmpeg', ['-v', 'error', '-i', source, '-t', String(seconds), '-ac', '1', '-ar', '48000', '-c:a', 'libopus', '-b:a', '32k', '-f', 'ogg', 'pipe:1'], { maxBuffer: 256 * 1024 * 1024 });
  const wav16 = path.join(dir, `note-${seconds}.wav`);
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', source, '-t', String(seconds), '-ac', '1', '-ar', '16000', wav16]);
  return { ogg, wav16 };
}

async function make(voice) {
  const data = tempDir('familiar-bench-voice-data-');
  const config = configSchema().parse({ timezone: 'UTC', data_dir: data, voice: { daily_minutes: 0, ...voice } });
  const db = openDatabase(data);
  const { service } = await createVoicePart({ config, db, log });
  return { service, db };
}

async function timed(work) {
  const started = performance.now();
  const result = await work();
  if (result && result.success === false) throw new Error(result.error);
  return performance.now() - started;
}

const median = (values) => percentile(values, 50);
const rows = [['measure', 'audio', 'total (median)', 'per second of audio', 'engine alone', 'added by Familiar', 'added per second']];
const report = { repeats: REPEATS, stt: [], tts: [] };

const { startSpeechServer } = await importFake('speech-server');
const fake = await startSpeechServer();
fake.transcribeWith(() => 'ok');
const endpoint = await make({ stt: { base_url: fake.baseUrl, api_key: fake.apiKey, max_retries: 0 }, tts: { base_url: fake.baseUrl, api_key: fake.apiKey, format: 'wav', max_retries: 0, max_chars: 100_000 } });
const local = await make({ stt: { command: ['pocketsphinx_continuous', '-infile', '{input}', '-logfn', '/dev/null'], timeout_s: 600 }, tts: { command: ['espeak-ng', '-v', 'en-us', '--stdout'], max_chars: 100_000 } });

for (const seconds of LENGTHS) {
  const note = voiceNote(seconds);
  const viaEndpoint = [];
  const viaCommand = [];
  const bare = [];
  for (let run = 0; run < REPEATS; run += 1) {
    viaEndpoint.push(await timed(() => endpoint.service.transcribe({ data: note.ogg, name: 'voice.ogg' })));
    viaCommand.push(await timed(() => local.service.transcribe({ data: note.ogg, name: 'voice.ogg' })));
    bare.push(await timed(async () => execFileSync('pocketsphinx_continuous', ['-infile', note.wav16, '-logfn', '/dev/null'], { stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 16 * 1024 * 1024 })));
  }
  const entry = { seconds, endpointMs: median(viaEndpoint), commandMs: median(viaCommand), pocketsphinxAloneMs: median(bare) };
  entry.commandAddedMs = entry.commandMs - entry.pocketsphinxAloneMs;
  report.stt.push(entry);
  rows.push([`speech to text, endpoint (fake, instant)`, `${seconds} s`, `${entry.endpointMs.toFixed(0)} ms`, `${(entry.endpointMs / seconds).toFixed(1)} ms`, '0 (instant fake)', `${entry.endpointMs.toFixed(0)} ms`, `${(entry.endpointMs / seconds).toFixed(1)} ms`]);
  rows.push([`speech to text, pocketsphinx command`, `${seconds} s`, `${entry.commandMs.toFixed(0)} ms`, `${(entry.commandMs / seconds).toFixed(1)} ms`, `${entry.pocketsphinxAloneMs.toFixed(0)} ms`, `${entry.commandAddedMs.toFixed(0)} ms`, `${(entry.commandAddedMs / seconds).toFixed(1)} ms`]);
}

for (const chars of TEXTS) {
  const text = SENTENCE.repeat(Math.ceil(chars / SENTENCE.length)).slice(0, chars);
  const viaEndpoint = [];
  const viaCommand = [];
  const bare = [];
  let spokenSeconds = 0;
  for (let run = 0; run < REPEATS; run += 1) {
    viaEndpoint.push(await timed(() => endpoint.service.speak(text, { format: 'ogg_opus' })));
    viaCommand.push(await timed(async () => {
      const spoken = await local.service.speak(text, { format: 'ogg_opus' });
      if (spoken.success) spokenSeconds = spoken.value.seconds;
      return spoken;
    }));
    bare.push(await timed(async () => execFileSync('espeak-ng', ['-v', 'en-us', '--stdout'], { input: text, stdio: ['pipe', 'pipe', 'ignore'], maxBuffer: 256 * 1024 * 1024 })));
  }
  const entry = { chars, spokenSeconds, endpointMs: median(viaEndpoint), commandMs: median(viaCommand), espeakAloneMs: median(bare) };
  entry.commandAddedMs = entry.commandMs - entry.espeakAloneMs;
  report.tts.push(entry);
  const per = (ms) => `${(ms / spokenSeconds).toFixed(1)} ms`;
  rows.push([`text to speech → OGG/Opus, endpoint (fake WAV, instant)`, `${chars} chars, ${spokenSeconds.toFixed(1)} s`, `${entry.endpointMs.toFixed(0)} ms`, per(entry.endpointMs), '0 (instant fake)', `${entry.endpointMs.toFixed(0)} ms`, per(entry.endpointMs)]);
  rows.push([`text to speech → OGG/Opus, espeak-ng command`, `${chars} chars, ${spokenSeconds.toFixed(1)} s`, `${entry.commandMs.toFixed(0)} ms`, per(entry.commandMs), `${entry.espeakAloneMs.toFixed(0)} ms`, `${entry.commandAddedMs.toFixed(0)} ms`, per(entry.commandAddedMs)]);
}

await fake.close();
endpoint.db.close();
local.db.close();
writeFileSync(path.join(dir, 'report.json'), JSON.stringify(report, null, 2));
if (json) process.stdout.write(`${JSON.stringify(report)}\n`);
else process.stdout.write(`${table(rows)}\n(median of ${REPEATS}; load average ${(await import('node:os')).loadavg()[0].toFixed(1)})\n`);
