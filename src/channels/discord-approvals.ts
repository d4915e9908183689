import {
  ActionRowBuilder, ButtonBuilder, ButtonStyle, Events, MessageFlags, type ButtonInteraction, type Interaction,
} from 'discord.js';
import type { ApprovalPrompter } from '../approval/prompter.js';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import { OUTCOME, buttonData, fitText, parseButtonData, withOutcome, type PendingApprovals } from './approval-pending.js';
import { DISCORD_LIMIT, type DiscordChannel } from './discord.js';

export interface DiscordPrompterOptions {
  channel: DiscordChannel;
  pending: PendingApprovals;
  /** Who may answer a question that names no user (the channel's allowlist and paired users). */
  isAllowed(userId: string): boolean;
  log: Logger;
}

/**
 * Approval questions as a Discord message with an Approve (green) and a Deny (red) button. Presses arrive as
 * `interactionCreate` events, apart from the chat's turn queue. Only the person whose turn asked may answer
 * (others get a reply only they can see); the decision replaces the buttons with the outcome.
 */
export function createDiscordPrompter(options: DiscordPrompterOptions): ApprovalPrompter {
  const { channel, pending, log } = options;
  channel.client.on(Events.InteractionCreate, (interaction) => {
    onInteraction(interaction, options).catch((error: unknown) => log.error({ err: error }, 'discord: approval button handling failed'));
  });
  return {
    ask(prompt) {
      return pending.ask(prompt, async (id) => {
        if (!channel.client.isReady()) throw new AppError('CHANNEL_UNAVAILABLE', 'discord is not running (it failed to start or was closed)');
        const target = await channel.client.channels.fetch(prompt.chatId);
        if (!target?.isSendable()) throw new AppError('CHANNEL_UNAVAILABLE', `discord: cannot send to channel ${prompt.chatId}`);
        const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
          new ButtonBuilder().setCustomId(buttonData(id, 'approve')).setLabel('Approve').setStyle(ButtonStyle.Success),
          new ButtonBuilder().setCustomId(buttonData(id, 'deny')).setLabel('Deny').setStyle(ButtonStyle.Danger),
        );
        const message = await target.send({ content: fitText(prompt.text, DISCORD_LIMIT), components: [row] });
        log.info({ chatId: prompt.chatId, tool: prompt.tool, callId: prompt.callId, messageId: message.id }, 'discord: approval asked');
        return {
          messageId: message.id,
          rewrite: async (outcome) => {
            await message.edit({ content: withOutcome(prompt.text, outcome, DISCORD_LIMIT), components: [] });
          },
        };
      });
    },
  };
}

async function onInteraction(interaction: Interaction, options: DiscordPrompterOptions): Promise<void> {
  if (!interaction.isButton()) return;
  const button = parseButtonData(interaction.customId);
  if (!button) return; // another part's button
  const { pending, log } = options;
  const open = pending.peek(button.id);
  if (!open) {
    await replyPrivately(interaction, OUTCOME.closed);
    return;
  }
  const presser = interaction.user.id;
  const sameMessage = interaction.channelId === open.prompt.chatId && (open.messageId === undefined || interaction.message.id === open.messageId);
  const mayAnswer = open.prompt.userId !== undefined ? presser === open.prompt.userId : options.isAllowed(presser);
  if (!sameMessage || !mayAnswer) {
    log.warn({ userId: presser, chatId: open.prompt.chatId, tool: open.prompt.tool }, 'discord: approval press by someone else ignored');
    await replyPrivately(interaction, OUTCOME.notYours);
    return;
  }
  const outcome = button.choice === 'approve' ? OUTCOME.approved(interaction.user.username) : OUTCOME.denied(interaction.user.username);
  // Decided first (the turn goes on), then the press is acknowledged by rewriting the message without buttons.
  if (!pending.decide(button.id, button.choice)) {
    await replyPrivately(interaction, OUTCOME.closed);
    return;
  }
  await interaction.update({ content: withOutcome(open.prompt.text, outcome, DISCORD_LIMIT), components: [] });
}

async function replyPrivately(interaction: ButtonInteraction, content: string): Promise<void> {
  await interaction.reply({ content, flags: MessageFlags.Ephemeral });
}
