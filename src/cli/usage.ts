import { formatCost, formatNumber } from '../lib/numbers.js';
import { formatUsageToday, topConversations, usageByDay, usageOfConversation, usageToday } from '../usage/usage.js';
import { parseCommandArgs } from './args.js';
import { optionsOf } from './spec.js';
import type { Command } from './context.js';

/** `familiar usage [--days N] [--conversation ID] [--json]`: tokens per day and conversation, cost estimate, budget. */
export const usageCommand: Command = async (context) => {
  let parsed;
  try {
    parsed = parseCommandArgs(context.args, optionsOf('usage'));
  } catch (error) {
    context.io.stderr.write(`familiar: ${(error as Error).message}\nusage: familiar usage [--days N] [--conversation ID] [--json]\n`);
    return 2;
  }
  const days = parsed.values.days === undefined ? 7 : Number(parsed.values.days);
  if (!Number.isInteger(days) || days < 1 || days > 366) {
    context.io.stderr.write('familiar: --days must be a whole number from 1 to 366\n');
    return 2;
  }
  const { config } = context.loadConfig();
  const db = context.openDatabase();
  try {
    const today = usageToday(db, config);
    const conversationId = typeof parsed.values.conversation === 'string' ? parsed.values.conversation : undefined;
    const conversation = conversationId ? usageOfConversation(db, config.llm.prices, conversationId) : undefined;
    const perDay = usageByDay(db, config, days);
    const top = topConversations(db, today.resetsAt - 24 * 3600_000, 5);
    if (context.options.json) {
      context.io.stdout.write(`${JSON.stringify({ today, days: perDay, top_conversations_today: top, ...(conversation ? { conversation: { id: conversationId, ...conversation } } : {}) }, null, 2)}\n`);
      return 0;
    }
    const out = context.io.stdout;
    out.write(`${formatUsageToday(today)}\n`);
    if (conversation) out.write(`Conversation ${conversationId}: ${formatNumber(conversation.totalTokens)} tokens in ${conversation.turns} turns${conversation.costUsd !== undefined ? `, ≈ ${formatCost(conversation.costUsd)}` : ''}.\n`);
    out.write(`\nday          prompt  completion       total  turns${Object.keys(config.llm.prices).length > 0 ? '       cost' : ''}\n`);
    for (const day of perDay) {
      const cost = Object.keys(config.llm.prices).length > 0 ? `  ${(day.costUsd !== undefined ? formatCost(day.costUsd) : '-').padStart(9)}` : '';
      out.write(`${day.day}  ${formatNumber(day.promptTokens).padStart(9)}  ${formatNumber(day.completionTokens).padStart(10)}  ${formatNumber(day.totalTokens).padStart(10)}  ${String(day.turns).padStart(5)}${cost}\n`);
    }
    if (top.length > 0) {
      out.write('\nToday by conversation:\n');
      for (const row of top) out.write(`  ${row.conversationId}  ${formatNumber(row.totalTokens)} tokens, ${row.turns} turns\n`);
    }
    return 0;
  } finally {
    db.close();
  }
};
