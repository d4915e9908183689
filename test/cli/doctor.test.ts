import { spawn } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { startTelegramServer } from '../fakes/telegram-server.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';
import { MAIN } from '../helpers/daemon.js';

interface Run { code: number | null; stdout: string; stderr: string }

function familiar(dir: string, args: string[], env: Record<string, string> = {}, untilStderr?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, TZ: 'UTC', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (untilStderr !== undefined && stderr.includes(untilStderr)) child.kill('SIGTERM');
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('doctor and start tell a new person what is missing', () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startOpenAiServer();
  });
  afterAll(async () => {
    await fake.close();
  });

  it('with nothing set up: no "All checks passed", the missing key and channel each with the next step, the machine\'s zone', async () => {
    const result = await familiar(tempDir(), ['doctor']);
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('All checks passed');
    expect(result.stdout).toContain('! config: no config.yaml: running on config.example.yaml\'s defaults — run familiar init');
    expect(result.stdout).toMatch(/^✗ llm: .*no API key.*OPENAI_API_KEY in the \.env beside config\.yaml \(or run familiar init\)$/m);
    expect(result.stdout).toMatch(/^! channels: no chat channel is configured.* — run familiar init/m);
    expect(result.stdout).toMatch(/^✓ timezone: UTC: the machine's/m);
    expect(result.stdout).not.toContain('Europe/Paris');
  });

  it('a working LLM but no channel: exit 0, yet warnings, not "All checks passed"', async () => {
    const dir = tempDir();
    writeTestConfig(dir, fake);
    const result = await familiar(dir, ['doctor'], { TEST_LLM_KEY: fake.apiKey });
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/^✓ llm: gpt-test/m);
    expect(result.stdout).not.toContain('All checks passed');
    expect(result.stdout).toMatch(/No check failed; 1 warning \(!\) above\.\n$/);
  });

  it('an unreachable Telegram is one ✗ line in the list: no JSON log lines, no stacks, no retries', async () => {
    const dir = tempDir();
    const port = await closedPort();
    writeTestConfig(dir, fake, { channels: { telegram: { token: '1:abc', api_root: `http://127.0.0.1:${port}`, allowed_users: [1] } } });
    const result = await familiar(dir, ['doctor'], { TEST_LLM_KEY: fake.apiKey });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`✗ telegram: cannot reach http://127.0.0.1:${port} (connect ECONNREFUSED 127.0.0.1:${port}) — check the network, and channels.telegram.api_root if you set it`);
    expect(result.stderr).toBe('');
    expect(result.stdout).not.toMatch(/"level"|\n\s+at /);
  });

  it('names an unset ${VAR} and the part it turns off, and a .env others can read', async () => {
    const dir = tempDir();
    writeTestConfig(dir, fake, { channels: { discord: { token: '${DISCORD_BOT_TOKEN}' } } });
    writeFileSync(path.join(dir, '.env'), `TEST_LLM_KEY=${fake.apiKey}\n`);
    chmodSync(path.join(dir, '.env'), 0o644);
    const result = await familiar(dir, ['doctor']);
    expect(result.stdout).toMatch(/^✓ llm: gpt-test/m);
    expect(result.stdout).toContain(`! channels.discord.token: \${DISCORD_BOT_TOKEN} is not set: Discord is off or incomplete — put DISCORD_BOT_TOKEN=… in ${path.join(dir, '.env')}`);
    expect(result.stdout).toContain(`! ${path.join(dir, '.env')}: readable by others (mode 644): it holds secrets — chmod 600`);
  });

  it('start with no key and no channel says so before "ready", with the next step', async () => {
    const result = await familiar(tempDir(), ['start', '--log-level', 'warn'], {}, 'no chat channel');
    expect(result.stderr).toMatch(/llm: no API key for https:\/\/api\.openai\.com\/v1 \(llm\.api_key is \$\{OPENAI_API_KEY\}, which is not set\) — run familiar init/);
    expect(result.stderr).toMatch(/channels: no chat channel is configured, so nobody can message this daemon — run familiar init/);
  });

  it('start with a rejected bot token does not just say "ready": nobody can message it, and why', async () => {
    const telegram = await startTelegramServer();
    try {
      const dir = tempDir();
      writeTestConfig(dir, fake, { log: { level: 'info', format: 'json' }, channels: { telegram: { token: '999:WRONG', api_root: telegram.apiRoot, allowed_users: [1] } } });
      const result = await familiar(dir, ['start'], { TEST_LLM_KEY: fake.apiKey }, 'familiar is ready');
      const ready = result.stderr.split('\n').find((line) => line.includes('familiar is ready')) ?? '';
      expect(JSON.parse(ready)).toMatchObject({ level: 40, msg: expect.stringMatching(/^familiar is ready, but nobody can message it: telegram failed to start/) });
      expect(result.stderr).toContain('TELEGRAM_AUTH');
    } finally {
      await telegram.close();
    }
  });
});
