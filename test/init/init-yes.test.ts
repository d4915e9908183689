import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { loadConfig } from '../../src/config/load.js';
import { startDiscordServer, type FakeDiscord } from '../fakes/discord-server.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { startTelegramServer, type FakeTelegram } from '../fakes/telegram-server.js';
import { tempDir } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';

describe('familiar init --yes (for scripts)', () => {
  let llm: FakeOpenAI;
  let telegram: FakeTelegram;
  let discord: FakeDiscord;

  beforeAll(async () => {
    llm = await startOpenAiServer({ models: ['gpt-test', 'other-model'] });
    telegram = await startTelegramServer();
    discord = await startDiscordServer();
  });
  afterAll(async () => {
    await Promise.all([llm.close(), telegram.close(), discord.close()]);
  });

  const init = async (dir: string, ...flags: string[]) => {
    const io = captureIo();
    const code = await runCli(['init', '--config', path.join(dir, 'config.yaml'), '--yes', '--no-sandbox', ...flags], io);
    return { code, out: io.out(), err: io.err() };
  };
  const llmFlags = () => ['--provider', 'custom', '--base-url', llm.baseUrl, '--api-key', llm.apiKey, '--model', 'gpt-test'];

  it('turns the heartbeat on with --heartbeat, every 30 minutes', async () => {
    const dir = tempDir();
    const result = await init(dir, ...llmFlags(), '--skip-llm-test', '--no-telegram', '--no-discord', '--heartbeat');
    expect(result.code, result.out + result.err).toBe(0);
    const loaded = loadConfig({ configPath: path.join(dir, 'config.yaml'), env: {} });
    expect(loaded.config.heartbeat).toMatchObject({ every: 1800, active_hours: '08:00-22:00' });
  });

  it('writes config.yaml with ${NAME} references and no secret, and .env with the secrets, mode 0600', async () => {
    const dir = tempDir();
    const result = await init(dir, ...llmFlags(), '--timezone', 'America/New_York',
      '--telegram-token', telegram.token, '--telegram-api-root', telegram.apiRoot, '--telegram-user', '4242',
      '--discord-token', discord.token, '--discord-api-url', discord.restApi, '--discord-user', '777');
    expect(result.code, result.out + result.err).toBe(0);
    const config = readFileSync(path.join(dir, 'config.yaml'), 'utf8');
    for (const secret of [llm.apiKey, telegram.token, discord.token]) expect(config).not.toContain(secret);
    expect(config).toContain('api_key: ${LLM_API_KEY}');
    expect(config).toContain('token: ${TELEGRAM_BOT_TOKEN}');
    expect(config).toContain('token: ${DISCORD_BOT_TOKEN}');
    const envFile = path.join(dir, '.env');
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    const env = readFileSync(envFile, 'utf8');
    expect(env).toContain(`LLM_API_KEY=${llm.apiKey}`);
    expect(env).toContain(`TELEGRAM_BOT_TOKEN=${telegram.token}`);
    expect(env).toContain(`DISCORD_BOT_TOKEN=${discord.token}`);
    // What every command then reads: the config with .env beside it, and no variable left unset.
    const loaded = loadConfig({ configPath: path.join(dir, 'config.yaml'), env: {} });
    expect(loaded.config.llm).toMatchObject({ base_url: llm.baseUrl, api_key: llm.apiKey, model: 'gpt-test' });
    expect(loaded.config.timezone).toBe('America/New_York');
    expect(loaded.config.channels.telegram).toMatchObject({ token: telegram.token, api_root: telegram.apiRoot, allowed_users: ['4242'] });
    expect(loaded.config.channels.discord).toMatchObject({ token: discord.token, allowed_users: ['777'] });
    expect(loaded.unset).toEqual([]);
    // The LLM was tested for real: a completion reached the server.
    expect(llm.requests.some((request) => request.path.endsWith('/chat/completions') && request.body.model === 'gpt-test')).toBe(true);
    expect(result.out).toContain('@familiar_test_bot');
  });

  it('fails with the reason, and writes nothing, when the key is refused', async () => {
    const dir = tempDir();
    const result = await init(dir, '--provider', 'custom', '--base-url', llm.baseUrl, '--api-key', 'sk-wrong', '--model', 'gpt-test');
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/the LLM test failed: .*refused the API key \(401\): check llm\.api_key/);
    expect(result.out).toContain('Nothing was written.');
    expect(() => statSync(path.join(dir, 'config.yaml'))).toThrow();
  });

  it('a rejected Telegram token stops it with what to do', async () => {
    const dir = tempDir();
    const result = await init(dir, ...llmFlags(), '--telegram-token', '999:WRONG-TOKEN-abcdefgh', '--telegram-api-root', telegram.apiRoot);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/Telegram: Telegram refused this token: copy it again from @BotFather/);
  });

  it('never replaces a file that differs without --overwrite; shows the diff (secrets masked) either way', async () => {
    const dir = tempDir();
    expect((await init(dir, ...llmFlags(), '--timezone', 'Europe/Berlin')).code).toBe(0);
    const before = { config: readFileSync(path.join(dir, 'config.yaml'), 'utf8'), env: readFileSync(path.join(dir, '.env'), 'utf8') };
    const again = await init(dir, ...llmFlags().slice(0, -1), 'other-model', '--timezone', 'Europe/Berlin', '--api-key', 'sk-test-fake-key-0123456789');
    expect(again.code).toBe(1);
    expect(again.out).toMatch(/-\s*model: gpt-test/);
    expect(again.out).toMatch(/\+\s*model: other-model/);
    expect(again.out).toContain('Pass --overwrite to replace it.');
    expect(readFileSync(path.join(dir, 'config.yaml'), 'utf8')).toBe(before.config);
    const forced = await init(dir, ...llmFlags().slice(0, -1), 'other-model', '--timezone', 'Europe/Berlin', '--overwrite');
    expect(forced.code).toBe(0);
    expect(readFileSync(path.join(dir, 'config.yaml'), 'utf8')).toContain('model: other-model');
    expect(readFileSync(path.join(dir, '.env'), 'utf8')).toBe(before.env);
  });

  it('keeps the person\'s own keys, comments and .env lines when it updates files', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'config.yaml'), '# my assistant\nagent:\n  name: Jeeves   # the butler\nllm:\n  model: old\n');
    writeFileSync(path.join(dir, '.env'), '# mine\nTAVILY_API_KEY=tvly-secret-123456\n', { mode: 0o600 });
    const result = await init(dir, ...llmFlags(), '--timezone', 'UTC', '--overwrite');
    expect(result.code, result.out + result.err).toBe(0);
    expect(result.out).toMatch(/TAVILY_API_KEY=\*\*\*\*3456/);
    expect(result.out).not.toContain('tvly-secret-123456');
    const config = readFileSync(path.join(dir, 'config.yaml'), 'utf8');
    expect(config).toContain('# my assistant');
    expect(config).toContain('name: Jeeves # the butler');
    expect(config).toContain('model: gpt-test');
    expect(readFileSync(path.join(dir, '.env'), 'utf8')).toBe(`# mine\nTAVILY_API_KEY=tvly-secret-123456\nLLM_API_KEY=${llm.apiKey}\n`);
  });

  it('with --compose, writes the variables Compose reads; with the sandbox, the override and the host path', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'docker-compose.yml'), 'services: {}\n');
    const io = captureIo();
    const code = await runCli(['init', '--config', path.join(dir, 'config.yaml'), '--yes', ...llmFlags(), '--sandbox', '--compose'], io);
    expect(code, io.out() + io.err()).toBe(0);
    const env = readFileSync(path.join(dir, '.env'), 'utf8');
    const uid = process.getuid?.() === 0 ? 1000 : statSync(dir).uid;
    expect(env).toContain(`FAMILIAR_UID=${uid}\n`);
    expect(env).toContain('COMPOSE_FILE=docker-compose.yml:docker-compose.sandbox.yml\n');
    expect(env).toContain(`FAMILIAR_HOST_DIR=${dir}\n`);
    if (process.getuid?.() === 0) expect(statSync(path.join(dir, 'data')).uid).toBe(1000);
    expect(readFileSync(path.join(dir, 'config.yaml'), 'utf8')).toMatch(/sandbox:\n\s+image: familiar-sandbox:latest/);
  });

  it('beside docker-compose.yml without --compose, writes no Compose variables and hands no folder to another uid', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'docker-compose.yml'), 'services: {}\n');
    const result = await init(dir, ...llmFlags());
    expect(result.code, result.out + result.err).toBe(0);
    expect(readFileSync(path.join(dir, '.env'), 'utf8')).not.toContain('FAMILIAR_UID');
    expect(existsSync(path.join(dir, 'data'))).toBe(false);
  });

  it('sends the results of terminal jobs to the Telegram user it was given, and turns the console on when asked', async () => {
    const dir = tempDir();
    const result = await init(dir, ...llmFlags(), '--telegram-token', telegram.token, '--telegram-api-root', telegram.apiRoot, '--telegram-user', '4242', '--console');
    expect(result.code, result.out + result.err).toBe(0);
    const loaded = loadConfig({ configPath: path.join(dir, 'config.yaml'), env: {} });
    expect(loaded.config.scheduler.default_chat).toBe('telegram:4242');
    expect(loaded.config.http).toMatchObject({ listen: '127.0.0.1:8484', console: true });
    expect(result.out).toContain('familiar console');
  });

  it('refuses to ask questions without a terminal, and bad flags, with a usage line', async () => {
    const io = captureIo();
    expect(await runCli(['init', '--config', path.join(tempDir(), 'c.yaml')], io)).toBe(2);
    expect(io.err()).toContain('pass --yes with flags');
    const bad = captureIo();
    expect(await runCli(['init', '--yes', '--telegram-user', 'me'], bad)).toBe(2);
    expect(bad.err()).toMatch(/user id me: ids are numbers/);
    const zone = await init(tempDir(), ...llmFlags(), '--timezone', 'Mars/Olympus');
    expect(zone.code).toBe(1);
    expect(zone.out).toMatch(/--timezone Mars\/Olympus: not an IANA time zone/);
  });
});
