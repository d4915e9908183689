import type { Daemon as App } from '../../src/daemon.js';
import { startDiscordServer, type FakeDiscord } from '../fakes/discord-server.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { startTelegramServer, type FakeTelegram } from '../fakes/telegram-server.js';
import { makeTestApp, type TestApp } from './app.js';

export const OWNER_TG = 1001;
export const FRIEND_TG = 1002;
export const STRANGER_TG = 4004;
export const OWNER_DC = '300000000000000001';
export const STRANGER_DC = '300000000000000666';

export interface ChannelRig {
  llm: FakeOpenAI;
  telegram: FakeTelegram;
  discord: FakeDiscord;
  t: TestApp;
  app: App;
  /** Closes the app and builds + starts a new one on the same folder (a daemon restart). */
  restart(): Promise<App>;
  close(): Promise<void>;
}

/** A daemon with both channels pointed at local fakes, started. `which` limits the configured channels. */
export async function startChannelRig(options: { which?: Array<'telegram' | 'discord'>; overrides?: Record<string, unknown> } = {}): Promise<ChannelRig> {
  const which = options.which ?? ['telegram', 'discord'];
  const llm = await startOpenAiServer();
  const telegram = await startTelegramServer();
  const discord = await startDiscordServer({ heartbeatIntervalMs: 1000 });
  const channels: Record<string, unknown> = {};
  if (which.includes('telegram')) channels['telegram'] = { token: telegram.token, api_root: telegram.apiRoot, allowed_users: [OWNER_TG, FRIEND_TG] };
  if (which.includes('discord')) channels['discord'] = { token: discord.token, api_url: discord.restApi, allowed_users: [OWNER_DC] };
  const t = await makeTestApp(llm, { channels, ...options.overrides });
  await t.app.start();
  const rig: ChannelRig = {
    llm, telegram, discord, t, app: t.app,
    async restart() {
      await rig.app.close(2000);
      rig.app = await t.restart();
      await rig.app.start();
      return rig.app;
    },
    async close() {
      await rig.app.close(1000);
      await Promise.all([llm.close(), telegram.close(), discord.close()]);
    },
  };
  return rig;
}

/** The user text of each chat completion request, in order (the last user message of each). */
export function userTexts(llm: FakeOpenAI): string[] {
  return llm.requests.map((request) => {
    const user = request.body.messages.filter((message) => message.role === 'user').at(-1);
    const content = user?.content;
    if (typeof content === 'string') return content;
    if (Array.isArray(content)) return content.map((part: { text?: string }) => part.text ?? '').join('');
    return '';
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
