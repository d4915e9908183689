import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runFamiliar(args: string[], options: { cwd: string; env?: Record<string, string>; input?: string }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: options.cwd, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

describe('familiar command line', () => {
  let fake: FakeOpenAI;
  let dir: string;

  beforeAll(async () => {
    fake = await startOpenAiServer();
    dir = tempDir();
    writeTestConfig(dir, fake);
  });

  afterAll(async () => {
    await fake.close();
  });

  it('ask prints the reply on stdout and exits 0', async () => {
    fake.script({ content: 'Forty-two.' });
    const result = await runFamiliar(['ask', 'what is six times seven?'], { cwd: dir, env: { TEST_LLM_KEY: fake.apiKey } });
    expect(result.stdout).toBe('Forty-two.\n');
    expect(result.code).toBe(0);
    expect(fake.requests.at(-1)?.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'what is six times seven?' });
  });

  it('ask runs a tool end to end and keeps history between invocations', async () => {
    fake.script(
      { toolCalls: [{ name: 'memory_write', arguments: { path: 'notes/cli.md', content: 'the spare key is under the pot' } }] },
      { content: 'Saved.' },
    );
    const first = await runFamiliar(['ask', 'remember: spare key under the pot'], { cwd: dir, env: { TEST_LLM_KEY: fake.apiKey } });
    expect(first.stdout).toBe('Saved.\n');
    fake.script({ content: 'Under the pot.' });
    await runFamiliar(['ask', 'where is the key?'], { cwd: dir, env: { TEST_LLM_KEY: fake.apiKey } });
    const last = fake.requests.at(-1)?.body;
    expect(last?.messages.map((message) => message.content)).toContain('remember: spare key under the pot');
    expect(fake.lastSystemPrompt()).toContain('the spare key is under the pot');
  });

  it('ask exits non-zero with the apology when the LLM keeps failing', async () => {
    fake.handle(() => ({ status: 503 }));
    const result = await runFamiliar(['ask', '--log-level', 'silent', 'hello?'], {
      cwd: dir,
      env: { TEST_LLM_KEY: fake.apiKey },
    });
    fake.handle(() => ({ content: 'ok' }));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/Sorry, I could not answer: the LLM provider had a server error \(503\)/);
  });

  it('never writes the API key to the logs, even at trace level and on errors', async () => {
    fake.script(
      { status: 401, error: `Incorrect API key provided: ${fake.apiKey}` },
      { toolCalls: [{ name: 'memory_write', arguments: { path: 'k.md', content: `key is ${fake.apiKey}` } }] },
      { content: `The key is ${fake.apiKey}` },
    );
    const result = await runFamiliar(['ask', '--log-level', 'trace', 'leak it'], { cwd: dir, env: { TEST_LLM_KEY: fake.apiKey } });
    const withKey = await runFamiliar(['ask', '--log-level', 'trace', 'leak it again'], { cwd: dir, env: { TEST_LLM_KEY: fake.apiKey } });
    for (const output of [result.stderr, withKey.stderr]) {
      expect(output.length).toBeGreaterThan(0);
      expect(output).not.toContain(fake.apiKey);
    }
    // The request really carried the key (the test would pass vacuously otherwise).
    expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
  });

  it('exits 2 with one line naming the key for a bad config', async () => {
    const bad = tempDir();
    writeFileSync(path.join(bad, 'config.yaml'), 'llm:\n  max_loops: many\n');
    const result = await runFamiliar(['ask', 'hi'], { cwd: bad });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('config: llm.max_loops: must be number, not the text "many"\n');
  });

  it('exits 2 for an unknown key and for a missing --config file', async () => {
    const bad = tempDir();
    writeFileSync(path.join(bad, 'config.yaml'), 'channels:\n  telegram:\n    tokn: x\n');
    const unknown = await runFamiliar(['doctor'], { cwd: bad });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^config: channels\.telegram\.tokn: unknown key/);
    const missing = await runFamiliar(['ask', '--config', 'nope.yaml', 'hi'], { cwd: bad });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.yaml does not exist/);
  });

  it('tools list --json lists the memory tools with their schemas', async () => {
    const result = await runFamiliar(['tools', 'list', '--json'], { cwd: dir, env: { TEST_LLM_KEY: fake.apiKey } });
    expect(result.code).toBe(0);
    const tools = JSON.parse(result.stdout) as Array<{ name: string; parameters: { required?: string[] } }>;
    const write = tools.find((tool) => tool.name === 'memory_write');
    expect(write?.parameters.required).toEqual(['path', 'content']);
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['memory_read', 'memory_write', 'memory_search']));
  });

  it('doctor reports the LLM check against the fake server', async () => {
    const good = await runFamiliar(['doctor'], { cwd: dir, env: { TEST_LLM_KEY: fake.apiKey } });
    expect(good.stdout).toMatch(/✓ llm: gpt-test at http:\/\/127\.0\.0\.1:\d+\/v1/);
    const badKey = await runFamiliar(['doctor'], { cwd: dir, env: { TEST_LLM_KEY: 'sk-wrong' } });
    expect(badKey.code).toBe(1);
    expect(badKey.stdout).toMatch(/✗ llm: .*refused the API key \(401\): check llm\.api_key/);
  });

  it('starts with the example defaults when there is no config file, and stops cleanly on SIGTERM', async () => {
    const empty = tempDir();
    const child = spawn(process.execPath, [MAIN, 'start'], { cwd: empty, env: { PATH: process.env.PATH ?? '', HOME: empty }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      const check = setInterval(() => {
        if (stderr.includes('familiar is ready')) {
          clearInterval(check);
          resolve();
        }
      }, 20);
      child.on('close', () => {
        clearInterval(check);
        reject(new Error(`exited early: ${stderr}`));
      });
    });
    expect(stderr).toContain('no config file found; using the defaults from config.example.yaml');
    const code = await new Promise<number | null>((resolve) => {
      child.removeAllListeners('close');
      child.on('close', resolve);
      child.kill('SIGTERM');
    });
    expect(code).toBe(0);
    expect(stderr).toContain('"msg":"stopped"');
  });
});
