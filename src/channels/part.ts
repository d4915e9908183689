import type { ApprovalPrompter } from '../approval/prompter.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/database.js';
import type { Logger } from '../log.js';
import { layeredMap } from '../lib/layered-map.js';
import type { ChatCommand, ChatCommands, Part } from '../part.js';
import type { Workspaces } from '../workspace/workspace.js';
import type { Turns } from '../turns/turns.js';
import type { StartTurn } from '../turns/types.js';
import { createBuiltinCommands, type TokensToday } from './commands.js';
import type { DiscordChannel } from './discord.js';
import type { ChannelHub } from './hub.js';
import { ChannelRouter } from './router.js';
import type { TelegramChannel } from './telegram.js';
import type { ChannelVoice } from './types.js';

const SETTLE_MS = 5000;

/** The user id of the console's messages: the owner, who logged in with a link only the terminal can print. */
export const CONSOLE_USER = 'owner';

export interface ChannelsPartDeps {
  config: Config;
  db: Database;
  log: Logger;
  /** Running adapters are registered here, for delivery of job and skill results. */
  hub: ChannelHub;
  startTurn: StartTurn;
  conversations: { resolve(channel: string, chatId: string): string; reset(channel: string, chatId: string): string };
  /** The parts' chat commands; the built-in ones (`/help`, `/reset`, `/status`, `/stop`) are added where free. */
  commands: ChatCommands;
  approvals: { registerPrompter(channel: string, prompter: ApprovalPrompter): void };
  /** The turns: each message's place in its chat's line, `/stop`, and what `/status` counts. */
  turns: Pick<Turns, 'enter' | 'stop' | 'waiting' | 'active'>;
  /** For `/status`: today's tokens. */
  usageToday: (at: Date) => TokensToday;
  startedAt: number;
  /** The sandbox's workspaces, when it is on: uploads go in through them (pinned folders, the size limit). */
  workspaces: Workspaces | undefined;
  /** The voice part's service, when voice.stt or voice.tts is set: voice notes transcribed, answers spoken. */
  voice?: ChannelVoice | undefined;
}

/**
 * The chat channels: the router (access, dedupe, queue), the built-in chat commands, one part per configured
 * platform, and their approval buttons. A platform without a token logs one line and stays off; one that fails to
 * start is logged by the root and the others run. Adapters are in the hub from the start; sending through one
 * that is not running throws CHANNEL_UNAVAILABLE.
 */
export async function createChannelsPart(deps: ChannelsPartDeps): Promise<{ router: ChannelRouter; parts: Part[]; refreshAccess: () => void }> {
  const { config, hub } = deps;
  const log = deps.log.child({ component: 'channels' });
  const { telegram, discord } = config.channels;
  const allowedUsers = new Map<string, Set<string>>([
    ['telegram', new Set(telegram?.allowed_users ?? [])],
    ['discord', new Set(discord?.allowed_users ?? [])],
    // The console's one person is the owner behind its login (nothing but the console sends on this channel).
    ['console', new Set([CONSOLE_USER])],
  ]);
  // A config reload changes allowed_users in place; the router's sets (read per message) follow.
  const refreshAccess = (): void => {
    for (const [name, users] of allowedUsers) {
      users.clear();
      for (const user of config.channels[name as 'telegram' | 'discord']?.allowed_users ?? []) users.add(user);
    }
  };
  // A view, not a copy: the parts' commands include MCP prompts, which come and go while the daemon runs.
  const builtinCommands = new Map<string, ChatCommand>();
  const commands = layeredMap([deps.commands, builtinCommands]);
  const router = new ChannelRouter({
    db: deps.db, log: deps.log, dataDir: config.data_dir, vision: config.llm.vision, commands,
    conversations: deps.conversations, startTurn: deps.startTurn, turns: deps.turns, allowedUsers, workspaces: deps.workspaces, voice: deps.voice,
  });
  const builtins = createBuiltinCommands({
    config, usageToday: deps.usageToday, startedAt: deps.startedAt, conversations: deps.conversations, turns: deps.turns,
    runningChannels: () => hub.names(), all: () => commands,
  }, router);
  for (const [name, command] of builtins) if (!commands.has(name)) builtinCommands.set(name, command);
  // Replies of turns that ended during the drain are still being sent: let them go out (and be recorded) first.
  const settled = () => router.settle(SETTLE_MS);
  const parts: Part[] = [];
  const buttons: { telegram?: TelegramChannel; discord?: DiscordChannel } = {};

  // Platform libraries (grammy, discord.js) are loaded only for a configured channel: they dominate start-up.
  if (!telegram?.token) log.info('telegram: off (no channels.telegram.token)');
  else {
    const { TelegramChannel } = await import('./telegram.js');
    const channel = new TelegramChannel({ commands, router, config: telegram, log: deps.log.child({ component: 'telegram' }) });
    hub.register(channel);
    buttons.telegram = channel;
    parts.push({ name: 'telegram', start: () => channel.start(), stop: () => channel.stop(), close: () => settled().then(() => channel.close()), doctor: () => channel.doctor() });
  }
  if (!discord?.token) log.info('discord: off (no channels.discord.token)');
  else {
    const { DiscordChannel } = await import('./discord.js');
    const channel = new DiscordChannel({ router, config: discord, log: deps.log.child({ component: 'discord' }) });
    hub.register(channel);
    buttons.discord = channel;
    parts.push({ name: 'discord', start: () => channel.start(), stop: () => channel.stop(), close: () => settled().then(() => channel.close()), doctor: () => channel.doctor() });
  }
  // Approval questions with buttons, answered outside the chat queue (see approvals.ts).
  if (buttons.telegram || buttons.discord) {
    const approvals = (await import('./approvals.js')).createChatApprovals({ approvals: deps.approvals, channels: buttons, log: deps.log });
    if (approvals) parts.push(approvals);
  }
  return { router, parts, refreshAccess };
}
