import type { Context } from 'grammy';
import { fitText } from './approval-pending.js';
import { platformOf, type ButtonPressDeps, type ChatPlatform, type PlatformContext } from './platform.js';
import { createTelegramPrompter } from './telegram-approvals.js';
import { TELEGRAM_LIMIT, TelegramChannel, type TelegramConfig } from './telegram.js';

/** Telegram as a platform of the table: the channel, its approval buttons and its reply buttons. */
export function createTelegramPlatform(context: PlatformContext): ChatPlatform {
  const { log } = context;
  const channel = new TelegramChannel({ commands: context.commands, router: context.router, config: context.config.channels.telegram as TelegramConfig, log });
  return platformOf(channel, {
    prompter: (pending) => createTelegramPrompter({ channel, pending, log }),
    listenForButtons: (deps) => channel.onCallbackQuery((ctx) => onPress(ctx, channel, deps)),
    // A private chat's id is the user's id.
    directChat: (userId) => Promise.resolve(userId),
  });
}

/**
 * A press of a delivered reply's button. Counted: the message ends with the outcome and loses its buttons; refused
 * or stale: only the presser is told. Approval buttons are telegram-approvals.ts's (`press` answers undefined).
 */
async function onPress(ctx: Context, telegram: TelegramChannel, deps: ButtonPressDeps): Promise<void> {
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
