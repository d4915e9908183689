import type { Config } from '../config/schema.js';
import type { PlatformEntry } from './platform.js';

const missing = (key: string, value: string | undefined): string | undefined => (value ? undefined : `no ${key}`);

/**
 * The chat platforms, one row each: what turns a config section into a running channel. Adding a platform is a
 * folder of its own, a schema under `channels.<name>`, and a row here; the router, the hub, approvals, reply
 * buttons, start, doctor and the readiness checks take it from this table.
 */
export const PLATFORMS: readonly PlatformEntry[] = [
  {
    name: 'telegram',
    off: (config) => missing('channels.telegram.token', config.channels.telegram?.token),
    load: async (context) => (await import('./telegram-platform.js')).createTelegramPlatform(context),
  },
  {
    name: 'discord',
    off: (config) => missing('channels.discord.token', config.channels.discord?.token),
    load: async (context) => (await import('./discord-platform.js')).createDiscordPlatform(context),
  },
  {
    name: 'signal',
    off: (config) => missing('channels.signal.account', config.channels.signal?.account),
    load: async (context) => (await import('./signal/signal-platform.js')).createSignalPlatform(context),
  },
  {
    name: 'slack',
    off: (config) => missing('channels.slack.app_token', config.channels.slack?.app_token) ?? missing('channels.slack.bot_token', config.channels.slack?.bot_token),
    load: async (context) => (await import('./slack/slack-platform.js')).createSlackPlatform(context),
  },
  {
    name: 'matrix',
    off: (config) => missing('channels.matrix.access_token', config.channels.matrix?.access_token),
    load: async (context) => (await import('./matrix/matrix-platform.js')).createMatrixPlatform(context),
  },
];

/** The platforms' channel names, in the table's order. */
export const PLATFORM_NAMES: readonly string[] = PLATFORMS.map((entry) => entry.name);

type ChannelSections = Config['channels'];

/** `channels.<name>` of a platform, or undefined when the config has no such section. */
export function platformSection(config: Config, name: string): { allowed_users: readonly string[] } | undefined {
  return Object.hasOwn(config.channels, name) ? (config.channels[name as keyof ChannelSections] as { allowed_users: readonly string[] } | undefined) : undefined;
}

/** The platforms this config can start (their credentials are set), in the table's order. */
export function platformsToStart(config: Config): PlatformEntry[] {
  return PLATFORMS.filter((entry) => entry.off(config) === undefined);
}
