import { z } from 'zod/v3';

/**
 * The parts of Slack's payloads the channel reads, checked as they arrive (a payload is outside input): a message
 * or a mention (Events API), a button press (`block_actions`), a slash command. Unknown fields pass through.
 */

const slackFile = z.object({
  id: z.string(),
  name: z.string().nullish(),
  title: z.string().nullish(),
  mimetype: z.string().nullish(),
  /** `slack_audio` for a clip recorded in the app (`slack_video` for a video clip). */
  subtype: z.string().nullish(),
  size: z.number().nullish(),
  url_private_download: z.string().nullish(),
  url_private: z.string().nullish(),
});
export type SlackFile = z.infer<typeof slackFile>;

export const messageEvent = z.object({
  type: z.enum(['message', 'app_mention']),
  subtype: z.string().optional(),
  channel: z.string(),
  /** `im` for a direct message, `channel`/`group`/`mpim` otherwise; absent on app_mention. */
  channel_type: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().default(''),
  ts: z.string(),
  thread_ts: z.string().optional(),
  parent_user_id: z.string().optional(),
  files: z.array(slackFile).default([]),
});
export type MessageEvent = z.infer<typeof messageEvent>;

export const blockActions = z.object({
  type: z.literal('block_actions'),
  user: z.object({ id: z.string(), username: z.string().optional(), name: z.string().optional() }),
  channel: z.object({ id: z.string() }).optional(),
  container: z.object({ channel_id: z.string().optional(), message_ts: z.string().optional(), thread_ts: z.string().optional() }).optional(),
  message: z.object({ ts: z.string(), text: z.string().default(''), thread_ts: z.string().optional() }).optional(),
  actions: z.array(z.object({ action_id: z.string(), value: z.string().optional() })).min(1),
});
export type BlockActions = z.infer<typeof blockActions>;

export const slashCommand = z.object({
  command: z.string(),
  text: z.string().default(''),
  user_id: z.string(),
  user_name: z.string().optional(),
  channel_id: z.string(),
  channel_name: z.string().optional(),
  trigger_id: z.string(),
});
export type SlashCommand = z.infer<typeof slashCommand>;

/**
 * The chat a message belongs to: the channel, or `<channel>/<thread ts>` for a thread — a thread is a chat of its own
 * (its own conversation, queue and /stop), as Slack's people use threads for separate subjects.
 */
export function chatIdOf(channel: string, ts: string, threadTs: string | undefined): string {
  return threadTs !== undefined && threadTs !== ts ? `${channel}/${threadTs}` : channel;
}

/** The channel and thread of a chat id (chatIdOf's inverse). */
export function parseChatId(chatId: string): { channel: string; threadTs?: string } {
  const slash = chatId.indexOf('/');
  return slash < 0 ? { channel: chatId } : { channel: chatId.slice(0, slash), threadTs: chatId.slice(slash + 1) };
}

/** The chat id of a pressed button's message (a message in a thread belongs to the thread's chat). */
export function chatIdOfPress(payload: BlockActions): string | undefined {
  const channel = payload.channel?.id ?? payload.container?.channel_id;
  const ts = payload.message?.ts ?? payload.container?.message_ts;
  if (channel === undefined || ts === undefined) return undefined;
  return chatIdOf(channel, ts, payload.message?.thread_ts ?? payload.container?.thread_ts);
}
