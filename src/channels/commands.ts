import type { Config } from '../config/schema.js';
import type { ChatCommand, ChatCommands } from '../part.js';
import type { ChannelRouter } from './router.js';

/** Today's LLM use as the usage budget counts it. */
export interface TokensToday {
  totalTokens: number;
  promptTokens: number;
  completionTokens: number;
  turns: number;
}

export interface BuiltinCommandDeps {
  config: Config;
  /** The usage part's `today`, handed over by the root. */
  usageToday: (at: Date) => TokensToday;
  startedAt: number;
  conversations: { reset(channel: string, chatId: string): string };
  turns: { active(): number };
  runningChannels(): string[];
  /** Every command the chats answer, for `/help` (this map's own included). */
  all(): ChatCommands;
}

/**
 * The chat commands every channel answers without an LLM call: `/help`, `/reset`, `/status`, `/stop`. A part's
 * command of the same name wins (see the channels part).
 */
export function createBuiltinCommands(deps: BuiltinCommandDeps, router: ChannelRouter): Map<string, ChatCommand> {
  return new Map<string, ChatCommand>([
    ['help', { description: 'what I can do and the commands', run: async () => helpText(deps) }],
    [
      'reset',
      {
        description: 'start a new conversation (the old one is kept)',
        run: async ({ channel, chatId }) => {
          deps.conversations.reset(channel, chatId);
          return 'Started a new conversation. The previous one is kept in the database.';
        },
      },
    ],
    ['status', { description: 'model, uptime, queue, tokens used today', run: async () => statusText(deps, router) }],
    [
      'stop',
      {
        description: 'stop what I am doing in this chat',
        run: async ({ channel, chatId }) => (router.stop(channel, chatId) ? '' : 'Nothing is running in this chat.'),
      },
    ],
  ]);
}

function helpText(deps: BuiltinCommandDeps): string {
  const lines = [
    `I am ${deps.config.agent.name}, your assistant. Write to me in plain words; I can use my tools and memory.`,
    '',
    'Commands:',
    ...[...deps.all().entries()].map(([name, command]) => `/${name} — ${command.description}`),
  ];
  return lines.join('\n');
}

function statusText(deps: BuiltinCommandDeps, router: ChannelRouter): string {
  const now = Date.now();
  const { config } = deps;
  const tokens = deps.usageToday(new Date(now));
  const running = deps.turns.active();
  const waiting = Math.max(0, router.queued() - running);
  return [
    `Model: ${config.llm.model}${config.llm.fallback_models.length > 0 ? ` (fallback: ${config.llm.fallback_models.join(', ')})` : ''}`,
    `Uptime: ${formatDuration(now - deps.startedAt)}`,
    `Queue: ${running} running, ${waiting} waiting`,
    `Tokens today: ${tokens.totalTokens} (${tokens.promptTokens} prompt, ${tokens.completionTokens} completion) in ${tokens.turns} turns`,
    `Channels: ${deps.runningChannels().join(', ') || 'none'}`,
  ].join('\n');
}

function formatDuration(ms: number): string {
  const minutes = Math.floor(ms / 60000);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes % 60} min`;
  return `${minutes} min`;
}
