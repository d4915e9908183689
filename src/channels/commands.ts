import type { App, ChatCommand } from '../app.js';
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
  const tokens = app.db
    .prepare('SELECT COALESCE(SUM(prompt_tokens), 0) AS prompt, COALESCE(SUM(completion_tokens), 0) AS completion, COUNT(*) AS turns FROM turns WHERE started_at >= ?')
    .get(startOfDay(now, app.clock.timeZone)) as { prompt: number; completion: number; turns: number };
  const waiting = Math.max(0, router.queued() - app.queue.active());
  return [
    `Model: ${app.config.llm.model}${app.config.llm.fallback_models.length > 0 ? ` (fallback: ${app.config.llm.fallback_models.join(', ')})` : ''}`,
    `Uptime: ${formatDuration(now - app.startedAt)}`,
    `Queue: ${app.queue.active()} running, ${waiting} waiting`,
    `Tokens today: ${tokens.prompt + tokens.completion} (${tokens.prompt} prompt, ${tokens.completion} completion) in ${tokens.turns} turns`,
    `Channels: ${app.channels.names().join(', ') || 'none'}`,
  ].join('\n');
}

/** Midnight of today in the configured zone (DST shifts of an hour are ignored for a daily sum). */
export function startOfDay(now: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).formatToParts(now);
  const value = (type: string): number => Number(parts.find((part) => part.type === type)?.value ?? 0);
  return now - ((value('hour') * 60 + value('minute')) * 60 + value('second')) * 1000 - (now % 1000);
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
