import type { ReplyButton } from '../../delivery/types.js';
import { fitText } from '../approval-pending.js';
import type { ButtonPressDeps } from '../platform.js';
import { targetOf, type SignalReaction, type SignalTarget } from './signal-inbound.js';

/** What the buttons use of the channel (signal-channel.ts), named here so that the two files do not import each other. */
export interface ReactionChannel {
  onReaction(listener: (reaction: SignalReaction) => void): void;
  sendPlain(target: SignalTarget, text: string): Promise<unknown>;
  edit(target: SignalTarget, timestamp: number, text: string): Promise<void>;
}

/** Messages with reaction "buttons" remembered at most; the oldest is forgotten first. */
const REMEMBERED = 500;
const KEYCAPS = ['1️⃣', '2️⃣', '3️⃣', '4️⃣', '5️⃣', '6️⃣', '7️⃣', '8️⃣', '9️⃣'];

interface ShownButtons {
  text: string;
  choices: Array<{ emoji: string; data: string }>;
}

/** Reactions stand for the buttons: ✅ for Done, numbered keycaps for the others, in their order. */
export function reactionChoices(buttons: readonly ReplyButton[]): Array<{ emoji: string; button: ReplyButton }> {
  let next = 0;
  return buttons.map((button) => ({ emoji: /\bdone\b/i.test(button.label) ? '✅' : KEYCAPS[next++] ?? '🔘', button }));
}

/** The line under the text that says which reaction does what. */
export function reactionHint(buttons: readonly ReplyButton[]): string {
  return `React: ${reactionChoices(buttons).map(({ emoji, button }) => (button.label.startsWith(emoji) ? button.label : `${emoji} ${button.label}`)).join(' · ')}`;
}

/** Emoji as the apps send them may carry a skin tone or a variation selector: compared without. */
export function bareEmoji(emoji: string): string {
  return emoji.replace(/[\u{1F3FB}-\u{1F3FF}\uFE0F]/gu, '');
}

/**
 * Signal has no buttons: a delivered reply's buttons (a reminder's Snooze and Done) are offered as reactions, named
 * in a line under the text. The messages are remembered in memory (by chat and sent timestamp), so a reaction to
 * one sent before a restart does nothing; /snooze and /done still work there.
 */
export class SignalReplyButtons {
  private readonly shown = new Map<string, ShownButtons>();

  remember(chatId: string, timestamp: number, text: string, buttons: readonly ReplyButton[]): void {
    this.shown.set(`${chatId}/${timestamp}`, { text, choices: reactionChoices(buttons).map(({ emoji, button }) => ({ emoji: bareEmoji(emoji), data: button.data })) });
    if (this.shown.size > REMEMBERED) this.shown.delete(this.shown.keys().next().value ?? '');
  }

  /** Hands a reaction to a remembered message to the part that made the buttons; shows the outcome by editing it. */
  listen(channel: ReactionChannel, deps: ButtonPressDeps): void {
    channel.onReaction((reaction) => {
      this.press(channel, reaction, deps).catch((error: unknown) => deps.log.error({ err: error }, 'signal: reply reaction handling failed'));
    });
  }

  private async press(channel: ReactionChannel, reaction: SignalReaction, deps: ButtonPressDeps): Promise<void> {
    if (reaction.isRemove || !reaction.targetIsSelf) return;
    const key = `${reaction.chatId}/${reaction.targetTimestamp}`;
    const shown = this.shown.get(key);
    const choice = shown?.choices.find((candidate) => candidate.emoji === bareEmoji(reaction.emoji));
    if (!shown || !choice) return;
    const answer = await deps.press({ channel: 'signal', chatId: reaction.chatId, userId: reaction.userId, data: choice.data, allowed: deps.isAllowed('signal', reaction.userId) });
    if (!answer) return;
    const target = targetOf(reaction.chatId);
    if (answer.outcome === undefined) {
      // No private answers on Signal: a refusal is said in a direct chat only, never to a whole group.
      if ('recipient' in target) await channel.sendPlain(target, answer.notice);
      return;
    }
    this.shown.delete(key);
    await channel.edit(target, reaction.targetTimestamp, fitText(`${shown.text}\n\n${answer.outcome}`, 2000));
  }
}
