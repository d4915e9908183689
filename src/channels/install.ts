import type { App } from '../app.js';
import { registerBuiltinCommands } from './commands.js';
import type { DiscordChannel } from './discord.js';
import { ChannelRouter } from './router.js';
import type { TelegramChannel } from './telegram.js';

const SETTLE_MS = 5000;

/**
 * Installs the chat channels: the router (access, dedupe, queue), the built-in chat commands, and one
 * AppModule per configured platform. A platform without a token logs one line and stays off; one that
 * fails to start is logged by `app.start` and the others run. Adapters are in `app.channels` from install
 * on (so other parts can add listeners before start); sending through one that is not running throws
 * CHANNEL_UNAVAILABLE.
 */
export async function installChannels(app: App): Promise<void> {
  const log = app.log.child({ component: 'channels' });
  const { telegram, discord } = app.config.channels;
  const allowedUsers = new Map<string, Set<string>>([
    ['telegram', new Set(telegram?.allowed_users ?? [])],
    ['discord', new Set(discord?.allowed_users ?? [])],
  ]);
  const router = new ChannelRouter({ app, allowedUsers });
  registerBuiltinCommands(app, router);
  // Replies of turns that ended during the drain are still being sent: let them go out (and be recorded) first.
  const settled = () => router.settle(SETTLE_MS);
  const buttons: { telegram?: TelegramChannel; discord?: DiscordChannel } = {};

  // Platform libraries (grammy, discord.js) are loaded only for a configured channel: they dominate start-up.
  if (!telegram?.token) log.info('telegram: off (no channels.telegram.token)');
  else {
    const { TelegramChannel } = await import('./telegram.js');
    const channel = new TelegramChannel({ app, router, config: telegram, log: app.log.child({ component: 'telegram' }) });
    app.channels.register(channel);
    buttons.telegram = channel;
    app.modules.push({ name: 'telegram', start: () => channel.start(), stop: () => channel.stop(), close: () => settled().then(() => channel.close()), doctor: () => channel.doctor() });
  }
  if (!discord?.token) log.info('discord: off (no channels.discord.token)');
  else {
    const { DiscordChannel } = await import('./discord.js');
    const channel = new DiscordChannel({ app, router, config: discord, log: app.log.child({ component: 'discord' }) });
    app.channels.register(channel);
    buttons.discord = channel;
    app.modules.push({ name: 'discord', start: () => channel.start(), stop: () => channel.stop(), close: () => settled().then(() => channel.close()), doctor: () => channel.doctor() });
  }
  // Approval questions with buttons, answered outside the chat queue (see approvals.ts).
  if (buttons.telegram || buttons.discord) (await import('./approvals.js')).installChatApprovals(app, router, buttons);
}
