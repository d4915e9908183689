import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import { runCli } from '../../src/cli/run.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, tempDir, writeTestConfig } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';
import { freePort } from '../helpers/rig.js';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const TOKEN = 'status-token-0123456789abcdef';

async function status(configPath: string, ...args: string[]) {
  const io = captureIo();
  const code = await runCli(['status', '--config', configPath, ...args], io);
  return { code, out: io.out(), err: io.err() };
}

describe('familiar status', () => {
  let fake: FakeOpenAI;
  let apps: App[];

  beforeEach(async () => {
    fake = await startOpenAiServer();
    apps = [];
  });

  afterEach(async () => {
    for (const app of apps) await app.close(0).catch(() => undefined);
    await fake.close();
  });

  async function daemon(http: Record<string, unknown>): Promise<{ app: App; configPath: string }> {
    const made = await makeTestApp(fake, { http });
    apps.push(made.app);
    await made.app.start();
    return { app: made.app, configPath: made.configPath };
  }

  it('says how to enable the endpoint when http.listen is not set', async () => {
    const configPath = writeTestConfig(tempDir(), fake);
    const result = await status(configPath);
    expect(result.code).toBe(1);
    expect(result.err).toContain("the daemon's status endpoint is off; set http.listen: 127.0.0.1:8484 in config.yaml");
  });

  it('says no daemon answers when nothing listens at http.listen', async () => {
    const port = await freePort();
    const configPath = writeTestConfig(tempDir(), fake, { http: { listen: `127.0.0.1:${port}` } });
    const result = await status(configPath);
    expect(result.code).toBe(1);
    expect(result.err).toContain(`no daemon answers at http://127.0.0.1:${port} (ECONNREFUSED)`);
  });

  it('prints uptime, readiness, queues, usage and jobs of a running daemon', async () => {
    const port = await freePort();
    const { app, configPath } = await daemon({ listen: `127.0.0.1:${port}` });
    app.db.prepare("INSERT INTO turns (id, conversation_id, source, started_at, status, prompt_tokens, completion_tokens) VALUES ('t', 'c', 'cli', ?, 'ok', 300, 45)").run(Date.now());
    const result = await status(configPath);
    expect(result.code, result.err).toBe(0);
    expect(result.out).toMatch(/^familiar \d+\.\d+\.\d+, pid \d+, up \d+m \d+s/);
    expect(result.out).toContain('ready:    yes');
    expect(result.out).toContain('queue:    0 running, 0 waiting');
    expect(result.out).toContain('llm:      gpt-test; today 1 turn(s), 345 tokens (300 prompt, 45 completion)');
    expect(result.out).toContain('jobs:     ');
  });

  it('prints the same state as JSON with --json', async () => {
    const port = await freePort();
    const { configPath } = await daemon({ listen: `127.0.0.1:${port}` });
    const result = await status(configPath, '--json');
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.out) as { queue: unknown; pid: number };
    expect(parsed.queue).toEqual({ active: 0, pending: 0 });
    expect(parsed.pid).toBe(process.pid);
  });

  it('exits 0 for --ready on a ready daemon and 1 naming the module that failed', async () => {
    const port = await freePort();
    const { configPath } = await daemon({ listen: `127.0.0.1:${port}` });
    expect(await status(configPath, '--ready')).toMatchObject({ code: 0, out: 'ready\n' });
    await apps[0]?.close(0);
    apps = [];
    const made = await makeTestApp(fake, { http: { listen: `127.0.0.1:${port}` } }, undefined, { parts: [{ name: 'telegram', start: async () => { throw new Error('bad token'); } }] });
    apps.push(made.app);
    await made.app.start();
    const result = await status(made.configPath, '--ready');
    expect(result.code).toBe(1);
    expect(result.err).toBe('not ready: telegram failed to start (see the log)\n');
  });

  it('sends http.token in the Authorization header, and says so when the daemon refuses it', async () => {
    const port = await freePort();
    const { configPath } = await daemon({ listen: `127.0.0.1:${port}`, token: TOKEN });
    expect((await status(configPath)).code).toBe(0);
    const other = writeTestConfig(tempDir(), fake, { http: { listen: `127.0.0.1:${port}`, token: 'another-token-0123456789' } });
    const refused = await status(other);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('refused the token');
  });

  it.skipIf(!existsSync(MAIN))('reads the state of a real daemon process, which exits 0 on SIGTERM', async () => {
    const dir = tempDir();
    const port = await freePort();
    const configPath = writeTestConfig(dir, fake, { http: { listen: `127.0.0.1:${port}` }, log: { level: 'info', format: 'json' } });
    const child = spawn(process.execPath, [MAIN, 'start', '--config', configPath], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, TEST_LLM_KEY: fake.apiKey },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      let ready = await status(configPath, '--ready');
      for (let attempt = 0; ready.code !== 0 && attempt < 200; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        ready = await status(configPath, '--ready');
      }
      expect(ready.code, `${ready.err}\n${stderr}`).toBe(0);
      const result = await status(configPath, '--json');
      const parsed = JSON.parse(result.out) as { pid: number; ready: boolean };
      expect(parsed.pid).toBe(child.pid);
      expect(parsed.ready).toBe(true);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, stderr).toBe(0);
    expect(stderr).toContain('http: stopped listening');
  });
});
