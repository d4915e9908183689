import type { ApprovalPrompter } from '../../approval/prompter.js';
import type { Logger } from '../../log.js';
import { OUTCOME, buttonData, parseButtonData, wholeQuestion, mayAnswer, withOutcome, type PendingApprovals } from '../approval-pending.js';
import { cleanName } from '../display-name.js';
import { chatIdOfPress, parseChatId, type BlockActions } from './slack-events.js';
import { SLACK_SECTION_LIMIT, escapeText } from './slack-format.js';
import type { SlackChannel } from './slack.js';

export interface SlackPrompterOptions {
  channel: SlackChannel;
  pending: PendingApprovals;
  log: Logger;
}

/**
 * Approval questions as a Slack message with Block Kit buttons, Approve (green) and Deny (red). Presses arrive as
 * `block_actions` over Socket Mode, apart from the chat's turn queue. Only the person whose turn asked may answer
 * (anyone else is told so in a message only they see); the decision replaces the buttons with the outcome.
 */
export function createSlackPrompter(options: SlackPrompterOptions): ApprovalPrompter {
  const { channel, pending, log } = options;
  channel.onPress((press) => onPress(press, options));
  return {
    maxChars: SLACK_SECTION_LIMIT,
    ask(prompt) {
      return pending.ask(prompt, async (id) => {
        const { channel: channelId, threadTs } = parseChatId(prompt.chatId);
        const question = wholeQuestion(prompt.text, SLACK_SECTION_LIMIT);
        // Plain text: the arguments are the model's and must not be read as markup or mentions.
        const ts = await channel.post({
          channel: channelId, ...(threadTs !== undefined ? { thread_ts: threadTs } : {}), text: escapeText(question),
          blocks: [
            { type: 'section', text: { type: 'plain_text', text: question, emoji: false } },
            {
              type: 'actions',
              elements: [
                { type: 'button', style: 'primary', text: { type: 'plain_text', text: 'Approve' }, action_id: buttonData(id, 'approve'), value: 'approve' },
                { type: 'button', style: 'danger', text: { type: 'plain_text', text: 'Deny' }, action_id: buttonData(id, 'deny'), value: 'deny' },
              ],
            },
          ],
        });
        log.info({ chatId: prompt.chatId, tool: prompt.tool, callId: prompt.callId, messageTs: ts }, 'slack: approval asked');
        return {
          messageId: ts,
          rewrite: async (outcome) => {
            const text = withOutcome(prompt.text, outcome, SLACK_SECTION_LIMIT);
            // The blocks replaced by one plain section: the buttons go.
            await channel.web.chat.update({ channel: channelId, ts, text: escapeText(text), blocks: [{ type: 'section', text: { type: 'plain_text', text, emoji: false } }] });
          },
        };
      });
    },
  };
}

async function onPress(press: BlockActions, options: SlackPrompterOptions): Promise<boolean> {
  const button = parseButtonData(press.actions[0]?.action_id);
  if (!button) return false; // another part's button
  const { pending, log, channel } = options;
  const chatId = chatIdOfPress(press);
  const presser = press.user.id;
  const open = pending.peek(button.id);
  if (!open) {
    await tellPresser(channel, press, OUTCOME.closed);
    return true;
  }
  const sameMessage = chatId === open.prompt.chatId && (open.messageId === undefined || press.message?.ts === open.messageId || press.container?.message_ts === open.messageId);
  // Only the person the question is for, on the question's own message (in the chat it was asked in).
  if (!sameMessage || !mayAnswer(open.prompt, presser)) {
    log.warn({ userId: presser, chatId: open.prompt.chatId, tool: open.prompt.tool }, 'slack: approval press by someone else ignored');
    await tellPresser(channel, press, OUTCOME.notYours);
    return true;
  }
  // The presser's name is theirs to choose: shown without control or reordering characters.
  const name = cleanName(press.user.username ?? press.user.name) || `user ${presser}`;
  const outcome = button.choice === 'approve' ? OUTCOME.approved(name) : OUTCOME.denied(name);
  if (!pending.decide(button.id, button.choice, outcome, name)) await tellPresser(channel, press, OUTCOME.closed);
  return true;
}

/** A line only the presser sees (`chat.postEphemeral`), in the chat of the pressed message. */
export async function tellPresser(channel: SlackChannel, press: BlockActions, text: string): Promise<void> {
  const chatId = chatIdOfPress(press);
  if (chatId === undefined) return;
  const { channel: channelId, threadTs } = parseChatId(chatId);
  await channel.web.chat.postEphemeral({ channel: channelId, user: press.user.id, text: escapeText(text), ...(threadTs !== undefined ? { thread_ts: threadTs } : {}) });
}
