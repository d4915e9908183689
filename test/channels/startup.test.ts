import { afterEach, describe, expect, it } from 'vitest';
import { startDiscordServer, type FakeDiscord } from '../fakes/discord-server.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { startTelegramServer, type FakeTelegram } from '../fakes/telegram-server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { OWNER_DC } from '../helpers/channels.js';
import { waitUntil } from '../helpers/daemon.js';

describe('channel start-up', () => {
  let llm: FakeOpenAI;
  let telegram: FakeTelegram;
  let discord: FakeDiscord;
  let t: TestApp | undefined;

  afterEach(async () => {
    await t?.app.close(500);
    await Promise.all([llm.close(), telegram.close(), discord.close()]);
  });

  it('logs a channel that fails to start and keeps the others serving', async () => {
    llm = await startOpenAiServer();
    telegram = await startTelegramServer();
    discord = await startDiscordServer();
    t = await makeTestApp(llm, {
      channels: {
        telegram: { token: '999:WRONG', api_root: telegram.apiRoot, allowed_users: [1] },
        discord: { token: discord.token, api_url: discord.restApi, allowed_users: [OWNER_DC] },
      },
    });
    await t.app.start();
    expect(t.logs.some((line) => line.includes('telegram failed to start') && line.includes('TELEGRAM_AUTH'))).toBe(true);
    const { channelId } = discord.sendUserMessage({ userId: OWNER_DC, content: 'are you there?', dm: true });
    const reply = await discord.waitFor(() => discord.messagesIn(channelId)[0]);
    expect(reply.content).toBe('ok');
    await expect(t.app.channels.deliver('telegram:1', { text: 'x' })).rejects.toMatchObject({ code: 'CHANNEL_UNAVAILABLE' });
    // /status names the channels that run: not the one that failed.
    discord.sendUserMessage({ userId: OWNER_DC, content: '/status', dm: true });
    const status = await discord.waitFor(() => discord.messagesIn(channelId).find((message) => message.content.includes('Channels:')));
    expect(status.content).toMatch(/Channels: discord$/m);
  });

  it('lists a channel whose server fails at start as failing and retrying, and runs it once the server answers', async () => {
    llm = await startOpenAiServer();
    telegram = await startTelegramServer();
    discord = await startDiscordServer();
    // Five 502s: the start's getMe and its four retries; the first try in the background gets an answer.
    telegram.failNext('getMe', { error_code: 502, description: 'Bad Gateway' }, 5);
    t = await makeTestApp(llm, { channels: { telegram: { token: telegram.token, api_root: telegram.apiRoot, allowed_users: [1] } } });
    await t.app.start();
    expect(t.app.failedParts()).toEqual(['telegram']);
    expect(t.app.retryingParts()).toEqual(['telegram']);
    expect(t.logs.some((line) => line.includes('telegram failed to start') && line.includes('TELEGRAM_UNREACHABLE') && line.includes('keeps trying'))).toBe(true);
    await waitUntil(() => t?.app.failedParts().length === 0, 20_000, 'telegram to start in the background');
    expect(t.app.retryingParts()).toEqual([]);
    telegram.sendUserMessage({ chatId: 1, userId: 1, text: 'are you there?' });
    const reply = await telegram.waitFor(() => telegram.messagesTo(1)[0]);
    expect(reply.text).toBe('ok');
  }, 40_000);

  it('logs one line and stays off for a channel without a token', async () => {
    llm = await startOpenAiServer();
    telegram = await startTelegramServer();
    discord = await startDiscordServer();
    t = await makeTestApp(llm, { channels: { telegram: { token: '' } } });
    await t.app.start();
    expect(t.logs.filter((line) => line.includes('telegram: off')).length).toBe(1);
    expect(t.app.parts.map((module) => module.name)).not.toContain('telegram');
  });
});
