import type { App, ChatCommand } from '../app.js';
import { usageToday } from '../usage/usage.js';
import type { ChannelRouter } from './router.js';

/**
 * The chat commands every channel answers without an LLM call. Subsystems add their own to
 * `app.chatCommands` (`/jobs`, `/undo`); a command already registered under the same name is kept.
 */
export function registerBuiltinCommands(app: App, router: ChannelRouter): void {
  const builtins: Array<[string, ChatCommand]> = [
    ['help', { description: 'what I can do and the commands', run: async () => helpText(app) }],
    [
      'reset',
      {
        description: 'start a new conversation (the old one is kept)',
        run: async ({ channel, chatId }) => {
          app.conversations.reset(channel, chatId);
          return 'Started a new conversation. The previous one is kept in the database.';
        },
      },
    ],
    ['status', { description: 'model, uptime, queue, tokens used today', run: async () => statusText(app, router) }],
    [
      'memory',
      {
        description: 'list my memory files',
        run: async () => {
          const files = app.memory.list();
          if (files.length === 0) return 'My memory folder is empty.';
          return ['Memory files:', ...files.map((file) => `• ${file.path} (${formatBytes(file.size)})`)].join('\n');
        },
      },
    ],
    [
      'stop',
      {
        description: 'stop what I am doing in this chat',
        run: async ({ channel, chatId }) => (router.stop(channel, chatId) ? '' : 'Nothing is running in this chat.'),
      },
    ],
  ];
  for (const [name, command] of builtins) if (!app.chatCommands.has(name)) app.chatCommands.set(name, command);
}

function helpText(app: App): string {
  const lines = [
    `I am ${app.config.agent.name}, your assistant. Write to me in plain words; I can use my tools and memory.`,
    '',
    'Commands:',
    ...[...app.chatCommands.entries()].map(([name, command]) => `/${name} — ${command.description}`),
  ];
  return lines.join('\n');
}

function statusText(app: App, router: ChannelRouter): string {
  const now = Date.now();
  const tokens = usageToday(app.db, app.config, new Date(now));
  const waiting = Math.max(0, router.queued() - app.queue.active());
  return [
    `Model: ${app.config.llm.model}${app.config.llm.fallback_models.length > 0 ? ` (fallback: ${app.config.llm.fallback_models.join(', ')})` : ''}`,
    `Uptime: ${formatDuration(now - app.startedAt)}`,
    `Queue: ${app.queue.active()} running, ${waiting} waiting`,
    `Tokens today: ${tokens.totalTokens} (${tokens.promptTokens} prompt, ${tokens.completionTokens} completion) in ${tokens.turns} turns`,
    `Channels: ${app.channels.names().join(', ') || 'none'}`,
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

function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}
