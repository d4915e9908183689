import type { ApprovalPrompter } from '../approval/prompter.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/database.js';
import type { ButtonHandler } from '../delivery/types.js';
import type { Logger } from '../log.js';
import { layeredMap } from '../lib/layered-map.js';
import type { ChatCommand, ChatCommands, Part } from '../part.js';
import type { Workspaces } from '../workspace/workspace.js';
import type { Turns } from '../turns/turns.js';
import type { StartTurn } from '../turns/types.js';
import { createBuiltinCommands, type TokensToday } from './commands.js';
import type { DiscordChannel } from './discord.js';
import type { ChannelHub } from './hub.js';
import { ChannelRouter, type RunAs } from './router.js';
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
  /** Runs a chat command as its sender (a household's person); absent: as is. */
  runAs?: RunAs;
}

/** The router and the built-in chat commands: what every chat platform (and the console) hands its messages to. */
export interface ChatRouting {
  router: ChannelRouter;
  /** A config reload changed `allowed_users`: the router's sets (read per message) follow. */
  refreshAccess: () => void;
}

/**
 * The chat router (access, dedupe, the chat commands, the turns) and the built-in commands (`/help`, `/reset`,
 * `/status`, `/stop`, added where free). A service the platforms' parts and the console use; no part of its own.
 */
export function createChatRouting(deps: ChannelsPartDeps): ChatRouting {
  const { config, hub } = deps;
  const { telegram, discord } = config.channels;
  // A household's people are let in by their ids (docs/household.md): no need to repeat them in allowed_users.
  const allowedUsers = new Map<string, Set<string>>([
    ['telegram', new Set([...(telegram?.allowed_users ?? []), ...peopleIds(config, 'telegram')])],
    ['discord', new Set([...(discord?.allowed_users ?? []), ...peopleIds(config, 'discord')])],
    // The console's one person is the owner behind its login (nothing but the console sends on this channel).
    ['console', new Set([CONSOLE_USER])],
  ]);
  const refreshAccess = (): void => {
    for (const [name, users] of allowedUsers) {
      if (name === 'console') continue;
      users.clear();
      for (const user of config.channels[name as 'telegram' | 'discord']?.allowed_users ?? []) users.add(user);
      for (const user of peopleIds(config, name)) users.add(user);
    }
  };
  // A view, not a copy: the parts' commands include MCP prompts, which come and go while the daemon runs.
  const builtinCommands = new Map<string, ChatCommand>();
  const commands = layeredMap([deps.commands, builtinCommands]);
  const router = new ChannelRouter({
    db: deps.db, log: deps.log, dataDir: config.data_dir, vision: config.llm.vision, commands,
    conversations: deps.conversations, startTurn: deps.startTurn, turns: deps.turns, allowedUsers, workspaces: deps.workspaces, voice: deps.voice,
    ...(deps.runAs ? { runAs: deps.runAs } : {}),
  });
  const builtins = createBuiltinCommands({
    config, usageToday: deps.usageToday, startedAt: deps.startedAt, conversations: deps.conversations, turns: deps.turns,
    runningChannels: () => hub.names(), all: () => commands,
  }, router);
  for (const [name, command] of builtins) if (!commands.has(name)) builtinCommands.set(name, command);
  return { router, refreshAccess };
}

/**
 * Telegram, when `channels.telegram.token` is set (else one log line and no part). grammy is loaded only then: the
 * platform libraries dominate start-up. Its close lets the replies of turns that ended during the drain go out first.
 */
export async function createTelegramPart(deps: { config: Config; log: Logger; hub: ChannelHub; router: ChannelRouter }): Promise<{ part: Part | undefined; channel: TelegramChannel | undefined }> {
  const telegram = deps.config.channels.telegram;
  if (!telegram?.token) {
    deps.log.child({ component: 'channels' }).info('telegram: off (no channels.telegram.token)');
    return { part: undefined, channel: undefined };
  }
  const { TelegramChannel } = await import('./telegram.js');
  const channel = new TelegramChannel({ commands: deps.router.commands, router: deps.router, config: telegram, log: deps.log.child({ component: 'telegram' }) });
  deps.hub.register(channel);
  const part: Part = { name: 'telegram', start: () => channel.start(), stop: () => channel.stop(), close: () => deps.router.settle(SETTLE_MS).then(() => channel.close()), doctor: () => channel.doctor() };
  return { part, channel };
}

/** Discord, when `channels.discord.token` is set (else one log line and no part); discord.js is loaded only then. */
export async function createDiscordPart(deps: { config: Config; log: Logger; hub: ChannelHub; router: ChannelRouter }): Promise<{ part: Part | undefined; channel: DiscordChannel | undefined }> {
  const discord = deps.config.channels.discord;
  if (!discord?.token) {
    deps.log.child({ component: 'channels' }).info('discord: off (no channels.discord.token)');
    return { part: undefined, channel: undefined };
  }
  const { DiscordChannel } = await import('./discord.js');
  const channel = new DiscordChannel({ router: deps.router, config: discord, log: deps.log.child({ component: 'discord' }) });
  deps.hub.register(channel);
  const part: Part = { name: 'discord', start: () => channel.start(), stop: () => channel.stop(), close: () => deps.router.settle(SETTLE_MS).then(() => channel.close()), doctor: () => channel.doctor() };
  return { part, channel };
}

/** Approval questions with buttons on the platforms that run, answered outside the chat queue (see approvals.ts). */
export async function createChatApprovalsPart(deps: {
  approvals: ChannelsPartDeps['approvals']; log: Logger; channels: { telegram?: TelegramChannel | undefined; discord?: DiscordChannel | undefined };
}): Promise<{ part: Part | undefined }> {
  const { telegram, discord } = deps.channels;
  if (!telegram && !discord) return { part: undefined };
  const { createChatApprovals } = await import('./approvals.js');
  return { part: createChatApprovals({ approvals: deps.approvals, channels: { ...(telegram ? { telegram } : {}), ...(discord ? { discord } : {}) }, log: deps.log }) };
}

/** Presses of the buttons delivered replies carry (a reminder's Snooze and Done) on the platforms that run (reply-buttons.ts). */
export async function listenForReplyButtons(deps: {
  press: ButtonHandler; isAllowed: (channel: string, userId: string) => boolean; log: Logger; channels: { telegram?: TelegramChannel | undefined; discord?: DiscordChannel | undefined };
}): Promise<void> {
  if (!deps.channels.telegram && !deps.channels.discord) return;
  const buttons = await import('./reply-buttons.js');
  buttons.listenForReplyButtons(deps);
}

/** The ids `people:` gives on a channel (a person's ids are allowed users). */
function peopleIds(config: Config, channel: string): string[] {
  return Object.values(config.people ?? {}).flatMap((person) => {
    const ids = person.ids[channel];
    return Array.isArray(ids) ? ids : [];
  });
}
