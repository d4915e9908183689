import { Events, MessageFlags, type Interaction } from 'discord.js';
import type { Context } from 'grammy';
import type { ButtonHandler } from '../delivery/types.js';
import type { Logger } from '../log.js';
import { fitText } from './approval-pending.js';
import { DISCORD_LIMIT, type DiscordChannel } from './discord.js';
import { TELEGRAM_LIMIT, type TelegramChannel } from './telegram.js';

export interface ReplyButtonsDeps {
  channels: { telegram?: TelegramChannel | undefined; discord?: DiscordChannel | undefined };
  /** The part that made the buttons answers their presses (who may press, what a press does). */
  press: ButtonHandler;
  /** The router's access check (allowlist or pairing): a press counts only from someone who may talk to the bot. */
  isAllowed: (channel: string, userId: string) => boolean;
  log: Logger;
}

/**
 * Presses of the buttons a delivered reply carried (a reminder's Snooze and Done), handed to `press` outside any
 * chat's turn queue, with the chat and the person that pressed. The press counted: the message ends with the outcome
 * and loses its buttons; refused or stale: only the presser is told. Approval buttons are approvals.ts's (their data
 * is not `press`'s, so it answers undefined and nothing is done here).
 */
export function listenForReplyButtons(deps: ReplyButtonsDeps): void {
  const { telegram, discord } = deps.channels;
  telegram?.onCallbackQuery((ctx) => onTelegramPress(ctx, telegram, deps));
  discord?.client.on(Events.InteractionCreate, (interaction) => {
    onDiscordPress(interaction, deps).catch((error: unknown) => deps.log.error({ err: error }, 'discord: reply button handling failed'));
  });
}

async function onTelegramPress(ctx: Context, telegram: TelegramChannel, deps: ReplyButtonsDeps): Promise<void> {
  const query = ctx.callbackQuery;
  const message = query?.message;
  if (!query?.data || !message) return;
  const userId = String(query.from.id);
  const answer = await deps.press({ channel: 'telegram', chatId: String(message.chat.id), userId, data: query.data, allowed: deps.isAllowed('telegram', userId) });
  if (!answer) return; // another part's button
  await ctx.answerCallbackQuery({ text: answer.notice });
  if (answer.outcome === undefined) return;
  // Without reply_markup the inline keyboard is removed; the text is kept as it was shown, with the outcome below.
  const shown = 'text' in message && typeof message.text === 'string' ? message.text : '';
  await telegram.bot.api.editMessageText(message.chat.id, message.message_id, fitText(`${shown}\n\n${answer.outcome}`, TELEGRAM_LIMIT), {
    link_preview_options: { is_disabled: true },
  });
}

async function onDiscordPress(interaction: Interaction, deps: ReplyButtonsDeps): Promise<void> {
  if (!interaction.isButton()) return;
  const userId = interaction.user.id;
  const answer = await deps.press({ channel: 'discord', chatId: interaction.channelId, userId, data: interaction.customId, allowed: deps.isAllowed('discord', userId) });
  if (!answer) return; // another part's button
  if (answer.outcome === undefined) {
    await interaction.reply({ content: answer.notice, flags: MessageFlags.Ephemeral });
    return;
  }
  await interaction.update({ content: fitText(`${interaction.message.content}\n\n${answer.outcome}`, DISCORD_LIMIT), components: [] });
}
