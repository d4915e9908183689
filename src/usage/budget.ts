import type { App } from '../app.js';
import { formatNumber, formatUsageToday, usageOfConversation, usageToday } from './usage.js';

/**
 * Usage accounting and the daily budget: every LLM response's tokens land in its turn's row at once (not only
 * when the turn ends), so the budget gate, checked before every LLM call, sees a long turn's spending too.
 */
export async function installUsage(app: App): Promise<void> {
  const addUsage = app.db.prepare(
    'UPDATE turns SET prompt_tokens = prompt_tokens + ?, completion_tokens = completion_tokens + ?, llm_calls = llm_calls + 1, model = ? WHERE id = ?',
  );
  app.agent.onUsage(({ turnId, model, usage }) => {
    addUsage.run(usage.promptTokens, usage.completionTokens, model, turnId);
  });
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
