// First: the SDK's logger is pointed at ours before any SDK module loads and binds it (matrix-log.ts).
import './matrix-log.js';
import { fitText } from '../approval-pending.js';
import { platformOf, type ButtonPressDeps, type ChatPlatform, type PlatformContext } from '../platform.js';
import { createMatrixPrompter } from './matrix-approvals.js';
import { MatrixChannel, type MatrixConfig, type MatrixReaction } from './matrix-channel.js';
import { MATRIX_LIMIT } from './matrix-content.js';
import { BUTTON_KEYS, bareKey } from './matrix-sender.js';

/** Matrix as a platform of the table: the channel, approvals by reaction, and reply buttons as numbered reactions. */
export function createMatrixPlatform(context: PlatformContext): ChatPlatform {
  const { log } = context;
  const channel = new MatrixChannel({ router: context.router, config: context.config.channels.matrix as MatrixConfig, log });
  return platformOf(channel, {
    prompter: (pending) => createMatrixPrompter({ channel, pending, log }),
    listenForButtons: (deps) => channel.onReaction((reaction) => onPress(reaction, channel, deps)),
  });
}

/**
 * A reaction with a button's key (1️⃣, 2️⃣…) on a delivered message with buttons (a reminder's Snooze and Done). Counted:
 * the message is edited to end with the outcome and loses the bot's reactions. Refused or stale: an allowed presser
 * is told in a short notice (Matrix has no message only one person sees); anyone else, nothing.
 */
async function onPress(reaction: MatrixReaction, channel: MatrixChannel, deps: ButtonPressDeps): Promise<void> {
  const out = channel.out;
  const message = out.buttonMessages.get(reaction.target);
  if (!message || message.roomId !== reaction.roomId) return;
  const index = BUTTON_KEYS.findIndex((key) => bareKey(key) === bareKey(reaction.key));
  const button = index >= 0 ? message.buttons[index] : undefined;
  if (!button) return;
  const allowed = deps.isAllowed('matrix', reaction.sender);
  const answer = await deps.press({ channel: 'matrix', chatId: reaction.roomId, userId: reaction.sender, data: button.data, allowed });
  if (!answer) return; // another part's button
  if (answer.outcome === undefined) {
    if (allowed) await out.text(reaction.roomId, answer.notice, { notice: true, plain: true, replyTo: reaction.target });
    return;
  }
  out.buttonMessages.delete(reaction.target);
  await out.edit(reaction.roomId, reaction.target, fitText(`${message.text}\n\n${answer.outcome}`, MATRIX_LIMIT));
  for (const reactionId of message.reactions) await out.redact(reaction.roomId, reactionId);
}
