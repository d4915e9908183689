import { fitText, parseButtonData } from '../approval-pending.js';
import { platformOf, type ButtonPressDeps, type ChatPlatform, type PlatformContext } from '../platform.js';
import { createSlackPrompter, tellPresser } from './slack-approvals.js';
import { chatIdOfPress, type BlockActions } from './slack-events.js';
import { SLACK_SECTION_LIMIT } from './slack-format.js';
import { SlackChannel, type SlackConfig } from './slack.js';

/** Slack as a platform of the table: the channel, its approval buttons and its reply buttons. */
export function createSlackPlatform(context: PlatformContext): ChatPlatform {
  const { log } = context;
  const channel = new SlackChannel({ router: context.router, config: context.config.channels.slack as SlackConfig, log });
  return platformOf(channel, {
    prompter: (pending) => createSlackPrompter({ channel, pending, log }),
    listenForButtons: (deps) => channel.onPress((press) => onPress(press, channel, deps)),
    // An IM's id is not the user's: Slack opens (or returns) it.
    directChat: async (userId) => {
      try {
        return (await channel.web.conversations.open({ users: userId })).channel?.id;
      } catch (error) {
        log.warn({ err: error, userId }, 'slack: could not open a direct chat');
        return undefined;
      }
    },
  });
}

/**
 * A press of a delivered reply's button (a reminder's Snooze or Done). Counted: the message ends with the outcome and
 * loses its buttons; refused or stale: only the presser is told. Approval buttons are slack-approvals.ts's.
 */
async function onPress(press: BlockActions, channel: SlackChannel, deps: ButtonPressDeps): Promise<boolean> {
  const data = press.actions[0]?.action_id ?? '';
  const chatId = chatIdOfPress(press);
  if (parseButtonData(data) || chatId === undefined || !press.message) return false;
  const userId = press.user.id;
  const answer = await deps.press({ channel: 'slack', chatId, userId, data, allowed: deps.isAllowed('slack', userId) });
  if (!answer) return false; // another part's button
  if (answer.outcome === undefined) {
    await tellPresser(channel, press, answer.notice);
    return true;
  }
  const text = fitText(`${press.message.text}\n\n${answer.outcome}`, SLACK_SECTION_LIMIT);
  await channel.web.chat.update({ channel: chatId.split('/')[0] ?? chatId, ts: press.message.ts, text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] });
  return true;
}
