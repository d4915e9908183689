import { startSlackServer, type FakeSlack, type PostedMessage } from '../fakes/slack-server.js';
import { startOpenAiServer, startPlatformRig, type PlatformRig } from './platform-rig.js';

export const OWNER_SL = 'U0OWNER01';
export const FRIEND_SL = 'U0FRIEND1';
export const STRANGER_SL = 'U0STRANGE';
export const OWNER_DM = 'D0OWNER01';
export const CHANNEL_SL = 'C0GENERAL';

export interface SlackRig extends PlatformRig {
  slack: FakeSlack;
}

/** The daemon with only Slack configured, pointed at a fake Slack (Web API + Socket Mode), started. */
export async function startSlackRig(overrides: Record<string, unknown> = {}): Promise<SlackRig> {
  const [llm, slack] = await Promise.all([startOpenAiServer(), startSlackServer()]);
  const channels = { slack: { app_token: slack.appToken, bot_token: slack.botToken, api_url: slack.apiUrl, allowed_users: [OWNER_SL, FRIEND_SL] } };
  return Object.assign(await startPlatformRig(slack, llm, channels, overrides), { slack });
}

/** The Block Kit buttons of a posted message: `[label, action_id, style]`. */
export function slackButtons(message: PostedMessage): Array<{ label: string; actionId: string; style?: string }> {
  const blocks = (message.blocks ?? []) as Array<{ type: string; elements?: Array<{ text?: { text?: string }; action_id?: string; style?: string }> }>;
  return blocks.filter((block) => block.type === 'actions').flatMap((block) => block.elements ?? []).map((element) => ({
    label: element.text?.text ?? '', actionId: element.action_id ?? '', ...(element.style ? { style: element.style } : {}),
  }));
}

/** Presses the button of `message` whose label contains `label`. */
export function pressSlack(slack: FakeSlack, message: PostedMessage, label: string, user: string, buttons = slackButtons(message)): void {
  const button = buttons.find((candidate) => candidate.label.includes(label));
  if (!button) throw new Error(`no ${label} button on the message`);
  slack.pressButton({ user, message, actionId: button.actionId });
}
