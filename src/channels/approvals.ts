import type { ApprovalPrompter } from '../approval/prompter.js';
import type { Logger } from '../log.js';
import type { Part } from '../part.js';
import { PendingApprovals } from './approval-pending.js';
import { createDiscordPrompter } from './discord-approvals.js';
import type { DiscordChannel } from './discord.js';
import { createTelegramPrompter } from './telegram-approvals.js';
import type { TelegramChannel } from './telegram.js';

/**
 * The Telegram and Discord approval prompters (buttons) for the channels that are configured, registered with the
 * approval gate, and a part that ends open questions at shutdown.
 */
export function createChatApprovals(deps: {
  approvals: { registerPrompter(channel: string, prompter: ApprovalPrompter): void };
  channels: { telegram?: TelegramChannel; discord?: DiscordChannel };
  log: Logger;
}): Part | undefined {
  // A press counts only from the person the question is for, in that chat: no allowlist is consulted here.
  const { approvals, channels } = deps;
  const open: PendingApprovals[] = [];
  if (channels.telegram) {
    const log = deps.log.child({ component: 'telegram' });
    const pending = new PendingApprovals(log);
    approvals.registerPrompter('telegram', createTelegramPrompter({ channel: channels.telegram, pending, log }));
    open.push(pending);
  }
  if (channels.discord) {
    const log = deps.log.child({ component: 'discord' });
    const pending = new PendingApprovals(log);
    approvals.registerPrompter('discord', createDiscordPrompter({ channel: channels.discord, pending, log }));
    open.push(pending);
  }
  if (open.length === 0) return undefined;
  // Listed after the channel parts, so it stops first: the questions are edited while the bots can still send.
  return {
    name: 'chat-approvals',
    stop: async () => {
      for (const pending of open) pending.closeAll();
    },
  };
}
