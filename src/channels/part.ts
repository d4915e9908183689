import type { ApprovalPrompter } from '../approval/prompter.js';
import { peopleIdsOn } from '../config/people.js';
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
import type { ChannelHub } from './hub.js';
import { PendingApprovals } from './approval-pending.js';
import { PLATFORM_NAMES, PLATFORMS, platformSection } from './platforms.js';
import { ChannelRouter, type RunAs } from './router.js';
import { withStartRetries } from './start-retry.js';
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
  /** The channels `/status` lists as running; absent: every one on the hub. */
  runningChannels?: () => string[];
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
  // A household's people are let in by their ids (docs/household.md): no need to repeat them in allowed_users.
  const allowedUsers = new Map<string, Set<string>>([
    ...PLATFORM_NAMES.map((name): [string, Set<string>] => [name, new Set([...(platformSection(config, name)?.allowed_users ?? []), ...peopleIdsOn(config, name)])]),
    // The console's one person is the owner behind its login (nothing but the console sends on this channel).
    ['console', new Set([CONSOLE_USER])],
  ]);
  const refreshAccess = (): void => {
    for (const name of PLATFORM_NAMES) {
      const users = allowedUsers.get(name);
      users?.clear();
      for (const user of platformSection(config, name)?.allowed_users ?? []) users?.add(user);
      for (const user of peopleIdsOn(config, name)) users?.add(user);
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
    runningChannels: deps.runningChannels ?? (() => hub.names()), all: () => commands,
  }, router);
  for (const [name, command] of builtins) if (!commands.has(name)) builtinCommands.set(name, command);
  return { router, refreshAccess };
}

/**
 * The chat platforms this config can start (platforms.ts), each registered on the hub, with its approval questions
 * and reply buttons where it has them; a platform without its credentials is one log line and no part. Their
 * libraries load only here: they dominate start-up. A platform whose server cannot be reached at start keeps trying
 * in the background (start-retry.ts). A platform's close lets the replies of turns that ended during the drain go out
 * first. The last part ends open approval questions at shutdown: listed after the platforms, it stops first, so the
 * questions are edited while the bots can still send.
 */
export async function createPlatformParts(deps: {
  config: Config; log: Logger; hub: ChannelHub; router: ChannelRouter; approvals: ChannelsPartDeps['approvals'];
  press: ButtonHandler; isAllowed: (channel: string, userId: string) => boolean;
  /** The first wait before a platform that could not reach its server tries again (5 s); tests shorten it. */
  retryFirstMs?: number;
}): Promise<Part[]> {
  const parts: Part[] = [];
  const open: PendingApprovals[] = [];
  for (const entry of PLATFORMS) {
    const off = entry.off(deps.config);
    if (off !== undefined) {
      // A platform nobody asked for is not news; one with a section but no credentials is.
      deps.log.child({ component: 'channels' })[platformSection(deps.config, entry.name) ? 'info' : 'debug'](`${entry.name}: off (${off})`);
      continue;
    }
    const log = deps.log.child({ component: entry.name });
    const platform = await entry.load({ config: deps.config, log, router: deps.router, commands: deps.router.commands });
    deps.hub.register(platform);
    const life = withStartRetries(platform, { log, ...(deps.retryFirstMs !== undefined ? { firstMs: deps.retryFirstMs } : {}) });
    parts.push({ name: entry.name, start: () => life.start(), stop: () => life.stop(), close: () => deps.router.settle(SETTLE_MS).then(() => life.close()), doctor: () => platform.doctor() });
    if (platform.prompter) {
      const pending = new PendingApprovals(log);
      deps.approvals.registerPrompter(entry.name, platform.prompter(pending));
      open.push(pending);
    }
    platform.listenForButtons?.({ press: deps.press, isAllowed: deps.isAllowed, log });
  }
  if (open.length > 0) {
    parts.push({ name: 'chat-approvals', stop: async () => { for (const pending of open) pending.closeAll(); } });
  }
  return parts;
}

