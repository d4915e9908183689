import {
  ActionRowBuilder, ButtonBuilder, ButtonStyle, MessageFlags, type ButtonInteraction, type Interaction,
} from 'discord.js';
import type { ApprovalPrompter } from '../approval/prompter.js';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import { OUTCOME, buttonData, parseButtonData, wholeQuestion, mayAnswer, withOutcome, type PendingApprovals } from './approval-pending.js';
import { cleanName } from './display-name.js';
import { DISCORD_LIMIT, type DiscordChannel } from './discord.js';

export interface DiscordPrompterOptions {
  channel: DiscordChannel;
  pending: PendingApprovals;
  log: Logger;
}

/**
 * Approval questions as a Discord message with an Approve (green) and a Deny (red) button. Presses arrive as
 * `interactionCreate` events, apart from the chat's turn queue. Only the person whose turn asked may answer
 * (others get a reply only they can see); the decision replaces the buttons with the outcome.
 */
export function createDiscordPrompter(options: DiscordPrompterOptions): ApprovalPrompter {
  const { channel, pending, log } = options;
  channel.onInteraction((interaction) => {
    onInteraction(interaction, options).catch((error: unknown) => log.error({ err: error }, 'discord: approval button handling failed'));
  });
  return {
    maxChars: DISCORD_LIMIT,
    ask(prompt) {
      return pending.ask(prompt, async (id) => {
        if (!channel.client.isReady()) throw new AppError('CHANNEL_UNAVAILABLE', 'discord is not running (it failed to start or was closed)');
        const target = await channel.client.channels.fetch(prompt.chatId);
        if (!target?.isSendable()) throw new AppError('CHANNEL_UNAVAILABLE', `discord: cannot send to channel ${prompt.chatId}`);
        const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
          new ButtonBuilder().setCustomId(buttonData(id, 'approve')).setLabel('Approve').setStyle(ButtonStyle.Success),
          new ButtonBuilder().setCustomId(buttonData(id, 'deny')).setLabel('Deny').setStyle(ButtonStyle.Danger),
        );
        const message = await target.send({ content: wholeQuestion(prompt.text, DISCORD_LIMIT), components: [row] });
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
  // Only the person the question is for, on the question's own message (in the chat it was asked in).
  if (!sameMessage || !mayAnswer(open.prompt, presser)) {
    log.warn({ userId: presser, chatId: open.prompt.chatId, tool: open.prompt.tool }, 'discord: approval press by someone else ignored');
    await replyPrivately(interaction, OUTCOME.notYours);
    return;
  }
  // The presser's name is theirs to choose: shown without control or reordering characters.
  const name = cleanName(interaction.user.username) || `user ${presser}`;
  const outcome = button.choice === 'approve' ? OUTCOME.approved(name) : OUTCOME.denied(name);
  // Decided first (the turn goes on), then the press is acknowledged by rewriting the message without buttons.
  if (!pending.decide(button.id, button.choice, undefined, name)) {
    await replyPrivately(interaction, OUTCOME.closed);
    return;
  }
  await interaction.update({ content: withOutcome(open.prompt.text, outcome, DISCORD_LIMIT), components: [] });
}

async function replyPrivately(interaction: ButtonInteraction, content: string): Promise<void> {
  await interaction.reply({ content, flags: MessageFlags.Ephemeral });
}
