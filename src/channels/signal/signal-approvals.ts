import type { ApprovalPrompter } from '../../approval/prompter.js';
import type { Logger } from '../../log.js';
import { OUTCOME, wholeQuestion, mayAnswer, withOutcome, type PendingApprovals } from '../approval-pending.js';
import { bareEmoji } from './signal-buttons.js';
import type { SignalChannel } from './signal-channel.js';
import { targetOf, type SignalReaction } from './signal-inbound.js';

/** The question and its hint fit one message (2000 bytes; the hint's emoji take 4 bytes each). */
export const SIGNAL_QUESTION_CHARS = 1900;
const HINT = 'React 👍 to approve or 👎 to deny.';
const APPROVE = new Set(['👍', '✅'].map(bareEmoji));
const DENY = new Set(['👎', '❌'].map(bareEmoji));

export interface SignalPrompterOptions {
  channel: SignalChannel;
  pending: PendingApprovals;
  log: Logger;
}

/**
 * Approval questions as a plain Signal message answered with a reaction: 👍 (or ✅) approves, 👎 (or ❌) denies.
 * Reactions arrive apart from the chat's turn queue. Only the person whose turn asked, in the chat it was asked in,
 * may answer; anyone else's reaction is logged and ignored (Signal has no private answer to tell them). The
 * decision is shown by editing the question (the hint goes, the outcome comes).
 */
export function createSignalPrompter(options: SignalPrompterOptions): ApprovalPrompter {
  const { channel, pending, log } = options;
  /** Open questions by chat and sent timestamp. */
  const asked = new Map<string, string>();
  channel.onReaction((reaction) => onReaction(reaction, asked, options));
  return {
    maxChars: SIGNAL_QUESTION_CHARS,
    ask(prompt) {
      return pending.ask(prompt, async (id) => {
        const target = targetOf(prompt.chatId);
        // Plain text: the arguments are the model's and must not be read as Markdown.
        const message = await channel.sendPlain(target, `${wholeQuestion(prompt.text, SIGNAL_QUESTION_CHARS)}\n\n${HINT}`);
        const key = `${prompt.chatId}/${message.timestamp}`;
        asked.set(key, id);
        log.info({ chatId: prompt.chatId, tool: prompt.tool, callId: prompt.callId, timestamp: message.timestamp }, 'signal: approval asked');
        return {
          messageId: String(message.timestamp),
          rewrite: async (outcome) => {
            asked.delete(key);
            await channel.edit(target, message.timestamp, withOutcome(prompt.text, outcome, SIGNAL_QUESTION_CHARS));
          },
        };
      });
    },
  };
}

function onReaction(reaction: SignalReaction, asked: Map<string, string>, options: SignalPrompterOptions): void {
  if (reaction.isRemove || !reaction.targetIsSelf) return;
  const id = asked.get(`${reaction.chatId}/${reaction.targetTimestamp}`);
  if (id === undefined) return; // not a question (or no longer open)
  const emoji = bareEmoji(reaction.emoji);
  const choice = APPROVE.has(emoji) ? 'approve' : DENY.has(emoji) ? 'deny' : undefined;
  if (choice === undefined) return;
  const { pending, log } = options;
  const open = pending.peek(id);
  if (!open) return;
  if (!mayAnswer(open.prompt, reaction.userId, reaction.chatId)) {
    log.warn({ userId: reaction.userId, chatId: open.prompt.chatId, tool: open.prompt.tool }, 'signal: approval reaction by someone else ignored');
    return;
  }
  const name = reaction.userName || `user ${reaction.userId}`;
  pending.decide(id, choice, choice === 'approve' ? OUTCOME.approved(name) : OUTCOME.denied(name), name);
}
