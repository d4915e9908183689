import { formatCost, formatNumber } from '../lib/numbers.js';
import { formatUsageToday, personTokensToday, startOfDay, topConversations, usageByDay, usageByPerson, usageOfConversation, usageToday } from '../usage/usage.js';
import { parseCommandArgs } from './args.js';
import { optionsOf } from './spec.js';
import type { Command, CommandContext } from './context.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/database.js';

/** `familiar usage [--days N] [--conversation ID] [--json]`: tokens per day and conversation, cost estimate, budget. */
export const usageCommand: Command = async (context) => {
  let parsed;
  try {
    parsed = parseCommandArgs(context.args, optionsOf('usage'));
  } catch (error) {
    context.io.stderr.write(`familiar: ${(error as Error).message}\nusage: familiar usage [--days N] [--conversation ID] [--person [NAME]] [--json]\n`);
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
    if (parsed.values.person === true) return byPerson(context, db, config, days, parsed.positionals[0]);
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

/** `familiar usage --person [NAME]`: a household's tokens per person over the days, and today against their budgets. */
function byPerson(context: CommandContext, db: Database, config: Config, days: number, name: string | undefined): number {
  const people = Object.entries(config.people ?? {});
  const owner = people.find(([, person]) => person.role === 'owner')?.[0];
  if (owner === undefined) {
    context.io.stderr.write('familiar usage: --person needs a household (people: in config.yaml; familiar people add)\n');
    return 2;
  }
  if (name !== undefined && !people.some(([person]) => person === name)) {
    context.io.stderr.write(`familiar usage: ${name} is not in people: (familiar people list)\n`);
    return 2;
  }
  const now = new Date();
  const from = startOfDay(config.timezone, new Date(now.getTime() - (days - 1) * 24 * 3600_000));
  const rows = usageByPerson(db, config.llm.prices, from, Number.MAX_SAFE_INTEGER, owner).filter((row) => name === undefined || row.person === name);
  const today = people.filter(([person]) => name === undefined || person === name).map(([person, settings]) => ({
    person, tokens: personTokensToday(db, config, person, now), budget: settings.budget.daily_tokens ?? 0,
  }));
  if (context.options.json) {
    context.io.stdout.write(`${JSON.stringify({ days, people: rows, today }, null, 2)}\n`);
    return 0;
  }
  const out = context.io.stdout;
  out.write(`Last ${days} day${days === 1 ? '' : 's'} by person (rows from before the household are ${owner}'s):\n`);
  out.write('person          prompt  completion       total  turns\n');
  for (const row of rows) {
    out.write(`${row.person.padEnd(12)}  ${formatNumber(row.promptTokens).padStart(9)}  ${formatNumber(row.completionTokens).padStart(10)}  ${formatNumber(row.totalTokens).padStart(10)}  ${String(row.turns).padStart(5)}${row.costUsd !== undefined ? `  ≈ ${formatCost(row.costUsd)}` : ''}\n`);
  }
  out.write('\nToday:\n');
  for (const row of today) out.write(`  ${row.person}: ${formatNumber(row.tokens)} tokens${row.budget > 0 ? ` of ${formatNumber(row.budget)} (${formatNumber(Math.max(0, row.budget - row.tokens))} left)` : ', no budget of their own'}\n`);
  return 0;
}
