import type { App } from '../app.js';
import { formatNumber, formatUsageToday, usageOfConversation, usageToday } from './usage.js';

/**
 * The daily budget, checked before every LLM call. The agent writes each step's tokens to its turn's row with
 * the step's messages (not only when the turn ends), so the gate sees a long turn's spending too.
 */
export async function installUsage(app: App): Promise<void> {
  const now = () => new Date();
  app.agent.addLlmGate(() => {
    const budget = app.config.llm.daily_token_budget;
    if (budget <= 0) return undefined;
    const today = usageToday(app.db, app.config, now());
    if (today.totalTokens < budget) return undefined;
    return `I have used today's token budget (${formatNumber(today.totalTokens)} of ${formatNumber(budget)} tokens, llm.daily_token_budget), so I will not call the model again until midnight (${app.clock.timeZone}). Raise the budget in the config to continue today.`;
  });
  app.chatCommands.set('usage', {
    description: "today's token use, cost estimate and budget",
    async run({ conversationId }) {
      const conversation = usageOfConversation(app.db, app.config.llm.prices, conversationId);
      return `${formatUsageToday(usageToday(app.db, app.config, now()))}\nThis conversation: ${formatNumber(conversation.totalTokens)} tokens in ${conversation.turns} turn${conversation.turns === 1 ? '' : 's'}.`;
    },
  });
  if (app.config.llm.daily_token_budget > 0) app.log.debug({ budget: app.config.llm.daily_token_budget }, 'usage: daily token budget on');
}
