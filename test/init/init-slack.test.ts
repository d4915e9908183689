import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { loadConfig } from '../../src/config/load.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { startSlackServer, type FakeSlack } from '../fakes/slack-server.js';
import { tempDir } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';

describe('familiar init --yes with Slack flags', () => {
  let llm: FakeOpenAI;
  let slack: FakeSlack;

  beforeAll(async () => {
    [llm, slack] = await Promise.all([startOpenAiServer(), startSlackServer()]);
  });
  afterAll(async () => {
    await Promise.all([llm.close(), slack.close()]);
  });

  const init = async (dir: string, ...flags: string[]) => {
    const io = captureIo();
    const code = await runCli(['init', '--config', path.join(dir, 'config.yaml'), '--yes', '--no-sandbox', '--no-telegram', '--no-discord',
      '--provider', 'custom', '--base-url', llm.baseUrl, '--api-key', llm.apiKey, '--model', 'gpt-test', '--skip-llm-test', ...flags], io);
    return { code, out: io.out(), err: io.err() };
  };

  it('checks both tokens with Slack and writes channels.slack with ${NAME} references, the tokens in .env', async () => {
    const dir = tempDir();
    const result = await init(dir, '--slack-app-token', slack.appToken, '--slack-bot-token', slack.botToken, '--slack-api-url', slack.apiUrl, '--slack-user', 'U0OWNER01');
    expect(result.code, result.out + result.err).toBe(0);
    expect(result.out).toContain('Slack bot: familiar in Fake Team');
    const config = readFileSync(path.join(dir, 'config.yaml'), 'utf8');
    expect(config).not.toContain(slack.botToken);
    expect(config).toContain('app_token: ${SLACK_APP_TOKEN}');
    expect(config).toContain('bot_token: ${SLACK_BOT_TOKEN}');
    const env = readFileSync(path.join(dir, '.env'), 'utf8');
    expect(env).toContain(`SLACK_APP_TOKEN=${slack.appToken}`);
    expect(env).toContain(`SLACK_BOT_TOKEN=${slack.botToken}`);
    const loaded = loadConfig({ configPath: path.join(dir, 'config.yaml'), env: { LLM_API_KEY: 'k', SLACK_APP_TOKEN: slack.appToken, SLACK_BOT_TOKEN: slack.botToken } });
    expect(loaded.config.channels.slack).toEqual({ app_token: slack.appToken, bot_token: slack.botToken, api_url: slack.apiUrl, allowed_users: ['U0OWNER01'] });
    expect(slack.calls.map((call) => call.method)).toEqual(['auth.test', 'apps.connections.open']);
  });

  it('a refused app token stops init, naming what to fix; a malformed member id is refused before anything', async () => {
    const refused = await init(tempDir(), '--slack-app-token', 'xapp-wrong', '--slack-bot-token', slack.botToken, '--slack-api-url', slack.apiUrl);
    expect(refused.code).not.toBe(0);
    expect(refused.out + refused.err).toMatch(/Slack refused the app-level token \(invalid_auth\)/);
    const malformed = await init(tempDir(), '--slack-app-token', slack.appToken, '--slack-bot-token', slack.botToken, '--slack-user', '12345');
    expect(malformed.code).not.toBe(0);
    expect(malformed.out + malformed.err).toContain('--slack-user 12345: a Slack member id looks like U0123ABCD');
  });
});
