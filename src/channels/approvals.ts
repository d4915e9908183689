import type { App } from '../app.js';
import { PendingApprovals } from './approval-pending.js';
import { createDiscordPrompter } from './discord-approvals.js';
import type { DiscordChannel } from './discord.js';
import { createTelegramPrompter } from './telegram-approvals.js';
import type { ChannelRouter } from './router.js';
import type { TelegramChannel } from './telegram.js';

/**
 * Registers the Telegram and Discord approval prompters (buttons) for the channels that are configured, and a
 * module that ends open questions at shutdown. Called by `installChannels` after it built the adapters.
 * (`_router` is no longer consulted: a press counts only from the person the question is for.)
 */
export function installChatApprovals(app: App, _router: ChannelRouter, channels: { telegram?: TelegramChannel; discord?: DiscordChannel }): void {
  const approvals = app.context.approvals;
  if (!approvals) return;
  const open: PendingApprovals[] = [];
  if (channels.telegram) {
    const log = app.log.child({ component: 'telegram' });
    const pending = new PendingApprovals(log);
    approvals.registerPrompter('telegram', createTelegramPrompter({ channel: channels.telegram, pending, log }));
    open.push(pending);
  }
  if (channels.discord) {
    const log = app.log.child({ component: 'discord' });
    const pending = new PendingApprovals(log);
    approvals.registerPrompter('discord', createDiscordPrompter({ channel: channels.discord, pending, log }));
    open.push(pending);
  }
  if (open.length === 0) return;
  // Pushed after the channel modules, so it stops first: the questions are edited while the bots can still send.
  app.modules.push({
    name: 'chat-approvals',
    stop: async () => {
      for (const pending of open) pending.closeAll();
    },
  });
}
