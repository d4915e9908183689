// `familiar doctor` (the built CLI) with a voice section: each configured engine tried for real and reported as
// one line, a working one ✓ and a broken one ✗ with what to fix — never a stack or a JSON log line.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { startSpeechServer, type FakeSpeechServer } from '../fakes/speech-server.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';
import { describeVoice, pocketsphinxCommand } from '../helpers/audio.js';
import { MAIN } from '../helpers/daemon.js';

function doctor(dir: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, 'doctor'], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, TZ: 'UTC', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describeVoice('familiar doctor: the voice engines', () => {
  let llm: FakeOpenAI;
  let speech: FakeSpeechServer;
  beforeAll(async () => {
    [llm, speech] = await Promise.all([startOpenAiServer(), startSpeechServer()]);
  });
  afterAll(async () => {
    await Promise.all([llm.close(), speech.close()]);
  });

  it('an endpoint that answers and a local synthesiser that speaks: ✓ lines, the endpoint really called', async () => {
    const dir = tempDir();
    writeTestConfig(dir, llm, { voice: { stt: { base_url: speech.baseUrl, api_key: '${STT_API_KEY}', max_retries: 0 }, tts: { command: ['espeak-ng', '--stdout'] } } });
    const before = speech.transcriptions.length;
    const result = await doctor(dir, { TEST_LLM_KEY: llm.apiKey, STT_API_KEY: speech.apiKey });
    expect(result.stdout).toMatch(/^✓ voice: ffmpeg: ffmpeg version /m);
    expect(result.stdout).toMatch(/^✓ voice\.stt: .*transcribed one second of silence$/m);
    expect(result.stdout).toMatch(/^✓ voice\.tts: command espeak-ng: said two words \(\d+\.\d s\)$/m);
    expect(speech.transcriptions.length).toBe(before + 1);
    expect(result.stdout).not.toContain(speech.apiKey);
  });

  it('a refused key, and a recogniser that is not installed: ✗ lines saying what to fix, exit 1', async () => {
    const dir = tempDir();
    writeTestConfig(dir, llm, { voice: { stt: { base_url: speech.baseUrl, api_key: 'sk-wrong-key', max_retries: 0 }, tts: { command: ['piper-not-installed', '--output_file', '{output}'] } } });
    const result = await doctor(dir, { TEST_LLM_KEY: llm.apiKey });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^✗ voice\.stt: .*401.* — check voice\.stt\.base_url, model and api_key$/m);
    expect(result.stdout).toMatch(/^✗ voice\.tts: command piper-not-installed: .*voice\.tts\.command/m);
    expect(result.stdout).not.toMatch(/"level"|\n\s+at /);
    expect(result.stdout).not.toContain('sk-wrong-key');
  });

  it('a local recogniser (pocketsphinx) is run on a second of silence', async () => {
    const dir = tempDir();
    writeTestConfig(dir, llm, { voice: { stt: { command: pocketsphinxCommand(dir) } } });
    const result = await doctor(dir, { TEST_LLM_KEY: llm.apiKey });
    expect(result.stdout).toMatch(/^✓ voice\.stt: command pocketsphinx_continuous: transcribed one second of silence$/m);
    expect(result.stdout).not.toMatch(/voice\.tts/);
  });
});
