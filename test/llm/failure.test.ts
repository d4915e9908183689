import { spawn } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load.js';
import { LlmError, AppError } from '../../src/errors.js';
import { createLlmClient, NO_KEY } from '../../src/llm/client.js';
import { createLogger } from '../../src/log.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, tempDir, writeTestConfig } from '../helpers/app.js';
import { MAIN } from '../helpers/daemon.js';

/** A port nothing listens on (taken, then freed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function clientFor(llm: Record<string, unknown>) {
  const sleeps: number[] = [];
  const lines: string[] = [];
  const log = createLogger({ level: 'trace', format: 'json', secrets: [], destination: new Writable({ write: (chunk: Buffer, _encoding, done) => { lines.push(chunk.toString()); done(); } }) });
  const config = validateConfig({ llm }).llm;
  const client = createLlmClient({ config, log, sleep: async (ms) => { sleeps.push(ms); } });
  return { client, sleeps, lines };
}

async function failureOf(promise: Promise<unknown>): Promise<LlmError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof LlmError) return error;
    throw error;
  }
  throw new Error('expected an LlmError');
}

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

describe('LLM failures: the right advice, at once for what waiting cannot fix', () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startOpenAiServer();
  });
  afterAll(async () => {
    await fake.close();
  });

  it('leaves no listener on the turn\'s signal after a call: a long turn does not collect one per model call', async () => {
    const { client } = clientFor({ base_url: fake.baseUrl, api_key: fake.apiKey, model: 'a' });
    const turn = new AbortController();
    for (let index = 0; index < 12; index += 1) {
      fake.script({ content: `answer ${index}` });
      expect((await client.complete({ ...ask, signal: turn.signal })).content).toBe(`answer ${index}`);
    }
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(0);
  });

  it('a refused connection is not retried and says to check llm.base_url', async () => {
    const port = await closedPort();
    const { client, sleeps } = clientFor({ base_url: `http://127.0.0.1:${port}/v1`, api_key: 'k', fallback_models: ['other'] });
    const error = await failureOf(client.complete(ask));
    expect(error.message).toBe(`nothing answers at http://127.0.0.1:${port}/v1 (connection refused): check llm.base_url and that the server is running`);
    expect(error.transient).toBe(false);
    expect(sleeps).toEqual([]);
  });

  it('an unknown host and a blocked port are named too', async () => {
    const unknown = await failureOf(clientFor({ base_url: 'http://no-such-host.invalid/v1', api_key: 'k' }).client.complete(ask));
    expect(unknown.message).toBe('the host of http://no-such-host.invalid/v1 was not found: check llm.base_url');
    const blocked = await failureOf(clientFor({ base_url: 'http://127.0.0.1:9/v1', api_key: 'k' }).client.complete(ask));
    expect(blocked.message).toMatch(/^llm\.base_url \(http:\/\/127\.0\.0\.1:9\/v1\) uses a port that fetch refuses/);
  });

  it('no key for OpenAI\'s API is said before any request, with where to put it', async () => {
    const { client } = clientFor({ api_key: '' });
    const error = await failureOf(client.complete(ask));
    expect(error.message).toBe(NO_KEY);
    expect(error.message).toMatch(/OPENAI_API_KEY in the \.env beside config\.yaml/);
  });

  it('a refused key is said once, without trying the fallback models on the same server', async () => {
    const { client, sleeps, lines } = clientFor({ base_url: fake.baseUrl, api_key: 'sk-wrong', model: 'a', fallback_models: ['b', 'c'] });
    const error = await failureOf(client.complete(ask));
    expect(error.message).toBe(`the LLM provider at ${fake.baseUrl} refused the API key (401): check llm.api_key`);
    expect(error.transient).toBe(false);
    expect(sleeps).toEqual([]);
    expect(lines.join('')).not.toMatch(/trying b/);
  });

  it('an unknown model falls back to the next one', async () => {
    fake.script({ status: 404, error: 'The model `nope` does not exist' }, { content: 'from b' });
    const { client, lines } = clientFor({ base_url: fake.baseUrl, api_key: fake.apiKey, model: 'nope', fallback_models: ['b'] });
    expect((await client.complete(ask)).content).toBe('from b');
    expect(lines.join('')).toMatch(/"msg":"llm: nope failed; trying b"/);
  });

  it('server errors are retried, and are the only ones that say "try again"', async () => {
    const made = await makeTestApp(fake);
    try {
      fake.script({ status: 503 }, { status: 503 }, { status: 503 });
      const transient = await made.app.turns.start({ text: 'hi', origin: { channel: 'cli', chatId: 't' }, source: 'cli' });
      expect(transient.text).toBe('Sorry, I could not answer: the LLM provider had a server error (503). Please try again in a moment.');
      expect(made.sleeps).toHaveLength(2);
      fake.script({ status: 401, error: 'bad key' });
      const permanent = await made.app.turns.start({ text: 'hi', origin: { channel: 'cli', chatId: 't' }, source: 'cli' });
      expect(permanent.text).toMatch(/^Sorry, I could not answer: .*\(401\): check llm\.api_key\.$/);
    } finally {
      await made.app.close(0);
    }
  });

  it('logs an operational error without its stack unless the level is debug; a bug keeps its stack', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => { lines.push(chunk.toString()); done(); } });
    const info = createLogger({ level: 'info', format: 'json', secrets: [], destination: sink });
    info.error({ err: new AppError('TELEGRAM_AUTH', 'telegram: the bot token was rejected') }, 'telegram failed to start');
    info.error({ err: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }) }, 'down');
    info.error({ err: new TypeError('x is undefined') }, 'bug');
    const debug = createLogger({ level: 'debug', format: 'json', secrets: [], destination: sink });
    debug.error({ err: new AppError('TELEGRAM_AUTH', 'rejected') }, 'with stack');
    const parsed = lines.map((line) => JSON.parse(line) as { err: { stack?: string; message: string; code?: string } });
    expect(parsed[0]?.err).toEqual({ type: 'AppError', message: 'telegram: the bot token was rejected', code: 'TELEGRAM_AUTH', name: 'AppError' });
    expect(parsed[1]?.err.stack).toBeUndefined();
    expect(parsed[2]?.err.stack).toMatch(/TypeError: x is undefined\n\s+at /);
    expect(parsed[3]?.err.stack).toMatch(/AppError: rejected\n\s+at /);
  });
});

describe('familiar ask with a wrong LLM port or no key: one line', () => {
  const run = (dir: string, args: string[]) => new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, TEST_LLM_KEY: 'k' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });

  it('a wrong port: one line naming the URL and what to check, no retries, no stack', async () => {
    const dir = tempDir();
    const port = await closedPort();
    writeTestConfig(dir, undefined, { log: { level: 'info', format: 'auto' }, llm: { base_url: `http://127.0.0.1:${port}/v1` } });
    const result = await run(dir, ['ask', 'hello?']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`Sorry, I could not answer: nothing answers at http://127.0.0.1:${port}/v1 (connection refused): check llm.base_url and that the server is running.\n`);
  });

  it('the stack is in the debug log', async () => {
    const dir = tempDir();
    const port = await closedPort();
    writeTestConfig(dir, undefined, { log: { level: 'info', format: 'json' }, llm: { base_url: `http://127.0.0.1:${port}/v1` } });
    const result = await run(dir, ['ask', '--log-level', 'debug', 'hello?']);
    expect(result.stderr).toMatch(/"msg":"llm failed: nothing answers/);
    expect(result.stderr).toMatch(/"stack":"LlmError: nothing answers/);
  });

  it('no key for OpenAI\'s API: one line saying where the key goes', async () => {
    const dir = tempDir();
    writeTestConfig(dir, undefined, { llm: { base_url: 'https://api.openai.com/v1', api_key: '${OPENAI_API_KEY}' } });
    const result = await run(dir, ['ask', 'hello?']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`Sorry, I could not answer: ${NO_KEY}.\n`);
  });
});
