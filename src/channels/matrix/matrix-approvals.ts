import type { ApprovalPrompter } from '../../approval/prompter.js';
import type { Logger } from '../../log.js';
import { OUTCOME, wholeQuestion, mayAnswer, withOutcome, type PendingApprovals } from '../approval-pending.js';
import type { MatrixChannel, MatrixReaction } from './matrix-channel.js';
import { MATRIX_LIMIT } from './matrix-content.js';
import { bareKey } from './matrix-sender.js';

export interface MatrixPrompterOptions {
  channel: MatrixChannel;
  pending: PendingApprovals;
  log: Logger;
}

const APPROVE = '✅';
const DENY = '❌';
const HOW = `\n\nReact ${APPROVE} to approve or ${DENY} to deny.`;

/**
 * Approval questions as a Matrix message the person reacts to: ✅ approves, ❌ denies (the bot adds both first, so
 * each is one tap). Matrix has no buttons that carry data; a reaction names the message it is on, which maps to the
 * open request. Only the person whose turn asked, in the room it was asked in, is heard; other reactions are logged
 * and ignored (Matrix has no reply only one person sees). The decided question is edited to show the outcome and
 * loses the bot's reactions.
 */
export function createMatrixPrompter(options: MatrixPrompterOptions): ApprovalPrompter {
  const { channel, pending, log } = options;
  /** The open question of each sent message. */
  const byMessage = new Map<string, string>();
  channel.onReaction((reaction) => onReaction(reaction, byMessage, options));
  return {
    maxChars: MATRIX_LIMIT - HOW.length,
    ask(prompt) {
      return pending.ask(prompt, async (id) => {
        const out = channel.out;
        // Plain text, no HTML: the arguments are the model's and must not be read as markup.
        const messageId = await out.text(prompt.chatId, `${wholeQuestion(prompt.text, MATRIX_LIMIT - HOW.length)}${HOW}`, { plain: true });
        byMessage.set(messageId, id);
        log.info({ chatId: prompt.chatId, tool: prompt.tool, callId: prompt.callId, messageId }, 'matrix: approval asked');
        const own: string[] = [];
        for (const key of [APPROVE, DENY]) {
          // Best effort: the question says which reaction is which, so the person can add it themselves.
          await out.react(prompt.chatId, messageId, key).then((reactionId) => own.push(reactionId), (error: unknown) => log.debug({ err: error }, 'matrix: approval reaction not added'));
        }
        return {
          messageId,
          rewrite: async (outcome) => {
            byMessage.delete(messageId);
            await out.edit(prompt.chatId, messageId, withOutcome(prompt.text, outcome, MATRIX_LIMIT));
            for (const reactionId of own) await out.redact(prompt.chatId, reactionId);
          },
        };
      });
    },
  };
}

function onReaction(reaction: MatrixReaction, byMessage: ReadonlyMap<string, string>, options: MatrixPrompterOptions): void {
  const id = byMessage.get(reaction.target);
  if (id === undefined) return; // not an approval question
  const key = bareKey(reaction.key);
  const choice = key === bareKey(APPROVE) ? 'approve' : key === bareKey(DENY) ? 'deny' : undefined;
  if (!choice) return;
  const { pending, log } = options;
  const open = pending.peek(id);
  if (!open) return;
  if (!mayAnswer(open.prompt, reaction.sender, reaction.roomId)) {
    log.warn({ userId: reaction.sender, chatId: open.prompt.chatId, tool: open.prompt.tool }, 'matrix: approval reaction by someone else ignored');
    return;
  }
  const outcome = choice === 'approve' ? OUTCOME.approved(reaction.senderName) : OUTCOME.denied(reaction.senderName);
  if (!pending.decide(id, choice, outcome, reaction.senderName)) log.info({ tool: open.prompt.tool }, 'matrix: approval reaction came after the question closed');
}
