// familiar init's voice step, with --yes: the engines written to config.yaml (keys only as ${NAME}, in .env), tried
// for real (the fake audio API, espeak-ng), a failure a warning, --no-voice removing the section.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { loadConfig } from '../../src/config/load.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { startSpeechServer, type FakeSpeechServer } from '../fakes/speech-server.js';
import { tempDir } from '../helpers/app.js';
import { describeVoice } from '../helpers/audio.js';
import { captureIo } from '../helpers/io.js';

describeVoice('familiar init --yes: voice', () => {
  let llm: FakeOpenAI;
  let speech: FakeSpeechServer;

  beforeAll(async () => {
    llm = await startOpenAiServer({ models: ['gpt-test'] });
    speech = await startSpeechServer();
  });
  afterAll(async () => {
    await Promise.all([llm.close(), speech.close()]);
  });

  const init = async (dir: string, ...flags: string[]) => {
    const io = captureIo();
    const code = await runCli(['init', '--config', path.join(dir, 'config.yaml'), '--yes', '--no-sandbox', '--no-telegram', '--no-discord',
      '--provider', 'custom', '--base-url', llm.baseUrl, '--api-key', llm.apiKey, '--model', 'gpt-test', '--skip-llm-test', ...flags], io);
    return { code, out: io.out() + io.err() };
  };

  it('an endpoint for speech to text and espeak-ng for speech: written, keys in .env, both tried', async () => {
    const dir = tempDir();
    const result = await init(dir, '--stt-url', speech.baseUrl, '--stt-key', speech.apiKey, '--stt-model', 'whisper-1', '--tts-command', 'espeak-ng -v en-us --stdout');
    expect(result.code, result.out).toBe(0);
    const config = readFileSync(path.join(dir, 'config.yaml'), 'utf8');
    expect(config).not.toContain(speech.apiKey);
    expect(config).toMatch(/\nvoice:\n  stt:\n    base_url: http:\/\/127\.0\.0\.1:\d+\/v1\n    model: whisper-1\n    api_key: \$\{STT_API_KEY\}\n  tts:\n    command: \[ espeak-ng, -v, en-us, --stdout \]\n/);
    expect(readFileSync(path.join(dir, '.env'), 'utf8')).toContain(`STT_API_KEY=${speech.apiKey}`);
    const loaded = loadConfig({ configPath: path.join(dir, 'config.yaml'), env: {} });
    expect(loaded.config.voice.stt).toMatchObject({ base_url: speech.baseUrl, api_key: speech.apiKey, model: 'whisper-1' });
    expect(loaded.config.voice.tts?.command).toEqual(['espeak-ng', '-v', 'en-us', '--stdout']);
    expect(loaded.secrets).toContain(speech.apiKey);
    expect(result.out).toContain('transcribed one second of silence');
    expect(result.out).toMatch(/voice\.tts: command espeak-ng: said two words/);
    expect(speech.transcriptions).toHaveLength(1);
  });

  it('a command with {input} is written quoted, so YAML reads it back as a word', async () => {
    const dir = tempDir();
    const result = await init(dir, '--stt-command', 'pocketsphinx_continuous -infile {input} -logfn /dev/null');
    expect(result.code, result.out).toBe(0);
    const loaded = loadConfig({ configPath: path.join(dir, 'config.yaml'), env: {} });
    expect(loaded.config.voice.stt?.command).toEqual(['pocketsphinx_continuous', '-infile', '{input}', '-logfn', '/dev/null']);
    expect(loaded.config.voice.tts).toBeUndefined();
  });

  it('an engine that fails its try is a warning; the files are written', async () => {
    const dir = tempDir();
    const result = await init(dir, '--stt-url', speech.baseUrl, '--stt-key', 'sk-wrong');
    expect(result.code, result.out).toBe(0);
    expect(result.out).toMatch(/refused the API key \(401\): check voice\.stt\.api_key .*Written anyway; familiar doctor checks it again\./);
    expect(loadConfig({ configPath: path.join(dir, 'config.yaml'), env: {} }).config.voice.stt?.base_url).toBe(speech.baseUrl);
  });

  it('a command that needs a shell is refused, and nothing is written', async () => {
    const dir = tempDir();
    const result = await init(dir, '--tts-command', 'espeak-ng --stdout | sox - out.wav');
    expect(result.code).toBe(1);
    expect(result.out).toContain('--tts-command: "|": the command runs without a shell');
    expect(result.out).toContain('Nothing was written.');
  });

  it('--no-voice removes the section; no voice flag leaves it as it is', async () => {
    const dir = tempDir();
    expect((await init(dir, '--tts-command', 'espeak-ng --stdout')).code).toBe(0);
    const kept = await init(dir, '--overwrite');
    expect(kept.code, kept.out).toBe(0);
    expect(loadConfig({ configPath: path.join(dir, 'config.yaml'), env: {} }).config.voice.tts?.command).toEqual(['espeak-ng', '--stdout']);
    expect((await init(dir, '--no-voice', '--overwrite')).code).toBe(0);
    expect(readFileSync(path.join(dir, 'config.yaml'), 'utf8')).not.toMatch(/^voice:/m);
  });

  it('--voice with an LLM that is not OpenAI: espeak-ng for speech, and a warning that speech to text needs a flag', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, '.keep'), '');
    const result = await init(dir, '--voice');
    expect(result.code, result.out).toBe(0);
    expect(result.out).toContain('is not OpenAI, so speech to text needs --stt-url or --stt-command');
    const loaded = loadConfig({ configPath: path.join(dir, 'config.yaml'), env: {} });
    expect(loaded.config.voice.tts?.command).toEqual(['espeak-ng', '--stdout']);
    expect(loaded.config.voice.stt).toBeUndefined();
  });
});
