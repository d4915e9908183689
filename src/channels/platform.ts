import type { ApprovalPrompter } from '../approval/prompter.js';
import type { Config } from '../config/schema.js';
import type { ButtonHandler } from '../delivery/types.js';
import type { Logger } from '../log.js';
import type { ChatCommands, DoctorLine } from '../part.js';
import type { PendingApprovals } from './approval-pending.js';
import type { ChannelRouter } from './router.js';
import type { ChannelAdapter } from './types.js';

/** What a platform's presses of delivered reply buttons (a reminder's Snooze and Done) are handed to. */
export interface ButtonPressDeps {
  /** The part that made the buttons answers their presses (who may press, what a press does). */
  press: ButtonHandler;
  /** The router's access check (allowlist or pairing): a press counts only from someone who may talk to the bot. */
  isAllowed: (channel: string, userId: string) => boolean;
  log: Logger;
}

/**
 * The contract a chat platform (Telegram, Discord, Matrix, …) implements: an adapter the one delivery path sends
 * through, a part's life, its doctor lines, and, where the platform has them, approval questions and reply buttons.
 * Its messages go to the router it was made with (`router.handle`, `router.replay` at start).
 */
export interface ChatPlatform extends ChannelAdapter {
  /**
   * Connects and starts receiving. Throws an AppError naming the config key for rejected credentials, and AppError
   * `<NAME>_UNREACHABLE` (DISCORD_UNREACHABLE…) when the server cannot be reached: then it is called again later
   * (start-retry.ts), so a start that threw leaves nothing open and can run again, and answers the messages the last
   * run left (`router.replay`) once, when the server answers.
   */
  start(): Promise<void>;
  /** Stops receiving, and makes a start under way give up soon; replies of turns still running go out. */
  stop(): Promise<void>;
  /** After the drain: disconnects. */
  close(): Promise<void>;
  /** `familiar doctor` lines: a login or a cheap request, each failure with its fix. */
  doctor(): Promise<DoctorLine[]>;
  /**
   * Approval questions with the platform's buttons or reactions. Presses must be handled outside the chat's turn
   * queue (the turn that asked is waiting) and count only from the person the question is for.
   */
  prompter?(pending: PendingApprovals): ApprovalPrompter;
  /** Presses of the buttons a delivered reply carried (see ButtonPressDeps). */
  listenForButtons?(deps: ButtonPressDeps): void;
}

/** What a platform is made with. */
export interface PlatformContext {
  config: Config;
  /** Already the platform's own child (`component: <name>`). */
  log: Logger;
  router: ChannelRouter;
  /** The chat commands, for platforms with a command menu. */
  commands: ChatCommands;
}

/**
 * One row of the platform table (platforms.ts). Light by contract: the table is read by one-shot commands and
 * doctor, so a row imports its platform's code (and its client library) only in `load`.
 */
export interface PlatformEntry {
  /** The channel name: `channels.<name>` in the config, `channel` in jobs, routes and the hub. */
  readonly name: string;
  /** Why it cannot start with this config (its section or a credential is missing), or undefined when it can. */
  off(config: Config): string | undefined;
  load(context: PlatformContext): Promise<ChatPlatform>;
}

/** What a platform's channel class has: the adapter and the part's life. */
export type PlatformChannel = Pick<ChatPlatform, 'name' | 'send' | 'start' | 'stop' | 'close' | 'doctor'>;

/** A platform from its channel and the approvals and reply buttons it has (the methods bound to the channel). */
export function platformOf(channel: PlatformChannel, extras: Pick<ChatPlatform, 'prompter' | 'listenForButtons' | 'directChat'>): ChatPlatform {
  return {
    name: channel.name,
    send: (chatId, reply) => channel.send(chatId, reply),
    start: () => channel.start(),
    stop: () => channel.stop(),
    close: () => channel.close(),
    doctor: () => channel.doctor(),
    ...extras,
  };
}
