import type { Context } from 'grammy';
import type { InlineKeyboardMarkup } from 'grammy/types';
import type { ApprovalPrompter } from '../approval/prompter.js';
import type { Logger } from '../log.js';
import { OUTCOME, buttonData, parseButtonData, wholeQuestion, mayAnswer, withOutcome, type PendingApprovals } from './approval-pending.js';
import { cleanName } from './display-name.js';
import { TELEGRAM_LIMIT, type TelegramChannel } from './telegram.js';

export interface TelegramPrompterOptions {
  channel: TelegramChannel;
  pending: PendingApprovals;
  log: Logger;
}

/**
 * Approval questions as a Telegram message with inline Approve / Deny buttons. Presses arrive as callback
 * queries, which the channel hands over outside any chat's turn queue (the turn that asked is waiting in it).
 * Only the person whose turn asked may answer; the message is rewritten with the outcome and loses its buttons.
 */
export function createTelegramPrompter(options: TelegramPrompterOptions): ApprovalPrompter {
  const { channel, pending, log } = options;
  channel.onCallbackQuery((ctx) => onPress(ctx, options));
  return {
    maxChars: TELEGRAM_LIMIT,
    ask(prompt) {
      return pending.ask(prompt, async (id) => {
        const keyboard: InlineKeyboardMarkup = {
          inline_keyboard: [[
            { text: '✅ Approve', callback_data: buttonData(id, 'approve') },
            { text: '❌ Deny', callback_data: buttonData(id, 'deny') },
          ]],
        };
        // Plain text, no parse mode: the arguments are the model's and must not be read as markup.
        const sent = await channel.bot.api.sendMessage(prompt.chatId, wholeQuestion(prompt.text, TELEGRAM_LIMIT), {
          reply_markup: keyboard, link_preview_options: { is_disabled: true },
        });
        log.info({ chatId: prompt.chatId, tool: prompt.tool, callId: prompt.callId, messageId: sent.message_id }, 'telegram: approval asked');
        return {
          messageId: String(sent.message_id),
          rewrite: async (outcome) => {
            // Without reply_markup the inline keyboard is removed.
            await channel.bot.api.editMessageText(prompt.chatId, sent.message_id, withOutcome(prompt.text, outcome, TELEGRAM_LIMIT), {
              link_preview_options: { is_disabled: true },
            });
          },
        };
      });
    },
  };
}

async function onPress(ctx: Context, options: TelegramPrompterOptions): Promise<void> {
  const query = ctx.callbackQuery;
  const button = parseButtonData(query?.data);
  if (!query || !button) return; // another part's button
  const { pending, log } = options;
  const open = pending.peek(button.id);
  if (!open) {
    await ctx.answerCallbackQuery({ text: OUTCOME.closed });
    return;
  }
  const presser = String(query.from.id);
  const sameMessage = query.message !== undefined
    && String(query.message.chat.id) === open.prompt.chatId
    && (open.messageId === undefined || String(query.message.message_id) === open.messageId);
  // Only the person the question is for, on the question's own message (in the chat it was asked in).
  if (!sameMessage || !mayAnswer(open.prompt, presser)) {
    log.warn({ userId: presser, chatId: open.prompt.chatId, tool: open.prompt.tool }, 'telegram: approval press by someone else ignored');
    await ctx.answerCallbackQuery({ text: OUTCOME.notYours });
    return;
  }
  // The presser's name is theirs to choose: shown without control or reordering characters.
  const name = cleanName(query.from.username ? `@${query.from.username}` : query.from.first_name) || `user ${presser}`;
  const outcome = button.choice === 'approve' ? OUTCOME.approved(name) : OUTCOME.denied(name);
  if (!pending.decide(button.id, button.choice, outcome, name)) {
    await ctx.answerCallbackQuery({ text: OUTCOME.closed });
    return;
  }
  await ctx.answerCallbackQuery({ text: button.choice === 'approve' ? 'Approved' : 'Denied' });
}
